/**
 * JSON made by PostgreSQL as `JSON.stringify` writes it, so that a reply can carry it as it is
 * (`JsonText`, server/platform/http/reply.ts): `row_to_json` and `array_to_json` write no spaces, while
 * `json_build_object` and `json_agg` put a space around each colon and after each comma. Keys come in
 * the order of the columns. Columns must be text, numbers without a fixed scale, booleans, `isoTime`
 * times or JSON from these helpers: a jsonb column or a Date would be written differently.
 */

/**
 * An object of the columns (`x.id, x.user_id AS "userId"`), which may name the statement's tables, read
 * `from` when given (`cap.trades t WHERE t.id = x.trade_id`: null without a row). One subquery either way.
 */
export const jsonObject = (columns: string, from?: string): string =>
  `(SELECT row_to_json(j) FROM (SELECT ${columns}${from ? ` FROM ${from}` : ''}) j)`;

/** An array of `element` (JSON, e.g. a `jsonObject`) for each row of `from` in `orderBy`: `[]` for none. */
export const jsonArray = (element: string, from: string, orderBy: string): string =>
  `coalesce((SELECT array_to_json(array_agg(${element} ORDER BY ${orderBy})) FROM ${from}), '[]'::json)`;

import { jsonArray, jsonObject } from '../../platform/db/json-text.ts';

/**
 * SQL of the catalogue's tables (trades, awarding bodies and their members) for a statement of another
 * module that has to stay one statement: the caller's standing (every call), a list paged and filtered
 * by trade, figures grouped and ordered by trade name, a timeline naming who made each move.
 */
export const catalogueSql = {
  /** The name of the trade whose id is the SQL expression `tradeId`. */
  tradeName: (tradeId: string) => `(SELECT t.name FROM cap.trades t WHERE t.id = ${tradeId})`,

  /** The sector whose id is the SQL expression `sectorId` as `{ id, name, slug }` (JSON), or null. */
  sectorCard: (sectorId: string) =>
    `(SELECT json_build_object('id', s.id, 'name', s.name, 'slug', s.slug) FROM cap.sectors s WHERE s.id = ${sectorId})`,

  /** The sectors whose ids the SQL subquery `sectorIds` lists, as `[{ id, name }]` by name (JSON). */
  sectorsNamed: (sectorIds: string) =>
    jsonArray(jsonObject('s.id, s.name'), `cap.sectors s WHERE s.id IN (${sectorIds})`, 's.name'),

  /** The trade whose id is the SQL expression `tradeId` as `{ id, name, slug }` (JSON), or null. */
  tradeCard: (tradeId: string) => jsonObject('t.id, t.name, t.slug', `cap.trades t WHERE t.id = ${tradeId}`),

  /**
   * A LEFT JOIN of the sector whose id is the SQL expression `sectorId`, as `alias`, for `joinedCard`.
   * Over a page's rows PostgreSQL reads each sector once (a memoized lookup), where `sectorCard`, a
   * subquery, reads it once a row; likewise `joinTrade`.
   */
  joinSector: (alias: string, sectorId: string) => `LEFT JOIN cap.sectors ${alias} ON ${alias}.id = ${sectorId}`,

  /** A LEFT JOIN of the trade whose id is the SQL expression `tradeId`, as `alias`, for `joinedCard`. */
  joinTrade: (alias: string, tradeId: string) => `LEFT JOIN cap.trades ${alias} ON ${alias}.id = ${tradeId}`,

  /** The sector or trade joined as `alias` (`joinSector`, `joinTrade`) as `{ id, name, slug }` (JSON), or null. */
  joinedCard: (alias: string) =>
    `CASE WHEN ${alias}.id IS NOT NULL THEN ${jsonObject(`${alias}.id, ${alias}.name, ${alias}.slug`)} END`,

  /** The trade `tradeId` is active and of a sector the SQL subquery `sectorIds` lists. */
  activeTradeIn: (tradeId: string, sectorIds: string) =>
    `EXISTS (SELECT 1 FROM cap.trades t WHERE t.id = ${tradeId} AND t.status = 'active' AND t.sector_id IN (${sectorIds}))`,

  /** The name the user `userId` has as a member of an awarding body (their first such membership), or null. */
  memberName: (userId: string) =>
    `(SELECT b.name FROM cap.awarding_body_members b WHERE b.user_id = ${userId} AND b.name IS NOT NULL ORDER BY b.id LIMIT 1)`,

  /** The caller's standing: their oldest awarding body membership, whatever its status (a JSON object or null). */
  standingAwardingBody: (userId: string) =>
    `(SELECT json_build_object('awardingBodyId', b.id, 'name', b.name, 'role', m.role, 'status', m.status)
                 FROM cap.awarding_body_members m JOIN cap.awarding_bodies b ON b.id = m.awarding_body_id
                WHERE m.user_id = ${userId} ORDER BY m.created_at, m.id LIMIT 1)`,

  /** The caller's standing: whether any of their awarding body memberships is active. */
  standingAwardingBodyActive: (userId: string) =>
    `EXISTS (SELECT 1 FROM cap.awarding_body_members m WHERE m.user_id = ${userId} AND m.status = 'active')`,
};

import test from 'ava';
import pg from 'pg';
import { isoTime } from '../../server/platform/db/iso-time.ts';
import { jsonArray, jsonObject } from '../../server/platform/db/json-text.ts';
import { JsonText, successText } from '../../server/platform/http/reply.ts';

import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';

// jsonObject and jsonArray: a list's reply carries PostgreSQL's JSON text as it is, so that text must be
// the very text JSON.stringify writes for the same values (spacing, key order, escapes, nulls, numbers).

let platform: TestPlatform;
let client: pg.Client;
test.before(async () => {
  platform = await startTestPlatform({ only: ['ol'] });
  client = new pg.Client({ connectionString: platform.databaseUrl });
  await client.connect();
});
test.after.always(async () => {
  await client?.end();
  await platform?.stop();
});

const awkward = [
  'plain',
  'quote " and back\\slash',
  'new\nline\ttab\r',
  'control \u0001\u001f\u007f',
  'é ✓ 𝄞 \u2028',
  '',
];

test('jsonObject writes what JSON.stringify writes for the same columns, in their order', async (t) => {
  for (const text of awkward) {
    const { rows } = await client.query<{ json: string }>(
      `SELECT ${jsonObject(`$1::text AS "zLast", NULL::text AS "aNull", 42 AS n, -7::bigint AS big, true AS yes,
         ${isoTime(`'2026-11-28 10:11:12.345678+00'::timestamptz`)} AS at, ${jsonObject('$1::text AS inner, false AS no')} AS nested`)}::text AS json`,
      [text],
    );
    const expected = {
      zLast: text,
      aNull: null,
      n: 42,
      big: -7,
      yes: true,
      at: '2026-11-28T10:11:12.345Z',
      nested: { inner: text, no: false },
    };
    t.is(rows[0]!.json, JSON.stringify(expected), JSON.stringify(text));
  }
});

test('jsonArray writes what JSON.stringify writes for the rows in order, and [] for none', async (t) => {
  const { rows } = await client.query<{ some: string; none: string }>(
    `SELECT ${jsonArray(jsonObject('v.name, v.n'), 'unnest($1::text[]) WITH ORDINALITY AS v(name, n)', 'v.n DESC')}::text AS some,
            ${jsonArray(jsonObject('v.name'), 'unnest($1::text[]) AS v(name) WHERE false', 'v.name')}::text AS none`,
    [awkward],
  );
  t.is(rows[0]!.some, JSON.stringify(awkward.map((name, i) => ({ name, n: i + 1 })).reverse()));
  t.is(rows[0]!.none, '[]');
});

test('a reply of JsonText is the envelope JSON.stringify writes for the parsed data', (t) => {
  const items = [
    { id: 'a', n: 1 },
    { id: 'b', note: null },
  ].map((item) => JSON.stringify(item));
  const meta = { pagination: { nextCursor: null, hasMore: false, limit: 20 } };
  const data = items.map((item) => JSON.parse(item) as unknown);
  t.is(successText(JsonText.array(items), meta), JSON.stringify({ success: true, data, meta }));
  t.is(successText(new JsonText(items[0]!)), JSON.stringify({ success: true, data: data[0] }));
  t.is(successText(JsonText.array([])), JSON.stringify({ success: true, data: [] }));
});

import test from 'ava';
import pg from 'pg';
import { isoTime } from '../../server/platform/db/iso-time.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';

// isoTime: PostgreSQL writes a timestamp's wire text itself, and it must be the very text
// Date.toISOString writes for the same value as node-postgres reads it.

let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform({ only: ['ol'] });
});
test.after.always(() => platform?.stop());

test('isoTime writes what Date.toISOString writes, microseconds dropped alike, whatever the session time zone', async (t) => {
  const client = new pg.Client({ connectionString: platform.databaseUrl, options: '-c TimeZone=Africa/Lagos' });
  await client.connect();
  try {
    for (const value of [
      '2026-11-25 03:04:05.999999+00',
      '2026-01-01 00:00:00+01',
      '1999-12-31 23:59:59.0005-05:30',
      '2024-02-29 12:00:00.123456+00',
    ]) {
      const { rows } = await client.query<{ text: string; date: Date }>(
        `SELECT ${isoTime('$1::timestamptz')} AS text, $1::timestamptz AS date`,
        [value],
      );
      t.is(rows[0]!.text, rows[0]!.date.toISOString(), value);
    }
  } finally {
    await client.end();
  }
});

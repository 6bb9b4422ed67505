import test from 'ava';
import type { Sequelize } from 'sequelize';
import { createSequelize } from '../../server/platform/db/database.ts';
import { Conditions, keysetRows } from '../../server/platform/db/keyset.ts';
import { preparedReads } from '../../server/platform/db/prepared.ts';
import { pageRequest } from '../../server/platform/http/pagination.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';

// keysetRows: the list pages of every service. A page is one prepared statement per list shape and
// page size, which PostgreSQL plans once and keeps, rather than planning it again on every request.

let platform: TestPlatform;
let sequelize: Sequelize;
test.before(async () => {
  platform = await startTestPlatform({ only: ['ol'] });
  // One connection, so that every statement below runs in the session whose plan cache is read.
  sequelize = createSequelize(platform.databaseUrl, 'public', 1);
  await sequelize.query(`CREATE TABLE keyset_probe (id text PRIMARY KEY, team text NOT NULL, rank int NOT NULL)`);
  await sequelize.query(`CREATE INDEX keyset_probe_team_rank ON keyset_probe (team, rank, id)`);
  // As many rows as the benchmark's centre has staff: with a few hundred, any plan is cheap and the
  // planner's choice does not show.
  await sequelize.query(
    `INSERT INTO keyset_probe SELECT lpad(n::text, 5, '0'), 'blue', n % 17 FROM generate_series(1, 10000) AS n`,
  );
  await sequelize.query('ANALYZE keyset_probe');
});
test.after.always(async () => {
  await sequelize?.close();
  await platform?.stop();
});

const page = (limit: number, cursor?: string) =>
  keysetRows<{ id: string }>(preparedReads(sequelize), pageRequest({ limit, cursor }), {
    select: 'x.id',
    from: 'keyset_probe x',
    where: new Conditions().add('x.team = ?', 'blue'),
    key: 'x.rank',
    desc: true,
  });

test.serial(
  'a page statement is planned once and then reused: after five executions PostgreSQL keeps its generic plan',
  async (t) => {
    for (let i = 0; i < 8; i++) await page(20);
    const [statement] = (await sequelize.query(
      `SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE name LIKE 'keyset.%' ORDER BY generic_plans + custom_plans DESC LIMIT 1`,
      { type: 'SELECT' },
    )) as Array<{ generic: number; custom: number }>;
    t.truthy(statement, 'the page is a prepared statement');
    t.true(statement!.generic >= 3, `planned anew on every execution: ${JSON.stringify(statement)}`);
  },
);

test('pages follow each other by the cursor without gaps or repeats, whatever the page size', async (t) => {
  for (const limit of [7, 100]) {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const { items, meta } = await page(limit, cursor);
      seen.push(...items.map((item) => item.id));
      cursor = meta.pagination.nextCursor ?? undefined;
    } while (cursor);
    t.is(seen.length, 10000, `limit ${limit}`);
    t.is(new Set(seen).size, 10000, `limit ${limit}`);
  }
});

test('a page size that is not a positive integer is refused before any SQL is written', async (t) => {
  for (const limit of [0, -1, 2.5, Number.NaN])
    await t.throwsAsync(page(limit), { message: /page limit/ }, String(limit));
});

test("a statement around the page reads the page's rows once for the page and answers the same pages", async (t) => {
  const around = (limit: number, cursor?: string) =>
    keysetRows<{ id: string; label: string }>(preparedReads(sequelize), pageRequest({ limit, cursor }), {
      select: 'x.id, x.rank',
      from: 'keyset_probe x',
      where: new Conditions().add('x.team = ?', 'blue'),
      key: 'x.rank',
      desc: true,
      around: (rows) => `SELECT p.id, p.id || '/' || c.count AS label FROM ${rows} p
        CROSS JOIN (SELECT count(*) FROM ${rows}) c ORDER BY p.rank DESC, p.id DESC`,
    });
  let cursor: string | undefined;
  for (let i = 0; i < 3; i++) {
    const [plain, wrapped] = [await page(7, cursor), await around(7, cursor)];
    t.deepEqual(
      wrapped.items.map((item) => item.id),
      plain.items.map((item) => item.id),
    );
    t.deepEqual(wrapped.meta, plain.meta);
    t.true(
      wrapped.items.every((item) => item.label === `${item.id}/8`),
      'the statement sees the page as read (one more row than the limit)',
    );
    cursor = plain.meta.pagination.nextCursor ?? undefined;
  }
});

import test, { type ExecutionContext } from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createDatabase, createSequelize, dropDatabase } from '../../server/platform/db/database.ts';
import { createMigrator, migrate } from '../../server/platform/db/migrations.ts';
import { newId } from '../../server/platform/ids.ts';

// migrate() (server/platform/db/migrations.ts) against a fresh database per test, with migration files
// of the test's own: each creates one table.

const schema = 'svc';
const lockKey = `capctl:migrate:${schema}`;

async function setUp(t: ExecutionContext, files: string[]) {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_DATABASE_URL is not set: run the tests with `npm test`');
  const name = `test_${newId().toLowerCase()}`;
  const url = await createDatabase(adminUrl, name);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
  const write = (file: string) =>
    fs.writeFileSync(
      path.join(dir, `${file}.js`),
      `exports.up = async ({ context }) => context.sequelize.query('CREATE TABLE "${schema}"."${file.replace(/^\d+_/, '')}" (id int)');\n` +
        `exports.down = async () => undefined;\n`,
    );
  files.forEach(write);
  const sequelize = createSequelize(url, schema, 2);
  const migrator = createMigrator(sequelize, schema, dir);
  const holder = new pg.Client({ connectionString: url });
  await holder.connect();
  t.teardown(async () => {
    await holder.end();
    await sequelize.close();
    await dropDatabase(adminUrl, name);
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { write, run: () => migrate(sequelize, schema, migrator), holder };
}

/** What `promise` settled to within `ms`, or 'still waiting'. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | 'still waiting'> {
  return Promise.race([
    promise,
    new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), ms)),
  ]);
}

test('pending migrations are applied in order, once: a second run applies nothing', async (t) => {
  const db = await setUp(t, ['0001_first', '0002_second']);
  t.deepEqual(await db.run(), ['0001_first', '0002_second']);
  t.deepEqual(await db.run(), []);
  db.write('0003_third');
  t.deepEqual(await db.run(), ['0003_third']);
});

test('a start with nothing pending does not wait for the migration lock another start holds', async (t) => {
  const db = await setUp(t, ['0001_first']);
  await db.run();
  await db.holder.query('SELECT pg_advisory_lock(hashtext($1))', [lockKey]);
  t.deepEqual(await within(db.run(), 5_000), []);
});

test('a start with something pending waits for the migration lock, then applies what is still pending', async (t) => {
  const db = await setUp(t, ['0001_first']);
  await db.holder.query('SELECT pg_advisory_lock(hashtext($1))', [lockKey]);
  const run = db.run();
  t.is(await within(run, 1_000), 'still waiting');
  await db.holder.query('SELECT pg_advisory_unlock(hashtext($1))', [lockKey]);
  t.deepEqual(await within(run, 5_000), ['0001_first']);
});

import test, { type ExecutionContext } from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Sequelize } from 'sequelize';
import { createDatabase, createSequelize, dropDatabase } from '../../server/platform/db/database.ts';
import { createMigrator, migrate } from '../../server/platform/db/migrations.ts';
import { newId } from '../../server/platform/ids.ts';
import { serverCodePath } from '../../server/platform/paths.ts';

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

/** A schema's shape: its relations, columns and index definitions (the migration history left out). */
async function shapeOf(sequelize: Sequelize, schema: string): Promise<string[]> {
  const [rows] = (await sequelize.query(
    `SELECT c.relkind::text || ' ' || c.relname AS line FROM pg_class c
       WHERE c.relnamespace = $1::regnamespace AND c.relname NOT LIKE 'schema_migrations%'
     UNION ALL
     SELECT 'column ' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '')
       FROM information_schema.columns WHERE table_schema = $1::text AND table_name <> 'schema_migrations'
     UNION ALL
     SELECT indexdef FROM pg_indexes WHERE schemaname = $1::text AND tablename <> 'schema_migrations'
     UNION ALL
     SELECT 'constraint ' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
       WHERE connamespace = $1::regnamespace AND conname NOT LIKE 'schema_migrations%'
     ORDER BY 1`,
    { bind: [schema] },
  )) as [Array<{ line: string }>, unknown];
  return rows.map((r) => r.line);
}

test("each service migration's down undoes exactly its up: stepping back, the schema is as it was before that migration", async (t) => {
  const adminUrl = process.env.TEST_DATABASE_URL!;
  const name = `test_${newId().toLowerCase()}`;
  const url = await createDatabase(adminUrl, name);
  t.teardown(() => dropDatabase(adminUrl, name));
  const { Umzug, SequelizeStorage } = await import('umzug');
  for (const [schema, folder] of [
    ['ol', 'orchestrator'],
    ['cap', 'cap'],
    ['lms', 'lms'],
  ] as const) {
    const sequelize = createSequelize(url, schema, 2);
    t.teardown(() => sequelize.close());
    await sequelize.query(`CREATE SCHEMA "${schema}"`);
    // Where the code under test finds them: the sources, or the build's .js when the tests run compiled.
    const dir = serverCodePath(folder, 'migrations');
    const context = sequelize.getQueryInterface();
    const umzug = new Umzug({
      migrations: fs
        .readdirSync(dir)
        .filter((file) => /\.(ts|js)$/.test(file) && !file.endsWith('.d.ts'))
        .sort()
        .map((file) => ({
          name: path.basename(file, path.extname(file)),
          up: async () => (await import(path.join(dir, file))).up({ context }),
          down: async () => (await import(path.join(dir, file))).down({ context }),
        })),
      context,
      storage: new SequelizeStorage({ sequelize, schema, tableName: 'schema_migrations' }),
      logger: undefined,
    });
    // The shape before each migration, going up one at a time.
    const before: Array<{ migration: string; shape: string[] }> = [];
    for (const pending of await umzug.pending()) {
      before.push({ migration: pending.name, shape: await shapeOf(sequelize, schema) });
      await umzug.up({ step: 1 });
    }
    for (const { migration, shape } of before.reverse()) {
      await umzug.down({ step: 1 });
      t.deepEqual(await shapeOf(sequelize, schema), shape, `${schema}: the down of ${migration}`);
    }
    t.is((await umzug.up()).length, before.length, `${schema}: every migration applies again`);
  }
});

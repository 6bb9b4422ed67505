import fs from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import type { QueryInterface, Sequelize } from 'sequelize';

/** What a migration file exports. `context` is the service's query interface. */
export interface Migration {
  up(params: { context: QueryInterface }): Promise<void>;
  down(params: { context: QueryInterface }): Promise<void>;
}

/**
 * The migrations of one service: files `<dir>/NNNN_name.ts` (`.js` in the compiled build; a
 * migration's name leaves the extension out, so both record the same history), state in
 * `<schema>.schema_migrations` (umzug's table). What is pending is read with one query; umzug itself
 * is loaded only when there is something to apply, which is seldom, and costs start-up time.
 */
export interface Migrator {
  /** Names of the migration files not applied yet, in order. */
  pending(): Promise<string[]>;
  /** Applies the pending migrations in order; answers their names. `beforeEach` may stop the run by throwing. */
  up(beforeEach?: () => void): Promise<string[]>;
}

export function createMigrator(sequelize: Sequelize, schema: string, dir: string): Migrator {
  const files = () =>
    fs
      .readdirSync(dir)
      .filter((f) => /\.(ts|js)$/.test(f) && !f.endsWith('.d.ts'))
      .sort()
      .map((f) => ({ name: path.basename(f, path.extname(f)), file: path.join(dir, f) }));

  async function applied(): Promise<Set<string>> {
    const [[table]] = (await sequelize.query(`SELECT to_regclass('"${schema}".schema_migrations') AS name`)) as [
      Array<{ name: string | null }>,
      unknown,
    ];
    if (!table?.name) return new Set();
    const [rows] = (await sequelize.query(`SELECT name FROM "${schema}".schema_migrations`)) as [
      Array<{ name: string }>,
      unknown,
    ];
    return new Set(rows.map((r) => r.name));
  }

  return {
    async pending() {
      const done = await applied();
      return files()
        .filter((f) => !done.has(f.name))
        .map((f) => f.name);
    },
    async up(beforeEach) {
      const { Umzug, SequelizeStorage } = await import('umzug');
      const context = sequelize.getQueryInterface();
      const umzug = new Umzug({
        migrations: files().map(({ name, file }) => ({
          name,
          up: async () => {
            beforeEach?.();
            return ((await import(file)) as Migration).up({ context });
          },
          down: async () => ((await import(file)) as Migration).down({ context }),
        })),
        context,
        storage: new SequelizeStorage({ sequelize, schema, tableName: 'schema_migrations' }),
        logger: undefined,
      });
      return (await umzug.up()).map((m) => m.name);
    },
  };
}

/**
 * Creates the schema and applies pending migrations. A session advisory lock serialises concurrent
 * starts against one database, so two processes never run the same migration twice. Most starts
 * find nothing pending: that is read first, without the lock (a migration counts as applied once its
 * row is committed, after the migration itself), and only a start with something to apply takes the
 * lock and reads again under it. The lock lives as long as its connection: should the database end
 * that connection, no further migration starts (another process may hold the lock by then), and the
 * start fails.
 */
export async function migrate(sequelize: Sequelize, schema: string, migrator: Migrator): Promise<string[]> {
  if ((await migrator.pending()).length === 0) return [];
  const lockKey = `capctl:migrate:${schema}`;
  const connection = await sequelize.connectionManager.getConnection({ type: 'write' });
  const client = connection as unknown as pg.Client;
  let lost: Error | undefined;
  const onError = (err: Error) => void (lost ??= err);
  client.on('error', onError); // Sequelize's own listener drops the connection from its pool
  const holdingLock = () => {
    if (lost)
      throw new Error(
        `the connection holding the migration lock of ${schema} was lost (${lost.message}); no further migration was started`,
        { cause: lost },
      );
  };
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [lockKey]);
    await sequelize.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    if ((await migrator.pending()).length === 0) return [];
    return await migrator.up(holdingLock);
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [lockKey]).catch(() => undefined);
    client.off('error', onError);
    sequelize.connectionManager.releaseConnection(connection);
  }
}

/** True when every migration file of the service has been applied. */
export async function migrationsApplied(migrator: Migrator): Promise<boolean> {
  try {
    return (await migrator.pending()).length === 0;
  } catch {
    return false;
  }
}

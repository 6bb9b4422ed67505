import { Umzug, SequelizeStorage } from 'umzug';
import type { QueryInterface, Sequelize } from 'sequelize';
import path from 'node:path';

/** What a migration file exports. `context` is the service's query interface. */
export interface Migration {
  up(params: { context: QueryInterface }): Promise<void>;
  down(params: { context: QueryInterface }): Promise<void>;
}

export type Migrator = Umzug<QueryInterface>;

/** The migrator of one service: files `<dir>/NNNN_name.ts`, state in `<schema>.schema_migrations`. */
export function createMigrator(sequelize: Sequelize, schema: string, dir: string): Migrator {
  return new Umzug({
    migrations: {
      glob: ['*.ts', { cwd: dir, ignore: ['*.d.ts'] }],
      resolve: ({ name, path: file, context }) => ({
        name: path.basename(name, '.ts'),
        up: async () => ((await import(file!)) as Migration).up({ context }),
        down: async () => ((await import(file!)) as Migration).down({ context }),
      }),
    },
    context: sequelize.getQueryInterface(),
    storage: new SequelizeStorage({ sequelize, schema, tableName: 'schema_migrations' }),
    logger: undefined,
  });
}

/**
 * Creates the schema and applies pending migrations. A session advisory lock serialises concurrent
 * starts against one database, so two processes never run the same migration twice.
 */
export async function migrate(sequelize: Sequelize, schema: string, migrator: Migrator): Promise<string[]> {
  const lockKey = `capctl:migrate:${schema}`;
  const connection = await sequelize.connectionManager.getConnection({ type: 'write' });
  const client = connection as unknown as { query(sql: string, values?: unknown[]): Promise<unknown> };
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [lockKey]);
    await sequelize.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    const applied = await migrator.up();
    return applied.map((m) => m.name);
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [lockKey]).catch(() => undefined);
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

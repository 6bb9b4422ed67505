import { Sequelize } from 'sequelize';
import pg from 'pg';
import { requestScope } from '../request-scope.ts';
import { reportSessions } from './sessions.ts';

// BIGINT (money in minor units) stays a string end to end; never a float.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => value);

/** A Sequelize instance whose models live in one service's schema. */
export function createSequelize(url: string, schema: string, poolMax = 10): Sequelize {
  const sequelize = new Sequelize(url, {
    dialect: 'postgres',
    // Not a log: each statement counts towards its request's total, which the access log reports.
    logging: countQuery,
    pool: { max: poolMax, min: 0, idle: 10_000 },
    define: { schema, underscored: true, timestamps: true },
    // Sequelize turns NOTICEs off by default; triggers use them to tell the session what it changed (sessions.ts).
    dialectOptions: { clientMinMessages: 'notice' },
  });
  reportSessions(sequelize);
  return sequelize;
}

function countQuery(): void {
  const scope = requestScope();
  if (scope) scope.queries += 1;
}

/** True when the database answers a trivial query. */
export async function isReachable(sequelize: Sequelize): Promise<boolean> {
  try {
    await sequelize.query('SELECT 1');
    return true;
  } catch {
    return false;
  }
}

/** Creates (or drops) a database on the server of `adminUrl`: used for isolated test databases. */
export async function createDatabase(adminUrl: string, name: string): Promise<string> {
  await adminQuery(adminUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  await adminQuery(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}

async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

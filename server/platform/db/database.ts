import { Sequelize, type Options } from 'sequelize';
import pg from 'pg';
import { requestScope } from '../request-scope.ts';
import { reportSessions } from './sessions.ts';
import type { DatabaseWatch } from './watch.ts';

// BIGINT (money in minor units) stays a string end to end; never a float.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => value);

/**
 * The oldest PostgreSQL the platform runs on (pg-boss 10 needs 13). Sequelize is told it rather than
 * asking: it asks by opening and closing a connection of its own before the first query, which every
 * start paid once per service, and it only uses the answer to tell whether features of 9.x exist.
 */
const minimumServerVersion = '13.0.0';

/**
 * node-postgres's Client with an error listener from the moment it exists, reporting to `report`. A
 * connection the server ends emits 'error' on its client, and an 'error' nobody listens to ends the
 * process. Pools listen only while a client is idle in them, and Sequelize only once a connection is
 * open, which leaves gaps: a checked-out client, or a termination that arrives in the same packet as
 * the end of the handshake. This listener closes them; the owner still learns that the client broke
 * (its statements fail, and the pools drop a client that is no longer queryable).
 */
export function guardedClient(report: (err: Error) => void = () => undefined): typeof pg.Client {
  return class GuardedClient extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      super(config);
      this.on('error', report);
    }
  };
}

/**
 * A Sequelize instance whose models live in one service's schema. Its connections' errors are
 * reported to `watch`, so an outage is noticed even while they are idle.
 */
export function createSequelize(url: string, schema: string, poolMax = 10, watch?: DatabaseWatch): Sequelize {
  const options: Options & { databaseVersion: string } = {
    dialect: 'postgres',
    dialectModule: { Client: guardedClient((err) => watch?.report(err)), types: pg.types },
    databaseVersion: minimumServerVersion, // a documented option the typings leave out
    // Not a log: each statement counts towards its request's total, which the access log reports.
    logging: countQuery,
    pool: { max: poolMax, min: 0, idle: 10_000 },
    define: { schema, underscored: true, timestamps: true },
    // Sequelize turns NOTICEs off by default; triggers use them to tell the session what it changed (sessions.ts).
    dialectOptions: { clientMinMessages: 'notice' },
  };
  const sequelize = new Sequelize(url, options);
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

/**
 * Creates (or drops) a database on the server of `adminUrl`: used for isolated test databases. With
 * `template`, a copy of that database (which nobody may be connected to meanwhile).
 */
export async function createDatabase(adminUrl: string, name: string, template?: string): Promise<string> {
  await adminQuery(adminUrl, `CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ''}`);
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

import type { Sequelize, Transaction } from 'sequelize';
import { requestScope } from '../request-scope.ts';
import { statementName } from './keyset.ts';

/** Runs one named prepared statement and answers its rows. */
export type PreparedRead = <T = Record<string, unknown>>(name: string, text: string, values: unknown[]) => Promise<T[]>;

interface PgClient {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * Reads on the path of nearly every request (the caller, `GET /me`) as named prepared statements
 * on a connection of the service's own pool. Sequelize builds each query and each model instance
 * anew, which costs about four times the CPU of the statement itself (measured: 520 µs against
 * 130 µs for a read of one user by key); everything else goes through the models. Write the SQL
 * with the schema named (`cap.users`) and the columns aliased to the attribute names.
 */
export function preparedReads(sequelize: Sequelize): PreparedRead {
  const pool = sequelize.connectionManager;
  return async <T>(name: string, text: string, values: unknown[]) => {
    const scope = requestScope();
    if (scope) scope.queries += 1;
    const client = (await pool.getConnection({ type: 'read' })) as unknown as PgClient;
    try {
      return (await client.query({ name, text, values })).rows as T[];
    } finally {
      pool.releaseConnection(client as never);
    }
  };
}

/**
 * Runs one prepared statement, named after its text, in `transaction` (on its connection) and answers
 * its rows: for the writes every event delivery or many requests make, where building the statement
 * through Sequelize costs more CPU than running it. Values go to node-postgres as they are: pass JSON
 * columns as `JSON.stringify`'d text (node-postgres would send an array as a PostgreSQL array).
 */
export async function preparedIn<T = Record<string, unknown>>(
  transaction: Transaction,
  text: string,
  values: unknown[],
): Promise<T[]> {
  const scope = requestScope();
  if (scope) scope.queries += 1;
  const { connection, sequelize } = transaction as unknown as { connection: PgClient; sequelize: Sequelize };
  try {
    return (await connection.query({ name: statementName(text), text, values })).rows as T[];
  } catch (err) {
    throw sequelizeError(sequelize, connection, err);
  }
}

/** Runs one prepared statement, named after its text: in `transaction` when given, else on its own connection. */
export type Prepared = <T = Record<string, unknown>>(
  text: string,
  values: unknown[],
  transaction?: Transaction,
) => Promise<T[]>;

/**
 * Prepared statements on `sequelize`'s pool for writers whose transaction is optional; errors as
 * `sequelize.query` throws them either way (see `preparedIn`).
 */
export function prepared(sequelize: Sequelize): Prepared {
  const pool = sequelize.connectionManager;
  return async <T>(text: string, values: unknown[], transaction?: Transaction) => {
    if (transaction) return preparedIn<T>(transaction, text, values);
    const scope = requestScope();
    if (scope) scope.queries += 1;
    const client = (await pool.getConnection({ type: 'write' })) as unknown as PgClient;
    try {
      return (await client.query({ name: statementName(text), text, values })).rows as T[];
    } catch (err) {
      throw sequelizeError(sequelize, client, err);
    } finally {
      pool.releaseConnection(client as never);
    }
  };
}

/**
 * A node-postgres error as `sequelize.query` throws it (a UniqueConstraintError for 23505, ...), so
 * callers catch the same errors whichever way a statement ran; a connection reset is marked invalid
 * for the pool, as Sequelize does.
 */
function sequelizeError(sequelize: Sequelize, connection: PgClient, err: unknown): Error {
  const { code, message } = (err ?? {}) as { code?: string; message?: string };
  if (code === 'ECONNRESET' || message === 'Query read timeout')
    (connection as unknown as { _invalid: boolean })._invalid = true;
  const { Query } = (sequelize as unknown as { dialect: { Query: new (...args: unknown[]) => QueryErrors } }).dialect;
  return new Query(connection, sequelize, {}).formatError(err, new Error().stack);
}

interface QueryErrors {
  formatError(err: unknown, stack?: string): Error;
}

import { DataTypes, type Model, type ModelStatic, type Sequelize, type Transaction } from 'sequelize';
import { requestScope } from '../request-scope.ts';
import { attributesOf, statementName } from './keyset.ts';

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
  return <T>(name: string, text: string, values: unknown[]) =>
    pooled(sequelize, 'read', (client) => run<T>(sequelize, client, name, text, values));
}

/**
 * One named prepared statement on `client`, counted towards its request's queries; a failure is
 * thrown as `sequelize.query` throws it (see `sequelizeError`).
 */
async function run<T>(sequelize: Sequelize, client: PgClient, name: string, text: string, values: unknown[]) {
  const scope = requestScope();
  if (scope) scope.queries += 1;
  try {
    return (await client.query({ name, text, values })).rows as T[];
  } catch (err) {
    throw sequelizeError(sequelize, client, err);
  }
}

/** `use` on a connection of `sequelize`'s pool, given back afterwards. */
async function pooled<T>(sequelize: Sequelize, type: 'read' | 'write', use: (client: PgClient) => Promise<T>) {
  const pool = sequelize.connectionManager;
  const client = (await pool.getConnection({ type })) as unknown as PgClient;
  try {
    return await use(client);
  } finally {
    pool.releaseConnection(client as never);
  }
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
  const { connection, sequelize } = transaction as unknown as { connection: PgClient; sequelize: Sequelize };
  return run<T>(sequelize, connection, statementName(text), text, values);
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
  return <T>(text: string, values: unknown[], transaction?: Transaction) =>
    transaction
      ? preparedIn<T>(transaction, text, values)
      : pooled(sequelize, 'write', (client) => run<T>(sequelize, client, statementName(text), text, values));
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

/**
 * What `instance.save({ transaction })` writes for an instance read from its table (its changed
 * attributes, and a new `updatedAt` when the model keeps one; nothing when none changed), as one
 * prepared UPDATE by primary key; the instance is left as save leaves it. No hooks or validation run:
 * for models that define none. JSON attributes are sent as JSON text (null as SQL NULL, as Sequelize writes it).
 */
export async function savePrepared<M extends Model>(instance: M, transaction: Transaction): Promise<M> {
  const changed = instance.changed();
  if (!changed) return instance;
  const model = instance.constructor as ModelStatic<M>;
  withoutHooksOrValidators(model);
  const attributes = model.getAttributes() as Record<string, { field?: string; type: unknown }>;
  const key = model.primaryKeyAttribute;
  const updatedAtKey = (model as unknown as { _timestampAttributes: { updatedAt?: string } })._timestampAttributes
    .updatedAt;
  const values: Record<string, unknown> = {};
  for (const name of changed) values[name] = instance.get(name);
  if (updatedAtKey) values[updatedAtKey] = new Date();
  const names = Object.keys(values);
  await preparedIn(
    transaction,
    `UPDATE ${tableOf(model)} SET ${names.map((name, i) => `"${attributes[name]!.field ?? name}" = $${i + 2}`).join(', ')} WHERE "${attributes[key]!.field ?? key}" = $1`,
    [
      instance.get(key),
      ...names.map((name) =>
        attributes[name]!.type instanceof DataTypes.JSON && values[name] !== null
          ? JSON.stringify(values[name])
          : values[name],
      ),
    ],
  );
  if (updatedAtKey) instance.set({ [updatedAtKey]: values[updatedAtKey] } as never, { raw: true });
  for (const name of changed) instance.changed(name as keyof M, false);
  return instance;
}

const plainModels = new WeakSet<object>();
/** Refuses a model whose saves would run hooks or validators (savePrepared skips both); checked once a model. */
function withoutHooksOrValidators(model: ModelStatic<Model>): void {
  if (plainModels.has(model)) return;
  const validated =
    Object.keys(model.options.validate ?? {}).length > 0 ||
    Object.values(model.getAttributes()).some((attribute) => Object.keys(attribute.validate ?? {}).length > 0);
  const hooked = (['beforeValidate', 'beforeSave', 'beforeUpdate', 'afterSave', 'afterUpdate'] as const).some((hook) =>
    model.hasHooks(hook),
  );
  if (validated || hooked) throw new Error(`${model.name} has hooks or validators: save it with instance.save()`);
  plainModels.add(model);
}

/**
 * The model's instances whose rows `where` selects (SQL on its table as `x`, values bound as `$1`...),
 * read by one prepared statement, every column under its attribute name, and built as Sequelize builds
 * what it reads; `then` follows the WHERE clause (ORDER BY, LIMIT, FOR UPDATE). In `transaction` when
 * given.
 */
export async function instancesOf<M extends Model>(
  model: ModelStatic<M>,
  where: string,
  values: unknown[],
  options: { transaction?: Transaction; then?: string } = {},
): Promise<M[]> {
  const rows = await prepared(model.sequelize!)(
    `SELECT ${attributesOf(model as never, 'x')} FROM ${tableOf(model)} x WHERE ${where}${options.then ? ` ${options.then}` : ''}`,
    values,
    options.transaction,
  );
  return model.bulkBuild(rows as never[], { raw: true, isNewRecord: false });
}

/** The model's table, schema-qualified and quoted. */
function tableOf(model: ModelStatic<Model>): string {
  const table = model.getTableName() as unknown as string | { tableName: string; schema: string };
  return typeof table === 'string' ? `"${table}"` : `"${table.schema}"."${table.tableName}"`;
}

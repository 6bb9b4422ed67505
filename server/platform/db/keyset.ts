import { createHash } from 'node:crypto';
import { DataTypes, type Model, type ModelStatic } from 'sequelize';
import { validationFailed } from '../http/errors.ts';
import { pageOf, type PageMeta, type PageRequest } from '../http/pagination.ts';
import type { PreparedRead } from './prepared.ts';

/** The conditions of a WHERE clause and their bind values, numbered in the order they are added. */
export class Conditions {
  readonly clauses: string[] = [];
  readonly values: unknown[] = [];

  /** Adds a condition; every `?` in it stands for `value` (bound once). Without a value, the clause as written. */
  add(clause: string, ...value: [unknown?]): this {
    this.clauses.push(value.length ? clause.replaceAll('?', this.bind(value[0])) : clause);
    return this;
  }

  /** Binds a value and answers its placeholder (`$3`). */
  bind(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }

  /** A copy, to add to without changing this one. */
  copy(): Conditions {
    const copy = new Conditions();
    copy.clauses.push(...this.clauses);
    copy.values.push(...this.values);
    return copy;
  }

  /** The conditions joined with AND (TRUE without any). */
  get sql(): string {
    return this.clauses.length ? this.clauses.join(' AND ') : 'TRUE';
  }
}

const statementNames = new Map<string, string>();
/** A prepared statement's name from its text (a list has a few shapes, each named once). */
export function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) statementNames.set(text, (name = `keyset.${createHash('sha1').update(text).digest('base64url')}`));
  return name;
}

export interface KeysetQuery {
  /** The columns to read, e.g. `x.id` or `x.id, x.email, x.created_at AS "createdAt"`. */
  select: string;
  /** FROM and joins; `alias` (default `x`) names the table whose `id` is paged. */
  from: string;
  where: Conditions;
  /** The sort expression; ties go by id, in the same direction. */
  key: string;
  desc: boolean;
  alias?: string;
  /**
   * A statement over the page's rows, named `page` (a WITH of the keyset SELECT, its columns those of
   * `select`), answering them in the page's order: what is read once for the whole page instead of once
   * a row (e.g. cards of people who appear in many rows).
   */
  around?: (page: string) => string;
}

/**
 * One keyset page of rows (`limit + 1` read to know whether more follow) for a page request (see
 * `pageRequest`). The cursor is the last id sent; a cursor that is not a row of the same filtered set
 * is a 422. Statements are prepared, named after their text: a list's few shapes each cost one parse
 * per connection.
 */
export async function keysetRows<T extends { id: string }>(
  read: PreparedRead,
  page: PageRequest,
  sql: KeysetQuery,
): Promise<{ items: T[]; meta: PageMeta }> {
  // The limit is written into the statement (below), so it is checked before any statement runs.
  if (!Number.isSafeInteger(page.limit) || page.limit < 1)
    throw new Error(`a page limit must be a positive integer, not ${page.limit}`);
  const x = sql.alias ?? 'x';
  const where = sql.where.copy();
  const run = <R>(text: string, values: unknown[]) => read<R>(statementName(text), text, values);
  if (page.cursor) {
    const cursor = where.bind(page.cursor);
    const [last] = await run(`SELECT 1 FROM ${sql.from} WHERE ${where.sql} AND ${x}.id = ${cursor}`, where.values);
    if (!last) throw validationFailed([{ field: 'query.cursor', issue: 'is not a cursor this API issued' }]);
    where.add(
      `(${sql.key}, ${x}.id) ${sql.desc ? '<' : '>'} (SELECT ${sql.key}, ${x}.id FROM ${sql.from} WHERE ${x}.id = ${cursor})`,
    );
  }
  const direction = sql.desc ? 'DESC' : 'ASC';
  // The limit is written into the statement rather than bound. Bound, PostgreSQL's generic plan for
  // the statement assumes a tenth of the rows, always costs more than a plan made for the values, and
  // so every execution was planned anew (about a third of the database's time on a page of staff).
  // Written in, the generic plan is the custom one and is kept after five executions; each page size
  // a client uses is one more prepared statement.
  const text = `SELECT ${sql.select} FROM ${sql.from} WHERE ${where.sql} ORDER BY ${sql.key} ${direction}, ${x}.id ${direction} LIMIT ${page.limit + 1}`;
  const rows = await run<T>(sql.around ? `WITH page AS (${text}) ${sql.around('page')}` : text, where.values);
  return pageOf(rows, page.limit);
}

const attributeLists = new WeakMap<ModelStatic<Model>, (alias: string) => string>();
/** The model's columns as its attribute names (`x.user_id AS "userId"`), as Sequelize's own reads name them. */
export function attributesOf(model: ModelStatic<Model>, alias: string): string {
  let list = attributeLists.get(model);
  if (!list) {
    const columns = Object.entries(model.getAttributes())
      .filter(([, attribute]) => !(attribute.type instanceof DataTypes.VIRTUAL))
      .map(([name, attribute]) => [attribute.field ?? name, name] as const);
    list = (x) => columns.map(([column, name]) => `${x}."${column}" AS "${name}"`).join(', ');
    attributeLists.set(model, list);
  }
  return list(alias);
}

/**
 * A keyset page (keysetRows) of model instances, for lists whose views take instances: the page's
 * rows are read by the prepared statement (`from` names the model's table as `alias`), every column
 * under its attribute name, and built into instances as Sequelize builds what it reads (one statement;
 * a second read by id through the model cost more than the page itself).
 */
export async function keysetInstances<M extends Model & { id: string }>(
  read: PreparedRead,
  page: PageRequest,
  model: ModelStatic<M>,
  sql: Omit<KeysetQuery, 'select'>,
): Promise<{ items: M[]; meta: PageMeta }> {
  const select = attributesOf(model as unknown as ModelStatic<Model>, sql.alias ?? 'x');
  const { items, meta } = await keysetRows<{ id: string }>(read, page, { ...sql, select });
  return { items: model.bulkBuild(items as never[], { raw: true, isNewRecord: false }), meta };
}

/**
 * Lifecycles as data (DESIGN §10). A lifecycle is a table of moves: each goes from some statuses to one,
 * may be made by some movers, must pass some named guards, and publishes some events. `checkMove` is the
 * one function that says whether a move may happen (or why not: no such move, the wrong mover, a guard
 * that fails); `lifecycleWriter` is the one writer of a status: in the caller's transaction it writes
 * the status (with whatever else the move changes), records the history row where the lifecycle keeps
 * one, and publishes the move's events through the service's outbox. Nothing else writes a status.
 *
 * A subject is created by a move from `null` ("nothing yet"), so a subject's first status is in the
 * table too. With `idempotent`, an action on a subject already in the status it leads to changes
 * nothing (no status write, no history, no event) instead of being refused; its guards still apply.
 */
import type { Model, ModelStatic, Transaction } from 'sequelize';
import { preparedIn } from './db/prepared.ts';
import type { EventType, ServiceEvents } from './events/types.ts';
import type { FieldDetail } from './http/errors.ts';

export interface Move {
  /** The statuses the move starts from; `null` is "nothing yet": the move creates its subject. */
  readonly from: readonly (string | null)[];
  readonly to: string;
  /** Who may make the move. */
  readonly by: readonly string[];
  /** Checks (the lifecycle's `guards`) that must hold. */
  readonly guards?: readonly string[];
  /** What the move publishes, in the transaction of the change. */
  readonly emits?: EventType | readonly EventType[] | null;
}

/** Why a guard does not hold (its details go into the refusal, e.g. each problem of a course that cannot be published). */
export interface GuardFailure {
  reason: string;
  details?: FieldDetail[];
}

/** A guard: undefined when it holds. It reads the facts the caller gives the move (load them before, when they need the database). */
export type Guard<F = any> = (facts: F) => GuardFailure | undefined;

export interface Lifecycle {
  /** What moves, for messages: `payment`, `enrollment`. */
  readonly subject: string;
  readonly statuses: readonly string[];
  readonly movers: readonly string[];
  /** The moves by action; an action that leads elsewhere from different statuses lists one move per case. */
  readonly moves: { readonly [action: string]: Move | readonly Move[] };
  readonly guards?: { readonly [name: string]: Guard };
  /** An action on a subject already in the status it leads to changes nothing, instead of being refused. */
  readonly idempotent?: boolean;
}

export type StatusOf<L extends Lifecycle> = L['statuses'][number];
export type ActionOf<L extends Lifecycle> = keyof L['moves'] & string;
export type MoverOf<L extends Lifecycle> = L['movers'][number];
export type GuardOf<L extends Lifecycle> = keyof NonNullable<L['guards']> & string;
export type FactsOf<L extends Lifecycle> = L['guards'] extends { readonly [name: string]: (facts: infer F) => unknown }
  ? F
  : undefined;

/**
 * A lifecycle table, checked when its module loads: every status, mover and guard a move names must be
 * declared, and every guard implemented. Answers the table itself, with its literal types.
 */
export function defineLifecycle<const L extends Lifecycle>(table: L): L {
  const problems: string[] = [];
  for (const [action, move] of Object.entries(table.moves).flatMap(([action, moves]) =>
    movesOf(moves).map((move) => [action, move] as const),
  )) {
    for (const status of [...move.from, move.to])
      if (status !== null && !table.statuses.includes(status))
        problems.push(`${action} names the unknown status ${status}`);
    for (const mover of move.by)
      if (!table.movers.includes(mover)) problems.push(`${action} names the unknown mover ${mover}`);
    for (const guard of move.guards ?? [])
      if (!table.guards?.[guard]) problems.push(`${action} names the guard ${guard}, which has no check`);
  }
  if (problems.length) throw new Error(`the ${table.subject} lifecycle is not consistent: ${problems.join('; ')}`);
  return table;
}

const movesOf = (moves: Move | readonly Move[]): readonly Move[] =>
  'from' in moves ? [moves as Move] : (moves as readonly Move[]);

/** The events a move publishes, as a list. */
export const eventsOf = (move: Move): readonly EventType[] =>
  move.emits ? (typeof move.emits === 'string' ? [move.emits] : move.emits) : [];

/** The move `action` makes from `from`, if the table has one. */
export function findMove<L extends Lifecycle>(
  lifecycle: L,
  from: StatusOf<L> | null,
  action: ActionOf<L>,
): Move | undefined {
  const moves = lifecycle.moves[action];
  return moves ? movesOf(moves).find((move) => move.from.includes(from)) : undefined;
}

/** Why a move may not happen: the table has no such move, the mover is not one it lists, or a guard fails. */
export type Refusal<G extends string = string> = { action: string; reason: string } & (
  { kind: 'no_move' } | { kind: 'wrong_mover' } | { kind: 'guard_failed'; guard: G; details?: FieldDetail[] }
);

export type Verdict<L extends Lifecycle> =
  | { ok: true; move: Move; from: StatusOf<L> | null; to: StatusOf<L>; unchanged: boolean }
  | { ok: false; refusal: Refusal<GuardOf<L>> };

/**
 * Whether `mover` may make `action` on a subject in status `from` (`null`: a new subject): the table
 * must hold the move, list the mover, and each of the move's guards must hold for `facts`.
 */
export function checkMove<L extends Lifecycle>(
  lifecycle: L,
  from: StatusOf<L> | null,
  action: ActionOf<L>,
  mover: MoverOf<L>,
  facts?: FactsOf<L>,
): Verdict<L> {
  const a = from === null ? `a new ${lifecycle.subject}` : `a ${from} ${lifecycle.subject}`;
  let move = findMove(lifecycle, from, action);
  let unchanged = false;
  if (!move && lifecycle.idempotent && from !== null) {
    const moves = lifecycle.moves[action];
    move = moves ? movesOf(moves).find((m) => m.to === from) : undefined;
    unchanged = move !== undefined;
  }
  if (!move) return { ok: false, refusal: { kind: 'no_move', action, reason: `${a} cannot ${action}` } };
  if (!move.by.includes(mover))
    return {
      ok: false,
      refusal: { kind: 'wrong_mover', action, reason: `only ${move.by.join(' or ')} may ${action} ${a}` },
    };
  for (const guard of move.guards ?? []) {
    const failure = lifecycle.guards![guard]!(facts);
    if (failure)
      return { ok: false, refusal: { kind: 'guard_failed', action, guard: guard as GuardOf<L>, ...failure } };
  }
  return { ok: true, move, from, to: move.to as StatusOf<L>, unchanged };
}

// ---- where subjects live --------------------------------------------------------------------------

/** How the writer reads a subject's status and writes subjects: `values` are attributes or columns, as the store takes them. */
export interface LifecycleStore<R> {
  statusOf(subject: R): string;
  /** Inserts a subject; with `ignoreDuplicates` a row that breaks a unique key is not inserted (and nothing is answered). */
  insert(transaction: Transaction, values: Record<string, unknown>, ignoreDuplicates: boolean): Promise<R | undefined>;
  update(transaction: Transaction, subject: R, values: Record<string, unknown>): Promise<void>;
}

/** Subjects that are instances of a Sequelize model; values are its attributes. */
export function modelStore<I extends Model>(model: ModelStatic<I>, statusAttribute = 'status'): LifecycleStore<I> {
  return {
    statusOf: (subject) => subject.get(statusAttribute) as string,
    async insert(transaction, values, ignoreDuplicates) {
      if (!ignoreDuplicates) return model.create(values as never, { transaction });
      await model.bulkCreate([values as never], { ignoreDuplicates: true, transaction });
      return undefined;
    },
    async update(transaction, subject, values) {
      subject.set(values as never);
      await subject.save({ transaction });
    },
  };
}

/**
 * Subjects read with SQL as plain rows (with `id` and the status under `statusKey`); values are columns
 * of `table` (schema-qualified), written by prepared statements (a JSON column's value as JSON text),
 * and `created_at` / `updated_at` are the database's now().
 */
export function tableStore<R extends { id: string }>(
  table: string,
  options: { statusColumn?: string; statusKey?: string } = {},
): LifecycleStore<R> {
  const statusColumn = options.statusColumn ?? 'status';
  const statusKey = options.statusKey ?? 'status';
  return {
    statusOf: (subject) => (subject as unknown as Record<string, string>)[statusKey]!,
    async insert(transaction, values, ignoreDuplicates) {
      const columns = Object.keys(values);
      await preparedIn(
        transaction,
        `INSERT INTO ${table} (${columns.join(', ')}, created_at, updated_at) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')}, now(), now())${ignoreDuplicates ? ' ON CONFLICT DO NOTHING' : ''}`,
        Object.values(values),
      );
      return undefined;
    },
    async update(transaction, subject, values) {
      const columns = Object.keys(values);
      await preparedIn(
        transaction,
        `UPDATE ${table} SET ${columns.map((column, i) => `${column} = $${i + 2}`).join(', ')}, updated_at = now() WHERE id = $1`,
        [subject.id, ...Object.values(values)],
      );
      if (statusColumn in values) (subject as unknown as Record<string, unknown>)[statusKey] = values[statusColumn];
    },
  };
}

// ---- the writer -----------------------------------------------------------------------------------

/** A move as it was applied. */
export interface Applied<L extends Lifecycle> {
  action: ActionOf<L>;
  from: StatusOf<L> | null;
  to: StatusOf<L>;
  /** False when the subject was already there (an idempotent lifecycle): nothing was written. */
  changed: boolean;
}

export interface MoveContext<L extends Lifecycle, N> {
  by: MoverOf<L>;
  /** What the move's guards read. */
  facts?: FactsOf<L>;
  /** Other values written with the status (attributes or columns, as the store takes them); not written when nothing changes. */
  changes?: Record<string, unknown>;
  /** More data for the move's events, over what `eventData` builds. */
  event?: Record<string, unknown>;
  /** What the history row records beyond the move itself (a cause, a detail). */
  note?: N;
}

export interface WriterOptions<L extends Lifecycle, R, N> {
  store: LifecycleStore<R>;
  /** The store's name of the status (default `status`). */
  statusField?: string;
  /** The service's outbox; needed when a move emits. */
  events?: Pick<ServiceEvents, 'publish'>;
  /** The data of each event a move publishes, from the subject as it is after the move. */
  eventData?: (type: EventType, subject: R, applied: Applied<L>) => Record<string, unknown>;
  /** Records the move in the lifecycle's history, in the same transaction. */
  history?: (
    transaction: Transaction,
    entry: Applied<L> & { subject: R; by: MoverOf<L>; note: N | undefined },
  ) => Promise<unknown>;
  /** The error a refused move throws: the service's documented code. Without it, a refusal is a bug (a plain Error). */
  refuse?: (refusal: Refusal<GuardOf<L>>, subject: R | undefined) => Error;
}

export interface LifecycleWriter<L extends Lifecycle, R, N> {
  lifecycle: L;
  /** Creates a subject by a move from nothing: `values` and the move's status, its history row and its events. */
  create(
    transaction: Transaction,
    action: ActionOf<L>,
    values: Record<string, unknown>,
    context: MoveContext<L, N> & { ignoreDuplicates?: boolean },
  ): Promise<R | undefined>;
  /** Applies `action` to `subject` (locked in `transaction` when others may move it at the same time). */
  move(transaction: Transaction, subject: R, action: ActionOf<L>, context: MoveContext<L, N>): Promise<Applied<L>>;
}

/** The one writer of a lifecycle's status, for one store (see the top of this file). */
export function lifecycleWriter<L extends Lifecycle, R, N = undefined>(
  lifecycle: L,
  options: WriterOptions<L, R, N>,
): LifecycleWriter<L, R, N> {
  const { store, events, eventData, history, refuse } = options;
  const statusField = options.statusField ?? 'status';
  const emitting = Object.values(lifecycle.moves)
    .flatMap(movesOf)
    .some((move) => eventsOf(move).length > 0);
  if (emitting && (!events || !eventData))
    throw new Error(`the ${lifecycle.subject} lifecycle publishes events: its writer needs events and eventData`);

  function allowed(subject: R | undefined, action: ActionOf<L>, context: MoveContext<L, N>) {
    const from = subject === undefined ? null : (store.statusOf(subject) as StatusOf<L>);
    const verdict = checkMove(lifecycle, from, action, context.by, context.facts);
    if (verdict.ok) return verdict;
    throw refuse
      ? refuse(verdict.refusal, subject)
      : new Error(`the ${lifecycle.subject} lifecycle refused ${action}: ${verdict.refusal.reason}`);
  }

  async function recorded(
    transaction: Transaction,
    subject: R,
    move: Move,
    applied: Applied<L>,
    context: MoveContext<L, N>,
  ) {
    await history?.(transaction, { ...applied, subject, by: context.by, note: context.note });
    for (const type of eventsOf(move))
      await events!.publish(transaction, type, { ...eventData!(type, subject, applied), ...context.event });
  }

  return {
    lifecycle,

    async create(transaction, action, values, context) {
      const { move, to } = allowed(undefined, action, context);
      const ignoreDuplicates = context.ignoreDuplicates ?? false;
      if (ignoreDuplicates && (history || eventsOf(move).length))
        throw new Error(`${action} records or publishes: it cannot ignore duplicates`);
      const subject = await store.insert(
        transaction,
        { ...values, ...context.changes, [statusField]: to },
        ignoreDuplicates,
      );
      const applied: Applied<L> = { action, from: null, to, changed: true };
      if (subject !== undefined) await recorded(transaction, subject, move, applied, context);
      else if (!ignoreDuplicates && (history || eventsOf(move).length))
        throw new Error(`${action} records or publishes, but its store answers no subject`);
      return subject;
    },

    async move(transaction, subject, action, context) {
      const { move, from, to, unchanged } = allowed(subject, action, context);
      const applied: Applied<L> = { action, from, to, changed: !unchanged };
      if (unchanged) return applied;
      await store.update(transaction, subject, { ...context.changes, [statusField]: to });
      await recorded(transaction, subject, move, applied, context);
      return applied;
    },
  };
}

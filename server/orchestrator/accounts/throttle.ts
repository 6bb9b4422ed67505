import { Op, QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { DataTypes, type Model, type ModelStatic } from 'sequelize';
import { prepared } from '../../platform/db/prepared.ts';
import { newId } from '../../platform/ids.ts';

/**
 * How many failures a subject may have before it must wait, and how long. `free` failures cost
 * nothing within `windowMs`; after them, each further try waits `firstWaitMs` after the previous
 * failure, doubled for every failure beyond (capped at `maxWaitMs`). A subject whose newest failure is
 * older than `windowMs` starts afresh.
 */
export interface Limit {
  free: number;
  windowMs: number;
  firstWaitMs: number;
  maxWaitMs: number;
}

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;

/**
 * The limits, as data. Sign-in: a person mistyping gets 5 free tries, then 1, 2, 4, ... minutes,
 * never more than 15, per account and client address, so an attacker elsewhere cannot keep the owner
 * out. A client address gets 30 failures a quarter of an hour on accounts it has not signed in to
 * within `knownForMs` (guessing across accounts); a known account's mistakes count only for that
 * account and address, and its sign-ins pass while the address waits: whoever signed in before held
 * the password already, so letting them through tells a guesser nothing. One-time codes (4 digits, so
 * a guess wins with probability 1/10,000): per account and purpose, 3 free wrong codes, then 1, 2, 4,
 * ... hours after the previous one. In a week that allows 3 + 7 = 10 wrong codes
 * (1 h x (2^7 - 1) = 127 h <= 168 h < 1 h x (2^8 - 1)), across every code sent: a success chance of
 * 1 - (1 - 1/10,000)^10 < 0.1%. A client address gets 10 wrong codes an hour.
 */
export const limits = {
  loginPerAccountAndAddress: { free: 5, windowMs: 15 * minute, firstWaitMs: minute, maxWaitMs: 15 * minute },
  loginPerAddress: { free: 30, windowMs: 15 * minute, firstWaitMs: 15 * minute, maxWaitMs: 15 * minute },
  codePerAccount: { free: 3, windowMs: 7 * day, firstWaitMs: hour, maxWaitMs: 7 * day },
  codePerAddress: { free: 10, windowMs: hour, firstWaitMs: hour, maxWaitMs: hour },
} as const satisfies Record<string, Limit>;

/** How long a sign-in makes an account known at the client address it came from. */
export const knownForMs = 30 * day;

/** When the next try is allowed after these failure times (newest first), or 0 when it is allowed now. */
export function waitUntil(failures: Date[], limit: Limit, now = Date.now()): number {
  const recent = failures.filter((at) => now - at.getTime() < limit.windowMs);
  if (recent.length < limit.free) return 0;
  const beyond = recent.length - limit.free;
  const wait = Math.min(limit.firstWaitMs * 2 ** beyond, limit.maxWaitMs);
  const next = recent[0]!.getTime() + wait;
  return next > now ? next : 0;
}

interface FailureRow extends Model {
  id: string;
  kind: string;
  subject: string;
  /** A try counted before it is checked, until the check says how it went. */
  pending: boolean;
  createdAt: Date;
}

/** A pending try older than this counts as a failure (its check never finished: a crash). */
const pendingForMs = 30_000;
/** How long a try waits for the pending tries that decide it; it looks again when one settles here, else after a growing pause. */
const decideWithinMs = 10_000;
const firstPauseMs = 25;
const longestPauseMs = 500;

interface KnownRow extends Model {
  subject: string;
  signedInAt: Date;
}

/**
 * Checks that count only for strangers: while `known` (an account at a client address) has not signed
 * in within `knownForMs`.
 */
export interface Strangers {
  known: string;
  checks: Array<[subject: string, limit: Limit]>;
}

/** A try let through: the rows written for it ahead of the check, by id. */
export interface Attempt {
  /** Seconds to wait before the next try when it was refused; 0 when it may go ahead. */
  retryAfter: number;
  ids: string[];
}

export type Throttle = ReturnType<typeof createThrottle>;

/** The failure ledger: what was tried and failed, counted against the limits above. */
export function createThrottle(sequelize: Sequelize) {
  const Failure: ModelStatic<FailureRow> = sequelize.define<FailureRow>(
    'AuthFailure',
    {
      id: { type: DataTypes.STRING(26), primaryKey: true },
      kind: { type: DataTypes.STRING(32), allowNull: false },
      subject: { type: DataTypes.STRING(400), allowNull: false },
      pending: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      createdAt: DataTypes.DATE,
    },
    { tableName: 'auth_failures', updatedAt: false },
  );
  const Known: ModelStatic<KnownRow> = sequelize.define<KnownRow>(
    'AuthKnownClient',
    {
      subject: { type: DataTypes.STRING(400), primaryKey: true },
      signedInAt: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'auth_known_clients', timestamps: false },
  );
  // The writes every sign-in and code try make, as prepared statements.
  const run = prepared(sequelize);

  /**
   * When the next try may go (ms since the epoch, 0 for now) over every (subject, limit) pair: from the
   * failures alone, and with the pending tries counted as failures of this moment. With `strangers`,
   * the same statement also reads whether its account signed in at the address within `knownForMs`;
   * its checks count only when it did not.
   */
  async function nextTry(
    kind: string,
    checks: Array<[subject: string, limit: Limit]>,
    options: { transaction?: Transaction; strangers?: Strangers } = {},
  ) {
    const { transaction, strangers } = options;
    const now = Date.now();
    const all = [...checks, ...(strangers?.checks ?? [])];
    // Every subject's recent rows, newest first and at most 200 each, in one statement (with one row
    // and no subject when there are none, so that `known` always comes back).
    const rows = await sequelize.query<{ known: boolean; subject: string | null; createdAt: Date; pending: boolean }>(
      `SELECT k.known, f.subject, f.created_at AS "createdAt", f.pending
         FROM (SELECT EXISTS (SELECT 1 FROM ol.auth_known_clients WHERE subject = $4 AND signed_in_at > $5) AS known) k
         LEFT JOIN LATERAL (
           SELECT f.subject, f.created_at, f.pending
             FROM unnest($2::text[], $3::timestamptz[]) AS c(subject, since)
             CROSS JOIN LATERAL (SELECT subject, created_at, pending FROM ol.auth_failures
                                  WHERE kind = $1 AND subject = c.subject AND created_at > c.since
                                  ORDER BY created_at DESC LIMIT 200) f
         ) f ON true`,
      {
        bind: [
          kind,
          all.map(([subject]) => subject),
          all.map(([, limit]) => new Date(now - limit.windowMs).toISOString()),
          strangers?.known ?? null,
          new Date(now - knownForMs).toISOString(),
        ],
        type: QueryTypes.SELECT,
        transaction,
      },
    );
    const known = rows[0]?.known ?? false;
    let failed = 0;
    let withPending = 0;
    for (const [subject, limit] of known ? checks : all) {
      const own = rows.filter((row) => row.subject === subject);
      const failures = own
        .filter((row) => !row.pending || now - row.createdAt.getTime() > pendingForMs)
        .map((row) => row.createdAt);
      const pending = Array.from({ length: own.length - failures.length }, () => new Date(now));
      failed = Math.max(failed, waitUntil(failures, limit, now));
      withPending = Math.max(withPending, waitUntil([...pending, ...failures], limit, now));
    }
    return { failed, withPending, known };
  }

  const seconds = (until: number) => Math.max(1, Math.ceil((until - Date.now()) / 1000));

  // Tries waiting for pending ones to settle: woken when a try of this process settles (one on another
  // replica is seen at the next look).
  const waiting = new Set<() => void>();
  const settledHere = () => {
    for (const wake of waiting) wake();
    waiting.clear();
  };
  /** Wakes the waiting tries once what settled a try is committed. */
  const settled = (transaction?: Transaction) => (transaction ? transaction.afterCommit(settledHere) : settledHere());
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      waiting.add(resolve);
      setTimeout(resolve, ms);
    });

  return {
    /** Seconds to wait before the next try, over every (subject, limit) pair; 0 when none applies. */
    async retryAfter(
      kind: string,
      checks: Array<[subject: string, limit: Limit]>,
      transaction?: Transaction,
    ): Promise<number> {
      const { failed } = await nextTry(kind, checks, { transaction });
      return failed ? seconds(failed) : 0;
    },

    /**
     * Counts a try before it is checked, so that tries at the same moment, on any replica, count each
     * other: under a lock per subject, either a subject must wait (nothing is written) or a pending row
     * is written for every subject, until `failed` or `succeeded` settles it after the check. A try
     * that only pending ones would stop waits for them to settle: simultaneous right answers all go
     * through, while wrong ones get no more checks than the limit. Its own short transaction: the locks
     * are never held across a check. The first look tells whether `strangers`' checks apply.
     */
    async reserve(
      kind: string,
      given: Array<[subject: string, limit: Limit]>,
      strangers?: Strangers,
    ): Promise<Attempt> {
      let checks = given;
      const reserve = async (transaction: Transaction): Promise<Attempt | 'undecided'> => {
        // In one order everywhere, so that two tries never wait for each other's locks: one statement,
        // taking them in the order of its sorted list.
        await sequelize.query(
          `SELECT pg_advisory_xact_lock(hashtext(k.key))
             FROM (SELECT key FROM unnest($1::text[]) WITH ORDINALITY AS u(key, n) ORDER BY n) k`,
          { bind: [checks.map(([subject]) => `throttle:${kind}:${subject}`).sort()], transaction },
        );
        const { failed, withPending } = await nextTry(kind, checks, { transaction });
        if (failed) return { retryAfter: seconds(failed), ids: [] };
        if (withPending) return 'undecided';
        const ids = checks.map(() => newId());
        await run(
          `INSERT INTO ol.auth_failures (id, kind, subject, pending, created_at)
           SELECT u.id, $2, u.subject, true, $4 FROM unnest($1::text[], $3::text[]) AS u(id, subject)`,
          [ids, kind, checks.map(([subject]) => subject), new Date()],
          transaction,
        );
        return { retryAfter: 0, ids };
      };
      const deadline = Date.now() + decideWithinMs;
      for (let wait = firstPauseMs; ; wait = Math.min(2 * wait, longestPauseMs)) {
        // A first look without the lock: a try that pending ones hold back waits without holding a connection.
        const seen = await nextTry(kind, checks, { strangers });
        if (strangers && !seen.known) checks = [...given, ...strangers.checks];
        strangers = undefined; // known or not, once
        if (seen.failed) return { retryAfter: seconds(seen.failed), ids: [] };
        if (!seen.withPending) {
          const attempt = await sequelize.transaction(reserve);
          if (attempt !== 'undecided') return attempt;
        }
        if (Date.now() > deadline) return { retryAfter: 1, ids: [] };
        await pause(wait);
      }
    },

    /** The pending try failed: it counts from now. */
    async failed(attempt: Attempt, transaction?: Transaction): Promise<void> {
      await run(
        'UPDATE ol.auth_failures SET pending = false, created_at = $2 WHERE id = ANY($1::text[])',
        [attempt.ids, new Date()],
        transaction,
      );
      settled(transaction);
    },

    /**
     * The try succeeded: its rows are taken back and `subject`'s failures forgotten (the person got it
     * right); other tries still pending settle themselves.
     */
    async succeeded(kind: string, attempt: Attempt, subject: string, transaction?: Transaction): Promise<void> {
      await run(
        'DELETE FROM ol.auth_failures WHERE id = ANY($1::text[]) OR (kind = $2 AND subject = $3 AND NOT pending)',
        [attempt.ids, kind, subject],
        transaction,
      );
      settled(transaction);
    },

    async remember(subject: string, transaction?: Transaction): Promise<void> {
      await run(
        `INSERT INTO ol.auth_known_clients (subject, signed_in_at) VALUES ($1, $2)
         ON CONFLICT (subject) DO UPDATE SET signed_in_at = EXCLUDED.signed_in_at`,
        [subject, new Date()],
        transaction,
      );
    },

    /** Drops failures older than any window, and sign-ins older than `knownForMs`: called now and then. */
    async prune(): Promise<void> {
      await Failure.destroy({ where: { createdAt: { [Op.lt]: new Date(Date.now() - 7 * day) } } });
      await Known.destroy({ where: { signedInAt: { [Op.lt]: new Date(Date.now() - knownForMs) } } });
    },
  };
}

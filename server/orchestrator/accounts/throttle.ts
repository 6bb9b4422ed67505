import { Op, type Sequelize, type Transaction } from 'sequelize';
import { DataTypes, type Model, type ModelStatic } from 'sequelize';
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
  createdAt: Date;
}

interface KnownRow extends Model {
  subject: string;
  signedInAt: Date;
}

/** A try let through: the failure rows written for it ahead of the check, by id. */
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

  /** Seconds to wait before the next try, over every (subject, limit) pair; 0 when none applies. */
  async function retryAfter(kind: string, checks: Array<[subject: string, limit: Limit]>, transaction?: Transaction): Promise<number> {
    let until = 0;
    for (const [subject, limit] of checks) {
      const rows = await Failure.findAll({
        where: { kind, subject, createdAt: { [Op.gt]: new Date(Date.now() - limit.windowMs) } },
        order: [['createdAt', 'DESC']],
        attributes: ['createdAt'],
        limit: 200,
        transaction,
      });
      until = Math.max(until, waitUntil(rows.map((r) => r.createdAt), limit));
    }
    return until ? Math.max(1, Math.ceil((until - Date.now()) / 1000)) : 0;
  }

  return {
    retryAfter,

    /**
     * Counts a try before it is checked, so that tries at the same moment, on any replica, count each
     * other: under a lock per subject, either a subject must wait (nothing is written) or a failure is
     * written for every subject now. The caller takes it back with `succeeded` when the try succeeds.
     * Inside `transaction` when given (the locks last until it ends), else in a short one of its own.
     */
    async reserve(kind: string, checks: Array<[subject: string, limit: Limit]>, transaction?: Transaction): Promise<Attempt> {
      const reserve = async (t: Transaction): Promise<Attempt> => {
        // In one order everywhere, so that two tries never wait for each other's locks.
        for (const [subject] of [...checks].sort(([a], [b]) => (a < b ? -1 : 1))) {
          await sequelize.query('SELECT pg_advisory_xact_lock(hashtext(:key))', { replacements: { key: `throttle:${kind}:${subject}` }, transaction: t });
        }
        const wait = await retryAfter(kind, checks, t);
        if (wait) return { retryAfter: wait, ids: [] };
        const createdAt = new Date();
        const rows = checks.map(([subject]) => ({ id: newId(), kind, subject, createdAt }));
        await Failure.bulkCreate(rows, { transaction: t });
        return { retryAfter: 0, ids: rows.map((row) => row.id) };
      };
      return transaction ? reserve(transaction) : sequelize.transaction(reserve);
    },

    /** The try succeeded: its reserved failures are taken back and `subject` starts afresh (the person got it right). */
    async succeeded(kind: string, attempt: Attempt, subject: string, transaction?: Transaction): Promise<void> {
      await Failure.destroy({ where: { [Op.or]: [{ id: attempt.ids }, { kind, subject }] }, transaction });
    },

    /** Whether `subject` (an account at an address) signed in within `knownForMs`. */
    async known(subject: string): Promise<boolean> {
      return (await Known.count({ where: { subject, signedInAt: { [Op.gt]: new Date(Date.now() - knownForMs) } } })) > 0;
    },

    async remember(subject: string, transaction?: Transaction): Promise<void> {
      await Known.upsert({ subject, signedInAt: new Date() }, { transaction });
    },

    /** Drops failures older than any window, and sign-ins older than `knownForMs`: called now and then. */
    async prune(): Promise<void> {
      await Failure.destroy({ where: { createdAt: { [Op.lt]: new Date(Date.now() - 7 * day) } } });
      await Known.destroy({ where: { signedInAt: { [Op.lt]: new Date(Date.now() - knownForMs) } } });
    },
  };
}

import { col, fn, Op, type Model, type ModelStatic, type Transaction } from 'sequelize';
import { instancesOf } from '../../../platform/db/prepared.ts';
import { AppError, conflict, notFound } from '../../../platform/http/errors.ts';
import { checkMove } from '../../../platform/lifecycle.ts';
import { moderationLifecycle, moderationWriter, pastTense, type ModerationAction } from './lifecycle.ts';
import type { ModerationStatus } from '../vocabulary.ts';

export type BulkAction = ModerationAction | 'delete';

interface Moderated extends Model {
  id: string;
  status: ModerationStatus;
}

/** What one kind of moderated thing (centres, assessor profiles) brings to the shared rules. */
export interface ModeratedKind<Row extends Moderated> {
  /** `centre`: error codes (`centre.transition_not_allowed`, `centre.in_use`) and messages. */
  noun: string;
  Model: ModelStatic<Row>;
  label(row: Row): string;
  /** Why it cannot be deleted (in use), or undefined. */
  usedBy(row: Row, transaction: Transaction): Promise<string | undefined>;
  /** Deletes what belongs to it, then it. */
  remove(row: Row, transaction: Transaction): Promise<void>;
}

/**
 * Moderation actions on many at once, in one transaction: every id is checked first, and any that
 * cannot change (unknown, a move the lifecycle does not allow, a delete of one in use) is named in a
 * 409 `admin.bulk_refused`, with nothing changed. `one` is the same for a single id, with its plain
 * error (404, `<noun>.transition_not_allowed`, `<noun>.in_use`).
 */
export function createModeration<Row extends Moderated>(kind: ModeratedKind<Row>) {
  const sequelize = kind.Model.sequelize!;
  const writer = moderationWriter(kind.Model);

  async function all(ids: string[], action: BulkAction): Promise<Row[]> {
    const unique = [...new Set(ids)];
    return sequelize.transaction(async (transaction) => {
      const found = await instancesOf(kind.Model, 'x.id = ANY($1)', [unique], { transaction, then: 'FOR UPDATE' });
      const problems: Array<{ field: string; issue: string }> = [];
      const plan: Row[] = [];
      for (const [i, id] of unique.entries()) {
        const row = found.find((r) => r.id === id);
        if (!row) {
          problems.push({ field: `ids[${i}]`, issue: `no ${kind.noun} has the id ${id}` });
        } else if (action === 'delete') {
          const reason = await kind.usedBy(row, transaction);
          if (reason) problems.push({ field: `ids[${i}]`, issue: `${kind.label(row)} cannot be deleted: ${reason}` });
          else plan.push(row);
        } else if (!checkMove(moderationLifecycle, row.status, action, 'admin').ok) {
          problems.push({
            field: `ids[${i}]`,
            issue: `${kind.label(row)} is ${row.status} and cannot be ${pastTense[action]}`,
          });
        } else plan.push(row);
      }
      if (problems.length) {
        const done = action === 'delete' ? 'deleted' : pastTense[action];
        throw new AppError(
          409,
          'admin.bulk_refused',
          `Nothing was changed: ${problems.length} of them cannot be ${done}.`,
          problems,
        );
      }
      for (const row of plan) {
        if (action === 'delete') await kind.remove(row, transaction);
        else await writer.move(transaction, row, action, { by: 'admin' });
      }
      return plan;
    });
  }

  async function one(id: string, action: BulkAction): Promise<Row> {
    try {
      return (await all([id], action))[0]!;
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'admin.bulk_refused') throw err;
      const issue = err.details![0]!.issue;
      if (issue.startsWith(`no ${kind.noun}`)) throw notFound(`No ${kind.noun} has the id ${id}.`);
      throw conflict(
        `${kind.noun}.${action === 'delete' ? 'in_use' : 'transition_not_allowed'}`,
        `${issue[0]!.toUpperCase()}${issue.slice(1)}.`,
      );
    }
  }

  /** Counts by status; rejected ones are left out of everything, total included. */
  async function summary() {
    const rows = (await kind.Model.findAll({
      attributes: ['status', [fn('count', col('id')), 'count']],
      where: { status: { [Op.ne]: 'rejected' } } as never,
      group: ['status'],
      raw: true,
    })) as unknown as Array<{ status: ModerationStatus; count: string }>;
    const counts = { total: 0, pending: 0, approved: 0, suspended: 0 };
    for (const { status, count } of rows) {
      counts[status as keyof typeof counts] = Number(count);
      counts.total += Number(count);
    }
    return counts;
  }

  return { all, one, summary };
}

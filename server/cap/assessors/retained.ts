import { Op, UniqueConstraintError, type Sequelize } from 'sequelize';
import { conflict, validationFailed } from '../../platform/http/errors.ts';
import { Conditions } from '../../platform/db/keyset.ts';
import { containing } from '../../platform/db/like.ts';
import { preparedReads } from '../../platform/db/prepared.ts';
import type { Centres } from '../centres/index.ts';
import type { CentreContext } from '../people/index.ts';
import { checkMove, lifecycleWriter, modelStore } from '../../platform/lifecycle.ts';
import {
  retainedRequestLifecycle,
  type PreferredRole,
  type RetainedRequestAction,
  type RetainedRequestStatus,
} from './lifecycles.ts';
import type { RetainedRequest } from './models.ts';
import { assessorJoins, assessorNameSql, idPage, type AssessorCards } from './cards.ts';
import { allOrNothing, mustDecide, ofCentre } from './rules.ts';
import type { AssessorService } from './service.ts';

export interface RetainedRequestQuery {
  status?: RetainedRequestStatus;
  q?: string;
  sort?: 'requestedAt' | 'respondedAt';
  order?: 'asc' | 'desc';
  cursor?: string;
  limit?: number;
}

const pastTense: Record<RetainedRequestAction, string> = { approve: 'approved', reject: 'rejected', revoke: 'revoked' };

/**
 * Retained requests: an approved assessor asks a centre to retain them, for a preferred role; the
 * centre's admins approve or reject (one by one or in bulk), and may later revoke an approved one,
 * which also ends the assessor's current assignments at that centre. A retained assessor is on the
 * centre's roster and may be assigned to its applications (assignments.ts `retainedBy`).
 */
export function createRetainedRequests(
  sequelize: Sequelize,
  assessors: AssessorService,
  centres: Pick<Centres, 'find' | 'findAll'>,
  cards: AssessorCards,
) {
  const read = preparedReads(sequelize);
  const { RetainedRequest } = assessors.models;
  const requests = lifecycleWriter(retainedRequestLifecycle, { store: modelStore(RetainedRequest) });

  async function present(rows: RetainedRequest[]) {
    const [people, centreRows] = await Promise.all([
      cards(rows.map((row) => row.assessorId)),
      centres.findAll(rows.map((row) => row.centreId)),
    ]);
    return rows.map((row) => ({
      id: row.id,
      assessorId: row.assessorId,
      centreId: row.centreId,
      centre: { id: row.centreId, name: centreRows.find((c) => c.id === row.centreId)?.name ?? '' },
      preferredRole: row.preferredRole,
      status: row.status,
      requestedAt: row.createdAt.toISOString(),
      respondedAt: row.respondedAt ? row.respondedAt.toISOString() : null,
      respondedBy: row.respondedBy,
      assessor: people.get(row.assessorId) ?? null,
    }));
  }
  const presentOne = async (row: RetainedRequest) => (await present([row]))[0]!;

  async function inOrder(ids: string[]) {
    const rows = await RetainedRequest.findAll({ where: { id: { [Op.in]: ids } } });
    return present(ids.map((id) => rows.find((row) => row.id === id)!));
  }

  /** Applies one action to a locked row of the centre; the revoke ends the assessor's assignments there. */
  async function applyAction(
    row: RetainedRequest,
    action: RetainedRequestAction,
    userId: string,
    transaction: import('sequelize').Transaction,
  ) {
    const { changed } = await requests.move(transaction, row, action, {
      by: 'centre',
      changes: { respondedAt: new Date(), respondedBy: userId },
    });
    if (!changed) return;
    if (action === 'revoke')
      await assessors.assignments.end({ centreId: row.centreId, assessorId: row.assessorId }, transaction);
  }

  const refusal = (row: RetainedRequest, action: RetainedRequestAction) =>
    checkMove(retainedRequestLifecycle, row.status, action, 'centre').ok
      ? undefined
      : `the request is ${row.status} and cannot be ${pastTense[action]}`;

  return {
    /** An approved assessor asks an approved centre; one pending or approved request per centre. */
    async request(userId: string, input: { centreId: string; preferredRole: PreferredRole }) {
      const profile = await assessors.approvedProfileOf(userId, 'you can ask centres to retain you');
      const found = await centres.find(input.centreId);
      const centre = found?.status === 'approved' ? found : null;
      if (!centre)
        throw validationFailed(
          [{ field: 'centreId', issue: 'is not an approved centre' }],
          'Only an approved centre can retain assessors.',
        );
      try {
        const values = { assessorId: profile.id, centreId: centre.id, preferredRole: input.preferredRole };
        return presentOne(
          (await sequelize.transaction((transaction) =>
            requests.create(transaction, 'request', values, { by: 'assessor' }),
          ))!,
        );
      } catch (err) {
        if (err instanceof UniqueConstraintError)
          throw conflict(
            'retained_request.exists',
            `You already have a pending or approved request at ${centre.name}.`,
          );
        throw err;
      }
    },

    /** The caller's own requests, newest first. */
    async mine(userId: string, query: { cursor?: string; limit?: number }) {
      const profile = await assessors.profileOf(userId);
      const { ids, meta } = await idPage(read, query, {
        from: 'cap.retained_requests x',
        where: new Conditions().add('x.assessor_id = ?', profile.id),
        key: 'x.created_at',
        desc: true,
      });
      return { items: await inOrder(ids), meta };
    },

    /** The centre's requests: `status`, `q` (the assessor's name or email), sorted by when asked (default newest first) or answered. */
    async list(context: CentreContext, query: RetainedRequestQuery) {
      const where = new Conditions().add('x.centre_id = ?', context.centreId);
      if (query.status) where.add('x.status = ?', query.status);
      if (query.q) where.add(`(${assessorNameSql()} ILIKE ? OR u.email ILIKE ?)`, containing(query.q));
      // Unanswered requests sort after every answered one.
      const key = query.sort === 'respondedAt' ? `coalesce(x.responded_at, 'infinity'::timestamptz)` : 'x.created_at';
      const { ids, meta } = await idPage(read, query, {
        from: `cap.retained_requests x JOIN cap.assessor_profiles p ON p.id = x.assessor_id ${assessorJoins()}`,
        where,
        key,
        desc: (query.order ?? 'desc') === 'desc',
      });
      return { items: await inOrder(ids), meta };
    },

    async get(context: CentreContext, id: string) {
      return presentOne(ofCentre(await RetainedRequest.findByPk(id), context, 'retained request', id));
    },

    async decide(context: CentreContext, userId: string, id: string, action: RetainedRequestAction) {
      mustDecide(context, `${action} retained requests`);
      const row = await sequelize.transaction(async (transaction) => {
        const row = ofCentre(
          await RetainedRequest.findByPk(id, { transaction, lock: transaction.LOCK.UPDATE }),
          context,
          'retained request',
          id,
        );
        const refused = refusal(row, action);
        if (refused)
          throw conflict('retained_request.transition_not_allowed', `${refused[0]!.toUpperCase()}${refused.slice(1)}.`);
        await applyAction(row, action, userId, transaction);
        return row;
      });
      return presentOne(row);
    },

    /** Approve or reject many, all or nothing: every id that cannot change is named (409 `retained_request.bulk_refused`). */
    async bulk(context: CentreContext, userId: string, input: { ids: string[]; decision: 'approve' | 'reject' }) {
      mustDecide(context, `${input.decision} retained requests`);
      const rows = await sequelize.transaction(async (transaction) => {
        const found = await RetainedRequest.findAll({
          where: { id: { [Op.in]: input.ids } },
          transaction,
          lock: transaction.LOCK.UPDATE,
        });
        return allOrNothing(input.ids, found, 'retained_request.bulk_refused', {
          problem: (row, id) =>
            !row
              ? `no retained request has the id ${id}`
              : row.centreId !== context.centreId
                ? `retained request ${id} belongs to another centre`
                : refusal(row, input.decision),
          apply: (row) => applyAction(row, input.decision, userId, transaction),
        });
      });
      return present(rows);
    },
  };
}

export type RetainedRequests = ReturnType<typeof createRetainedRequests>;

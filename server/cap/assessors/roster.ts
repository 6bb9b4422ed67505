import { QueryTypes, type Sequelize } from 'sequelize';
import { Conditions } from '../../platform/db/keyset.ts';
import { containing } from '../../platform/db/like.ts';
import { preparedReads } from '../../platform/db/prepared.ts';
import { forbidden, notFound } from '../../platform/http/errors.ts';
import type { ListQuery } from '../applications/index.ts';
import type { ApplicationsOfAssessors } from './needs.ts';
import { countWorkload } from './rules.ts';
import type { CentreContext } from '../people/index.ts';
import { assessorJoins, assessorNameSql, idPage, type AssessorCards } from './cards.ts';

export type RosterStatus = 'pending' | 'approved' | 'revoked';

export interface RosterQuery {
  qualification?: 'QAA' | 'IQM' | 'IV' | 'EV';
  q?: string;
  status?: RosterStatus | 'all';
  cursor?: string;
  limit?: number;
}

/** Where each qualification shows in the assessor onboarding; IV and EV have no certificate there. */
const qualificationSql: Record<NonNullable<RosterQuery['qualification']>, string> = {
  QAA: `coalesce(o.data #>> '{assessorDetails,certifications,qaa,certificateAssetId}', '') <> ''`,
  IQM: `coalesce(o.data #>> '{assessorDetails,certifications,iqm,certificateAssetId}', '') <> ''`,
  IV: 'false',
  EV: 'false',
};

/** Each assessor's latest request to the centre, rejected ones left out: the roster's rows (`x`). */
const rosterRows = `(SELECT DISTINCT ON (assessor_id) * FROM cap.retained_requests
   WHERE centre_id = $1 AND status <> 'rejected' ORDER BY assessor_id, created_at DESC, id DESC) x`;

/**
 * The centre's assessor roster (assessors are not staff): everyone who asked the centre to retain
 * them and was not turned down, with where their latest request stands (`pending`, `approved`, or
 * `revoked`, the roster's "inactive"), and the applications they are assigned to here.
 */
export function createRoster(sequelize: Sequelize, cards: AssessorCards, applications: ApplicationsOfAssessors) {
  const read = preparedReads(sequelize);
  const from = () => `${rosterRows} JOIN cap.assessor_profiles p ON p.id = x.assessor_id ${assessorJoins()}`;

  /**
   * How many applications of the centre each assessor holds a current assignment on, by status: their
   * assignments here, then the applications' statuses (two statements; no list is filtered by them).
   */
  async function workloads(centreId: string, assessorIds: string[]) {
    const assigned = await sequelize.query<{ assessorId: string; applicationId: string }>(
      `SELECT DISTINCT assessor_id AS "assessorId", application_id AS "applicationId" FROM cap.application_assessors
        WHERE centre_id = $1 AND assessor_id = ANY($2) AND ended_at IS NULL`,
      { type: QueryTypes.SELECT, bind: [centreId, assessorIds] },
    );
    const states = await applications.statesOf(assigned.map((row) => row.applicationId));
    return (assessorId: string) =>
      countWorkload(
        assigned.filter((row) => row.assessorId === assessorId).map((row) => states.get(row.applicationId)?.status),
      );
  }

  async function present(centreId: string, rows: Array<{ id: string; assessorId: string; status: RosterStatus }>) {
    const assessorIds = rows.map((row) => row.assessorId);
    const [people, workloadOf] = await Promise.all([cards(assessorIds), workloads(centreId, assessorIds)]);
    return rows.map((row) => ({
      ...people.get(row.assessorId)!,
      retainedRequestId: row.id,
      status: row.status,
      assignedCount: workloadOf(row.assessorId).assigned,
      workload: workloadOf(row.assessorId),
    }));
  }

  /** The assessor's roster row at the centre: 404 for no assessor, 403 for one not on this centre's roster. */
  async function rosterRow(context: CentreContext, assessorId: string) {
    const [row] = await sequelize.query<{ id: string; assessorId: string; status: RosterStatus }>(
      `SELECT x.id, x.assessor_id AS "assessorId", x.status FROM ${rosterRows} WHERE x.assessor_id = $2`,
      { type: QueryTypes.SELECT, bind: [context.centreId, assessorId] },
    );
    if (row) return row;
    const [exists] = await sequelize.query('SELECT 1 FROM cap.assessor_profiles WHERE id = $1', {
      type: QueryTypes.SELECT,
      bind: [assessorId],
    });
    if (!exists) throw notFound(`No assessor has the id ${assessorId}.`);
    throw forbidden('auth.out_of_scope', "That assessor is not on this centre's roster.");
  }

  return {
    /** Newest request first. `status` defaults to `all`. */
    async list(context: CentreContext, query: RosterQuery) {
      // `from` reads the centre as $1.
      const where = new Conditions();
      where.bind(context.centreId);
      if (query.status && query.status !== 'all') where.add('x.status = ?', query.status);
      if (query.qualification) where.add(qualificationSql[query.qualification]);
      if (query.q) where.add(`(${assessorNameSql()} ILIKE ? OR u.email ILIKE ?)`, containing(query.q));
      const { ids, meta } = await idPage(read, query, { from: from(), where, key: 'x.created_at', desc: true });
      const rows = await sequelize.query<{ id: string; assessorId: string; status: RosterStatus }>(
        `SELECT id, assessor_id AS "assessorId", status FROM cap.retained_requests WHERE id = ANY($1)`,
        { type: QueryTypes.SELECT, bind: [ids] },
      );
      const items = await present(
        context.centreId,
        ids.map((id) => rows.find((row) => row.id === id)!),
      );
      return { items: items.map(({ workload: _workload, ...item }) => item), meta };
    },

    /** Counts of the roster: active (approved), pending, inactive (revoked). */
    async summary(context: CentreContext) {
      const [row] = await sequelize.query<{ total: number; active: number; pending: number; inactive: number }>(
        `SELECT count(*)::int AS total, count(*) FILTER (WHERE x.status = 'approved')::int AS active,
                count(*) FILTER (WHERE x.status = 'pending')::int AS pending, count(*) FILTER (WHERE x.status = 'revoked')::int AS inactive
           FROM ${rosterRows}`,
        { type: QueryTypes.SELECT, bind: [context.centreId] },
      );
      return row!;
    },

    async get(context: CentreContext, assessorId: string) {
      return (await present(context.centreId, [await rosterRow(context, assessorId)]))[0]!;
    },

    /** The centre's applications the assessor is currently assigned to, with the applications list's filters. */
    async applications(context: CentreContext, userId: string, assessorId: string, query: ListQuery) {
      await rosterRow(context, assessorId);
      return applications.list({ persona: 'centre', userId, centreId: context.centreId }, { ...query, assessorId });
    },
  };
}

export type Roster = ReturnType<typeof createRoster>;

import { Op, QueryTypes, type Transaction } from 'sequelize';
import { jsonObject } from '../../platform/db/json-text.ts';
import { catalogueSql } from '../catalogue/index.ts';
import { peopleSql } from '../people/index.ts';
import { handlerUserIdOf } from './handling.ts';
import type { Applications } from './service.ts';

/**
 * SQL of the applications module's tables for a statement of another module that has to stay one
 * statement (a centre's directory, searched and paged across staff, candidates and assessors).
 */
export const applicationsSql = {
  /**
   * The candidate's personal details (jsonb: firstName, lastName, ...) of the applications row `a`: the
   * draft's, else their candidate onboarding's, else null (what `present` shows).
   */
  candidateDetails: (a: string) =>
    `coalesce(NULLIF(${a}.draft #> '{personalInformation,personalDetails}', 'null'::jsonb), ${peopleSql.onboardingData(`${a}.candidate_user_id`, 'candidate', '{personalDetails}')})`,

  /**
   * The Application shape's candidate of the applications row `a`, `{ id, firstName, lastName, name }`
   * (JSON): the names from `candidateDetails`, '' without one.
   */
  candidateCard: (a: string) =>
    jsonObject(
      `${a}.candidate_user_id AS id, coalesce(n.d ->> 'firstName', '') AS "firstName", coalesce(n.d ->> 'lastName', '') AS "lastName",
       concat_ws(' ', NULLIF(n.d ->> 'firstName', ''), NULLIF(n.d ->> 'lastName', '')) AS name`,
      `(SELECT ${applicationsSql.candidateDetails(a)} AS d) n`,
    ),

  /** The candidate's name (first and last, '' without either) of the applications row `a`. */
  candidateName: (a: string) =>
    `(SELECT concat_ws(' ', NULLIF(n.d ->> 'firstName', ''), NULLIF(n.d ->> 'lastName', '')) FROM (SELECT ${applicationsSql.candidateDetails(a)} AS d) n)`,

  /** The candidates of the centre `centreId`: an application there past its draft (`user_id`, each once). */
  candidatesOf: (centreId: string) =>
    `SELECT DISTINCT candidate_user_id AS user_id FROM cap.applications WHERE centre_id = ${centreId} AND status <> 'draft'`,
};

/**
 * The applications as the other modules read them: what an assessor works on (assessors), what a
 * centre has (centres: its moderation, broadcasts, staff workloads).
 */
export function createApplicationQueries(applications: Applications) {
  const { Application } = applications.models;
  const sequelize = Application.sequelize!;
  const select = <T extends object>(sql: string, bind: unknown[], transaction?: Transaction) =>
    sequelize.query<T>(sql, { type: QueryTypes.SELECT, bind, transaction });

  return {
    /** The applications among `ids` as the Application shape shows them. */
    async presentByIds(ids: string[]) {
      return applications.present(await Application.findAll({ where: { id: { [Op.in]: ids } } }));
    },

    /** Where each of the applications among `ids` is, by id. */
    async statesOf(ids: string[]): Promise<Map<string, { status: string; currentStageKey: string }>> {
      const rows = ids.length
        ? await Application.findAll({
            where: { id: { [Op.in]: [...new Set(ids)] } },
            attributes: ['id', 'status', 'currentStageKey'],
          })
        : [];
      return new Map(rows.map((row) => [row.id, { status: row.status, currentStageKey: row.currentStageKey }]));
    },

    /** How many applications (drafts included) name the trade: a NOS replaced under them is a change they see. */
    async tradeApplicationCount(tradeId: string): Promise<number> {
      return Application.count({ where: { tradeId } });
    },

    /** Whether the centre has applications (drafts included), prices or wallet entries: they stay with it. */
    async centreInUse(centreId: string, transaction: Transaction): Promise<boolean> {
      const [row] = await select<{ n: number }>(
        `SELECT (SELECT count(*) FROM cap.applications WHERE centre_id = $1) + (SELECT count(*) FROM cap.centre_prices WHERE centre_id = $1)
              + (SELECT count(*) FROM cap.wallet_entries WHERE centre_id = $1) AS n`,
        [centreId],
        transaction,
      );
      return Number(row!.n) > 0;
    },

    /** The centre's newest 100 applications with their trade and candidate, and how many it has (the admins' centre detail). */
    async ofCentre(centreId: string) {
      const rows = await select<{
        id: string;
        type: 'RPL' | 'NSQ';
        status: string;
        stage: string;
        candidate: string;
        trade_id: string;
        trade_name: string;
        submitted_at: Date | null;
        created_at: Date;
        total: number;
      }>(
        `SELECT a.id, a.type, a.status, a.current_stage_key AS stage, a.trade_id, ${catalogueSql.tradeName('a.trade_id')} AS trade_name, a.submitted_at, a.created_at,
                concat_ws(' ', a.draft #>> '{personalInformation,personalDetails,firstName}', a.draft #>> '{personalInformation,personalDetails,lastName}') AS candidate,
                count(*) OVER ()::int AS total
           FROM cap.applications a WHERE a.centre_id = $1 ORDER BY a.id DESC LIMIT 100`,
        [centreId],
      );
      return {
        total: rows[0]?.total ?? 0,
        items: rows.map((a) => ({
          id: a.id,
          type: a.type,
          status: a.status,
          currentStageKey: a.stage,
          candidateName: a.candidate,
          trade: { id: a.trade_id, name: a.trade_name },
          submittedAt: a.submitted_at ? a.submitted_at.toISOString() : null,
          createdAt: a.created_at.toISOString(),
        })),
      };
    },

    /** The centre's candidates (of one trade, when given), in order, `except` left out (a broadcast's audience). */
    async candidatesOf(centreId: string, except: string, tradeId?: string): Promise<string[]> {
      const rows = await select<{ userId: string }>(
        `SELECT DISTINCT candidate_user_id AS "userId" FROM cap.applications WHERE centre_id = $1 AND status <> 'draft' AND candidate_user_id <> $2
            ${tradeId === undefined ? '' : 'AND trade_id = $3'} ORDER BY 1`,
        tradeId === undefined ? [centreId, except] : [centreId, except, tradeId],
      );
      return rows.map((row) => row.userId);
    },

    /** What a staff member of the centre handles (handling.ts): assigned to them, still under way, certified. */
    async workloadOf(centreId: string, userId: string) {
      const [workload] = await select<{ assigned: number; ongoing: number; completed: number }>(
        `SELECT count(*)::int AS assigned, count(*) FILTER (WHERE a.status = 'in_progress')::int AS ongoing, count(*) FILTER (WHERE a.status = 'certified')::int AS completed
           FROM cap.applications a WHERE a.centre_id = $1 AND ${handlerUserIdOf('a')} = $2`,
        [centreId, userId],
      );
      return workload!;
    },
  };
}

export type ApplicationQueries = ReturnType<typeof createApplicationQueries>;

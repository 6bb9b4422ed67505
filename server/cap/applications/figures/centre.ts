import { QueryTypes, type Sequelize } from 'sequelize';
import { money } from '../../../platform/money.ts';
import { catalogueSql } from '../../catalogue/index.ts';
import type { CentreMove } from '../../centres/index.ts';
import type { CentreContext } from '../../people/index.ts';
import { nsqStages, rplStages, stageLabels, type StageKey } from '../lifecycle.ts';
import type { ApplicationType } from '../vocabulary.ts';

const genders = ['female', 'male', 'other', 'unspecified'] as const;
/** The client's gender labels ('Male', 'Female', 'Prefer not to say') as the dashboard's buckets. */
const genderBucket = `CASE lower(coalesce(a.draft #>> '{personalInformation,personalDetails,gender}', ''))
  WHEN 'female' THEN 'female' WHEN 'male' THEN 'male' WHEN '' THEN 'unspecified' WHEN 'prefer not to say' THEN 'unspecified' ELSE 'other' END`;

/**
 * A centre's figures from its applications: those submitted in a UTC year (drafts do not count),
 * revenue from completed payments in that year, where they are, and the newest moves the centre made
 * (the centres module's dashboard adds its staff and assessors); and the centre's applications summary.
 */
export function createCentreFigures(sequelize: Sequelize) {
  const select = <T extends object>(sql: string, bind: unknown[]) =>
    sequelize.query<T>(sql, { type: QueryTypes.SELECT, bind });

  return {
    async applications(centreId: string, year: number, type: ApplicationType | null) {
      const bind = [centreId, year, type];
      const submitted = `a.centre_id = $1 AND a.submitted_at IS NOT NULL AND extract(year FROM a.submitted_at AT TIME ZONE 'UTC') = $2 AND ($3::text IS NULL OR a.type = $3)`;
      const [counts] = await select<{ applications: number }>(
        `SELECT count(*)::int AS applications FROM cap.applications a WHERE ${submitted}`,
        bind,
      );
      const months = await select<{ month: number; total: string }>(
        `SELECT extract(month FROM p.paid_at AT TIME ZONE 'UTC')::int AS month, sum(p.amount_minor)::text AS total
           FROM cap.application_payments p JOIN cap.applications a ON a.id = p.application_id
          WHERE p.centre_id = $1 AND p.status = 'completed' AND extract(year FROM p.paid_at AT TIME ZONE 'UTC') = $2 AND ($3::text IS NULL OR a.type = $3)
          GROUP BY 1`,
        bind,
      );
      const byMonth = new Map(months.map((m) => [m.month, BigInt(m.total)]));
      const revenueByMonth = Array.from({ length: 12 }, (_, i) => ({
        month: i + 1,
        amount: money(byMonth.get(i + 1) ?? 0n, 'NGN'),
      }));
      const revenue = [...byMonth.values()].reduce((sum, value) => sum + value, 0n);
      // One statement with the catalogue's trade names: the trades are ordered by them.
      const trades = await select<{ id: string; name: string; count: number }>(
        `SELECT a.trade_id AS id, ${catalogueSql.tradeName('a.trade_id')} AS name, count(*)::int AS count FROM cap.applications a WHERE ${submitted}
          GROUP BY a.trade_id ORDER BY count DESC, name`,
        bind,
      );
      const genderRows = await select<{ gender: string; count: number }>(
        `SELECT ${genderBucket} AS gender, count(*)::int AS count FROM cap.applications a WHERE ${submitted} GROUP BY 1`,
        bind,
      );
      const stageRows = await select<{ stage: string; count: number }>(
        `SELECT a.current_stage_key AS stage, count(*)::int AS count FROM cap.applications a WHERE ${submitted} AND a.status = 'in_progress' GROUP BY 1`,
        bind,
      );
      const stages: StageKey[] =
        type === 'NSQ'
          ? [...nsqStages]
          : type === 'RPL'
            ? [...rplStages]
            : [...new Set<StageKey>([...rplStages, ...nsqStages])];
      const centreMoves = await select<CentreMove>(
        `SELECT m.id, m.actor_user_id AS "actorUserId", m.action, m.created_at AS "createdAt", m.application_id AS "applicationId", m.from_stage AS "fromStage", m.to_stage AS "toStage"
           FROM cap.application_moves m JOIN cap.applications a ON a.id = m.application_id
          WHERE a.centre_id = $1 AND m.actor = 'centre' ORDER BY m.id DESC LIMIT 20`,
        [centreId],
      );
      return {
        applications: counts!.applications,
        revenue: money(revenue, 'NGN'),
        revenueByMonth,
        applicationsByTrade: trades,
        genderDistribution: genders.map((gender) => ({
          gender,
          count: genderRows.find((g) => g.gender === gender)?.count ?? 0,
        })),
        candidatesByStage: stages
          .filter((s) => s !== 'application_form')
          .map((stageKey) => ({
            stageKey,
            label: stageLabels[stageKey],
            count: stageRows.find((r) => r.stage === stageKey)?.count ?? 0,
          })),
        centreMoves,
      };
    },

    /** The centre's applications by where they are: drafts are the candidates' and do not count. */
    async applicationsSummary(context: CentreContext) {
      const [row] = await select<{
        total: number;
        pending: number;
        ongoing: number;
        completed: number;
        archived: number;
      }>(
        `SELECT count(*)::int AS total,
                count(*) FILTER (WHERE status = 'in_progress' AND current_stage_key = 'payment')::int AS pending,
                count(*) FILTER (WHERE status = 'in_progress' AND current_stage_key <> 'payment')::int AS ongoing,
                count(*) FILTER (WHERE status = 'certified')::int AS completed,
                count(*) FILTER (WHERE status IN ('rejected', 'withdrawn'))::int AS archived
           FROM cap.applications WHERE centre_id = $1 AND status <> 'draft'`,
        [context.centreId],
      );
      return row!;
    },
  };
}

export type CentreFigures = ReturnType<typeof createCentreFigures>;

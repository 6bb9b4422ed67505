import { QueryTypes, type Sequelize } from 'sequelize';
import { money } from '../../../platform/money.ts';
import { nsqStages, rplStages, stageLabels, type StageKey } from '../../applications/lifecycle.ts';
import type { CentreContext } from '../../people/context/service.ts';
import type { ApplicationType } from '../../applications/vocabulary.ts';

const genders = ['female', 'male', 'other', 'unspecified'] as const;
/** The client's gender labels ('Male', 'Female', 'Prefer not to say') as the dashboard's buckets. */
const genderBucket = `CASE lower(coalesce(a.draft #>> '{personalInformation,personalDetails,gender}', ''))
  WHEN 'female' THEN 'female' WHEN 'male' THEN 'male' WHEN '' THEN 'unspecified' WHEN 'prefer not to say' THEN 'unspecified' ELSE 'other' END`;

/**
 * The centre console's figures, computed from the centre's rows: applications submitted in a UTC year
 * (drafts do not count), revenue from completed payments in that year, and what its staff did last.
 */
export function createCentreDashboard(sequelize: Sequelize) {
  const select = <T extends object>(sql: string, bind: unknown[]) => sequelize.query<T>(sql, { type: QueryTypes.SELECT, bind });

  return {
    async dashboard(context: CentreContext, query: { year?: number; applicationType?: ApplicationType }) {
      const year = query.year ?? new Date().getUTCFullYear();
      const type = query.applicationType ?? null;
      const bind = [context.centreId, year, type];
      const submitted = `a.centre_id = $1 AND a.submitted_at IS NOT NULL AND extract(year FROM a.submitted_at AT TIME ZONE 'UTC') = $2 AND ($3::text IS NULL OR a.type = $3)`;
      const [counts] = await select<{ applications: number; staff: number; assessors: number }>(
        `SELECT (SELECT count(*)::int FROM cap.applications a WHERE ${submitted}) AS applications,
                (SELECT count(*)::int FROM cap.centre_staff WHERE centre_id = $1 AND status = 'active') AS staff,
                (SELECT count(*)::int FROM cap.retained_requests WHERE centre_id = $1 AND status = 'approved') AS assessors`,
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
      const revenueByMonth = Array.from({ length: 12 }, (_, i) => ({ month: i + 1, amount: money(byMonth.get(i + 1) ?? 0n, 'NGN') }));
      const revenue = [...byMonth.values()].reduce((sum, value) => sum + value, 0n);
      const trades = await select<{ id: string; name: string; count: number }>(
        `SELECT t.id, t.name, count(*)::int AS count FROM cap.applications a JOIN cap.trades t ON t.id = a.trade_id WHERE ${submitted} GROUP BY t.id, t.name ORDER BY count DESC, t.name`,
        bind,
      );
      const genderRows = await select<{ gender: string; count: number }>(`SELECT ${genderBucket} AS gender, count(*)::int AS count FROM cap.applications a WHERE ${submitted} GROUP BY 1`, bind);
      const stageRows = await select<{ stage: string; count: number }>(
        `SELECT a.current_stage_key AS stage, count(*)::int AS count FROM cap.applications a WHERE ${submitted} AND a.status = 'in_progress' GROUP BY 1`,
        bind,
      );
      const stages: StageKey[] = type === 'NSQ' ? [...nsqStages] : type === 'RPL' ? [...rplStages] : [...new Set<StageKey>([...rplStages, ...nsqStages])];
      const activity = await select<{ id: string; name: string | null; email: string; role: string; action: string; created_at: Date; application_id: string; from_stage: string; to_stage: string }>(
        `SELECT m.id, s.name, s.email, s.role, m.action, m.created_at, m.application_id, m.from_stage, m.to_stage
           FROM cap.application_moves m JOIN cap.applications a ON a.id = m.application_id
           JOIN cap.centre_staff s ON s.user_id = m.actor_user_id AND s.centre_id = a.centre_id
          WHERE a.centre_id = $1 AND m.actor = 'centre' ORDER BY m.id DESC LIMIT 20`,
        [context.centreId],
      );
      return {
        year,
        applicationType: type,
        kpis: { applications: counts!.applications, staff: counts!.staff, assessors: counts!.assessors, revenue: money(revenue, 'NGN') },
        revenueByMonth,
        applicationsByTrade: trades,
        genderDistribution: genders.map((gender) => ({ gender, count: genderRows.find((g) => g.gender === gender)?.count ?? 0 })),
        candidatesByStage: stages.filter((s) => s !== 'application_form').map((stageKey) => ({ stageKey, label: stageLabels[stageKey], count: stageRows.find((r) => r.stage === stageKey)?.count ?? 0 })),
        staffActivity: activity.map((row) => ({
          id: row.id,
          actorName: row.name ?? row.email,
          role: row.role,
          action: row.action,
          occurredAt: row.created_at.toISOString(),
          metadata: { applicationId: row.application_id, fromStage: row.from_stage, toStage: row.to_stage },
        })),
      };
    },

    /** The centre's applications by where they are: drafts are the candidates' and do not count. */
    async applicationsSummary(context: CentreContext) {
      const [row] = await select<{ total: number; pending: number; ongoing: number; completed: number; archived: number }>(
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

export type CentreDashboard = ReturnType<typeof createCentreDashboard>;

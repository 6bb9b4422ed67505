import { QueryTypes, type Sequelize } from 'sequelize';
import { money } from '../../../platform/money.ts';
import { catalogueSql } from '../../catalogue/index.ts';
import { nsqStages, rplStages, stageLabels, type StageKey } from '../lifecycle.ts';

/** The stages after the form, RPL's and NSQ's merged in the order an application meets them. */
const pipelineStages: StageKey[] = [...rplStages.slice(1, 4), ...nsqStages.slice(2, 4), ...rplStages.slice(4)];

/**
 * The platform's figures for a UTC year, computed from the rows. An application belongs to the year
 * it was submitted in (drafts are the candidates' and do not count), optionally of one trade. Revenue
 * is the gross of the completed payments of those applications paid in the year, fees the platform's
 * ledger lines of that year; centres and assessors are those approved now, whatever the year.
 * The pipeline shows, for each stage, the applications in progress at it now (`atStage`) and those
 * that ever entered it by a move of their stage history (`reached`).
 */
export function createAdminDashboard(
  sequelize: Sequelize,
  /** How many centres and assessors are approved now (the centres and assessors modules). */
  approved: { centres(): Promise<number>; assessors(): Promise<number> },
) {
  const select = <T extends object>(sql: string, bind: unknown[]) =>
    sequelize.query<T>(sql, { type: QueryTypes.SELECT, bind });

  return {
    async dashboard(query: { year?: number; tradeId?: string }) {
      const year = query.year ?? new Date().getUTCFullYear();
      const tradeId = query.tradeId ?? null;
      const bind = [year, tradeId];
      const inScope = `a.submitted_at IS NOT NULL AND extract(year FROM a.submitted_at AT TIME ZONE 'UTC') = $1 AND ($2::text IS NULL OR a.trade_id = $2)`;
      const inYear = (column: string) => `extract(year FROM ${column} AT TIME ZONE 'UTC') = $1`;
      const [kpis] = await select<{
        applications: number;
        candidates: number;
        certified: number;
        revenue: string;
        fees: string;
      }>(
        `SELECT
           (SELECT count(*)::int FROM cap.applications a WHERE ${inScope}) AS applications,
           (SELECT count(DISTINCT a.candidate_user_id)::int FROM cap.applications a WHERE ${inScope}) AS candidates,
           (SELECT count(DISTINCT m.application_id)::int FROM cap.application_moves m JOIN cap.applications a ON a.id = m.application_id
             WHERE m.to_stage = 'certified' AND ${inYear('m.created_at')} AND ($2::text IS NULL OR a.trade_id = $2)) AS certified,
           (SELECT coalesce(sum(p.amount_minor), 0)::text FROM cap.application_payments p JOIN cap.applications a ON a.id = p.application_id
             WHERE p.status = 'completed' AND ${inYear('p.paid_at')} AND ($2::text IS NULL OR a.trade_id = $2)) AS revenue,
           (SELECT coalesce(-sum(w.amount_minor), 0)::text FROM cap.wallet_entries w JOIN cap.applications a ON a.id = w.application_id
             WHERE w.kind = 'platform_fee' AND ${inYear('w.created_at')} AND ($2::text IS NULL OR a.trade_id = $2)) AS fees`,
        bind,
      );
      const months = await select<{ month: number; applications: number }>(
        `SELECT extract(month FROM a.submitted_at AT TIME ZONE 'UTC')::int AS month, count(*)::int AS applications FROM cap.applications a WHERE ${inScope} GROUP BY 1`,
        bind,
      );
      const revenueMonths = await select<{ month: number; total: string }>(
        `SELECT extract(month FROM p.paid_at AT TIME ZONE 'UTC')::int AS month, sum(p.amount_minor)::text AS total
           FROM cap.application_payments p JOIN cap.applications a ON a.id = p.application_id
          WHERE p.status = 'completed' AND ${inYear('p.paid_at')} AND ($2::text IS NULL OR a.trade_id = $2) GROUP BY 1`,
        bind,
      );
      // One statement with the catalogue's trade names: the trades are ordered by them.
      const trades = await select<{ id: string; name: string; count: number }>(
        `SELECT a.trade_id AS id, ${catalogueSql.tradeName('a.trade_id')} AS name, count(*)::int AS count FROM cap.applications a WHERE ${inScope}
          GROUP BY a.trade_id ORDER BY count DESC, name, id`,
        bind,
      );
      const types = await select<{ type: string; count: number }>(
        `SELECT a.type, count(*)::int AS count FROM cap.applications a WHERE ${inScope} GROUP BY 1`,
        bind,
      );
      const atStage = await select<{ stage: string; count: number }>(
        `SELECT a.current_stage_key AS stage, count(*)::int AS count FROM cap.applications a WHERE ${inScope} AND a.status = 'in_progress' GROUP BY 1`,
        bind,
      );
      const reached = await select<{ stage: string; count: number }>(
        `SELECT m.to_stage AS stage, count(DISTINCT m.application_id)::int AS count FROM cap.application_moves m JOIN cap.applications a ON a.id = m.application_id WHERE ${inScope} GROUP BY 1`,
        bind,
      );
      const countOf = (rows: Array<{ stage: string; count: number }>, stageKey: string) =>
        rows.find((row) => row.stage === stageKey)?.count ?? 0;
      const byMonth = (month: number) => months.find((m) => m.month === month)?.applications ?? 0;
      return {
        year,
        tradeId,
        kpis: {
          applications: kpis!.applications,
          candidates: kpis!.candidates,
          certified: kpis!.certified,
          centres: await approved.centres(),
          assessors: await approved.assessors(),
          revenue: money(kpis!.revenue, 'NGN'),
          platformFees: money(kpis!.fees, 'NGN'),
        },
        applicationsByMonth: Array.from({ length: 12 }, (_, i) => ({ month: i + 1, count: byMonth(i + 1) })),
        revenueByMonth: Array.from({ length: 12 }, (_, i) => ({
          month: i + 1,
          amount: money(revenueMonths.find((m) => m.month === i + 1)?.total ?? '0', 'NGN'),
        })),
        applicationsByTrade: trades,
        applicationsByType: (['RPL', 'NSQ'] as const).map((type) => ({
          type,
          count: types.find((row) => row.type === type)?.count ?? 0,
        })),
        pipeline: {
          atStage: pipelineStages.map((stageKey) => ({
            stageKey,
            label: stageLabels[stageKey],
            count: countOf(atStage, stageKey),
          })),
          reached: pipelineStages.map((stageKey) => ({
            stageKey,
            label: stageLabels[stageKey],
            count: countOf(reached, stageKey),
          })),
        },
      };
    },
  };
}

export type AdminDashboard = ReturnType<typeof createAdminDashboard>;

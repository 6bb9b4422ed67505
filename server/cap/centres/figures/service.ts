import { Op, QueryTypes, type Sequelize } from 'sequelize';
import type { Money } from '../../../platform/money.ts';
import type { ApplicationType } from '../../applications/index.ts';
import type { CentreContext } from '../../people/index.ts';
import type { CentreModels } from '../service.ts';

/** A move the centre's staff made on one of its applications (the applications module's stage history). */
export interface CentreMove {
  id: string;
  actorUserId: string;
  action: string;
  createdAt: Date;
  applicationId: string;
  fromStage: string;
  toStage: string;
}

/** The centre's figures the modules above keep: its applications' (applications) and the assessors it retains (assessors). */
export interface FiguresOfCentre {
  applications(
    centreId: string,
    year: number,
    type: ApplicationType | null,
  ): Promise<{
    applications: number;
    revenue: Money;
    revenueByMonth: Array<{ month: number; amount: Money }>;
    applicationsByTrade: Array<{ id: string; name: string; count: number }>;
    genderDistribution: Array<{ gender: string; count: number }>;
    candidatesByStage: Array<{ stageKey: string; label: string; count: number }>;
    /** The newest moves made for the centre, newest first. */
    centreMoves: CentreMove[];
  }>;
  retainedCount(centreId: string): Promise<number>;
}

/**
 * The centre console's figures: applications submitted in a UTC year (drafts do not count), revenue
 * from completed payments in that year, and what its staff did last.
 */
export function createCentreDashboard(sequelize: Sequelize, models: CentreModels, of: FiguresOfCentre) {
  const { CentreStaff } = models;

  return {
    async dashboard(context: CentreContext, query: { year?: number; applicationType?: ApplicationType }) {
      const year = query.year ?? new Date().getUTCFullYear();
      const type = query.applicationType ?? null;
      const [figures, [counts], assessors] = await Promise.all([
        of.applications(context.centreId, year, type),
        sequelize.query<{ staff: number }>(
          `SELECT count(*)::int AS staff FROM cap.centre_staff WHERE centre_id = $1 AND status = 'active'`,
          {
            type: QueryTypes.SELECT,
            bind: [context.centreId],
          },
        ),
        of.retainedCount(context.centreId),
      ]);
      // Who made each move, as the centre's staff: two statements, as this is no page read on every visit
      // (a move for the centre is made by its staff, who stay on its staff list).
      const actors = await CentreStaff.findAll({
        where: {
          centreId: context.centreId,
          userId: { [Op.in]: [...new Set(figures.centreMoves.map((move) => move.actorUserId))] },
        },
        attributes: ['userId', 'name', 'email', 'role'],
      });
      const staffActivity = figures.centreMoves.flatMap((move) => {
        const actor = actors.find((row) => row.userId === move.actorUserId);
        if (!actor) return [];
        return [
          {
            id: move.id,
            actorName: actor.name ?? actor.email,
            role: actor.role,
            action: move.action,
            occurredAt: move.createdAt.toISOString(),
            metadata: { applicationId: move.applicationId, fromStage: move.fromStage, toStage: move.toStage },
          },
        ];
      });
      return {
        year,
        applicationType: type,
        kpis: { applications: figures.applications, staff: counts!.staff, assessors, revenue: figures.revenue },
        revenueByMonth: figures.revenueByMonth,
        applicationsByTrade: figures.applicationsByTrade,
        genderDistribution: figures.genderDistribution,
        candidatesByStage: figures.candidatesByStage,
        staffActivity,
      };
    },
  };
}

export type CentreDashboard = ReturnType<typeof createCentreDashboard>;

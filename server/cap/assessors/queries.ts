import { Op, type Transaction } from 'sequelize';
import { prepared } from '../../platform/db/prepared.ts';
import type { ServiceEvents } from '../../platform/events/types.ts';
import { peopleSql } from '../people/index.ts';
import type { AssignmentRole } from './assignments.ts';
import { assessorJoins, assessorNameSql } from './cards.ts';
import type { AssessorService } from './service.ts';

/** A new assignment of an assessor to an application at its centre. */
export interface NewAssignment {
  applicationId: string;
  assessorId: string;
  centreId: string;
  role: AssignmentRole;
  lead?: boolean;
  assignedBy: string;
}

/**
 * The assessors' rows as the other modules read and write them: assignments to applications (the
 * assign operations of interviews, NSQ and verification), and what a centre's pages show of the
 * assessors it deals with.
 */
/** How an assessor's part on an application is named to them. */
const roleNames: Record<AssignmentRole, string> = {
  facilitator: 'facilitator',
  panel_voter: 'interview panel member',
  iv_observer: 'internal verifier observing the interview',
  iv: 'internal verifier',
  ev: 'external verifier',
  unit_assessor: 'unit assessor',
};

export function createAssessorQueries(assessors: AssessorService, events: Pick<ServiceEvents, 'publish'>) {
  const { AssessorProfile, ApplicationAssessor } = assessors.models;
  const sequelize = AssessorProfile.sequelize!;
  const statement = prepared(sequelize);
  const select = <T extends object>(sql: string, bind: unknown[], transaction?: Transaction) =>
    statement<T>(sql, bind, transaction);

  return {
    /** Whether the assessor profile exists and a platform admin approved it. */
    async isApproved(assessorId: string, transaction?: Transaction): Promise<boolean> {
      const [row] = await select<{ status: string }>(
        `SELECT status FROM cap.assessor_profiles WHERE id = $1`,
        [assessorId],
        transaction,
      );
      return row?.status === 'approved';
    },

    /** How many assessors are approved now (the platform's figures). */
    approvedCount: () => AssessorProfile.count({ where: { status: 'approved' } }),

    /** Whether the user is an assessor assigned to the application now (in `role`, or any). */
    async isAssigned(
      applicationId: string,
      userId: string,
      transaction?: Transaction,
      role?: AssignmentRole,
    ): Promise<boolean> {
      const rows = await select(
        `SELECT 1 FROM cap.application_assessors a JOIN cap.assessor_profiles p ON p.id = a.assessor_id
          WHERE a.application_id = $1 AND p.user_id = $2 AND a.ended_at IS NULL AND ($3::text IS NULL OR a.role = $3)`,
        [applicationId, userId, role ?? null],
        transaction,
      );
      return rows.length > 0;
    },

    /** Ends the application's current assignments in these roles. */
    async endRoles(applicationId: string, roles: AssignmentRole[], transaction: Transaction): Promise<void> {
      await ApplicationAssessor.update(
        { endedAt: new Date() },
        { where: { applicationId, role: { [Op.in]: roles }, endedAt: null }, transaction },
      );
    },

    /**
     * Makes the assignments (one statement), and tells each assessor of theirs through the one send
     * path (`notification.requested`, in the same transaction; inbox and mail as their preferences allow).
     */
    async assign(assignments: NewAssignment[], transaction: Transaction): Promise<void> {
      await ApplicationAssessor.bulkCreate(assignments, { transaction });
      const users = new Map(
        (
          await select<{ id: string; userId: string }>(
            `SELECT id, user_id AS "userId" FROM cap.assessor_profiles WHERE id = ANY($1)`,
            [[...new Set(assignments.map((a) => a.assessorId))]],
            transaction,
          )
        ).map((p) => [p.id, p.userId]),
      );
      for (const assignment of assignments) {
        await events.publish(transaction, 'notification.requested', {
          userId: users.get(assignment.assessorId)!,
          template: 'application.assigned',
          category: 'assessment',
          title: 'You were assigned to an application',
          description: `A centre assigned you to an application as its ${roleNames[assignment.role]}${assignment.lead ? ' (the lead)' : ''}. It is on your dashboard.`,
          metadata: { applicationId: assignment.applicationId, centreId: assignment.centreId, role: assignment.role },
          channels: ['in_app', 'email'],
        });
      }
    },

    /** The application's current facilitator: their profile, user and name, since when; or null. */
    async facilitatorOf(applicationId: string) {
      const [row] = await select<{ assessorId: string; userId: string; name: string; assignedAt: Date }>(
        `SELECT p.id AS "assessorId", p.user_id AS "userId", ${assessorNameSql()} AS name, x.assigned_at AS "assignedAt"
           FROM cap.application_assessors x JOIN cap.assessor_profiles p ON p.id = x.assessor_id ${assessorJoins()}
          WHERE x.application_id = $1 AND x.role = 'facilitator' AND x.ended_at IS NULL`,
        [applicationId],
      );
      return row ?? null;
    },

    /** Whether the centre has retained requests, job postings or assignments: they stay with it. */
    async centreInUse(centreId: string, transaction: Transaction): Promise<boolean> {
      const [row] = await select<{ n: number }>(
        `SELECT (SELECT count(*) FROM cap.retained_requests WHERE centre_id = $1) + (SELECT count(*) FROM cap.job_postings WHERE centre_id = $1)
              + (SELECT count(*) FROM cap.application_assessors WHERE centre_id = $1) AS n`,
        [centreId],
        transaction,
      );
      return Number(row!.n) > 0;
    },

    /** The assessors the centre retains, longest retained first, with who they are (the admins' centre detail). */
    async retainedAssessorsOf(centreId: string) {
      const rows = await select<{
        assessor_id: string;
        name: string;
        email: string;
        preferred_role: string;
        responded_at: Date | null;
      }>(
        `SELECT r.assessor_id, r.preferred_role, r.responded_at, u.email, ${peopleSql.onboardingName('o')} AS name
           FROM cap.retained_requests r JOIN cap.assessor_profiles p ON p.id = r.assessor_id ${assessorJoins()}
          WHERE r.centre_id = $1 AND r.status = 'approved' ORDER BY r.responded_at, r.id`,
        [centreId],
      );
      return rows.map((a) => ({
        assessorId: a.assessor_id,
        name: a.name || null,
        email: a.email,
        preferredRole: a.preferred_role,
        retainedSince: a.responded_at ? a.responded_at.toISOString() : null,
      }));
    },

    /** How many assessors the centre retains. */
    async retainedCount(centreId: string): Promise<number> {
      const [row] = await select<{ n: number }>(
        `SELECT count(*)::int AS n FROM cap.retained_requests WHERE centre_id = $1 AND status = 'approved'`,
        [centreId],
      );
      return row!.n;
    },

    /** The users of the assessors the centre retains, in order, `except` left out (a broadcast's audience). */
    async retainedUsersOf(centreId: string, except: string): Promise<string[]> {
      const rows = await select<{ userId: string }>(
        `SELECT DISTINCT p.user_id AS "userId" FROM cap.retained_requests r JOIN cap.assessor_profiles p ON p.id = r.assessor_id
          WHERE r.centre_id = $1 AND r.status = 'approved' AND p.user_id <> $2 ORDER BY 1`,
        [centreId, except],
      );
      return rows.map((row) => row.userId);
    },

    /** The user's assessor profile id, or null (the provider states'). */
    profileIdOf: async (userId: string) =>
      (await select<{ id: string }>(`SELECT id FROM cap.assessor_profiles WHERE user_id = $1`, [userId]))[0]?.id ??
      null,

    /** Whether the centre retains the user as an assessor (the provider states'). */
    async retains(centreId: string, userId: string): Promise<boolean> {
      const rows = await select(
        `SELECT 1 FROM cap.retained_requests r JOIN cap.assessor_profiles p ON p.id = r.assessor_id WHERE p.user_id = $1 AND r.centre_id = $2 AND r.status = 'approved'`,
        [userId, centreId],
      );
      return rows.length > 0;
    },
  };
}

export type AssessorQueries = ReturnType<typeof createAssessorQueries>;

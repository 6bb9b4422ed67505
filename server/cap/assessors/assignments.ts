import type { Sequelize, Transaction } from 'sequelize';
import { Conditions } from '../../platform/db/keyset.ts';
import { instancesOf, prepared } from '../../platform/db/prepared.ts';
import type { ApplicationAssessor, AssessorModels } from './models.ts';

/**
 * What an assessor does on an application (`application_assessors.role`):
 * - `facilitator`: guides the candidate through the application and the folder (one current per application);
 * - `panel_voter`: one of the three voters of the interview panel (one of them is the lead);
 * - `iv_observer`: the internal verifier observing the panel (may also be one of the voters);
 * - `iv`: the internal verifier of the application;
 * - `ev`: the external verifier, assigned by the awarding body;
 * - `unit_assessor`: assesses the units of an NSQ application.
 */
export const assignmentRoles = ['facilitator', 'panel_voter', 'iv_observer', 'iv', 'ev', 'unit_assessor'] as const;
export type AssignmentRole = (typeof assignmentRoles)[number];

export interface AssignmentFilter {
  /** One application, or any of several. */
  applicationId?: string | string[];
  /** The assessor profile's id. */
  assessorId?: string;
  centreId?: string;
  role?: AssignmentRole | AssignmentRole[];
}

/**
 * The read side of assessor assignments (the writes are the assign operations of the interview, IV
 * and EV areas): who may be assigned at a centre, and who is assigned now.
 */
export function createAssignments(sequelize: Sequelize, models: AssessorModels) {
  const { ApplicationAssessor } = models;
  const statement = prepared(sequelize);

  return {
    /**
     * Whether the centre retains the assessor: their request to it is approved (not rejected or revoked)
     * and a platform admin approved their profile (a suspended assessor is retained by nobody).
     */
    async retainedBy(centreId: string, assessorProfileId: string, transaction?: Transaction): Promise<boolean> {
      const rows = await statement(
        `SELECT 1 FROM cap.retained_requests r JOIN cap.assessor_profiles p ON p.id = r.assessor_id
          WHERE r.centre_id = $1 AND r.assessor_id = $2 AND r.status = 'approved' AND p.status = 'approved'`,
        [centreId, assessorProfileId],
        transaction,
      );
      return rows.length > 0;
    },

    /** Current (not ended) assignments matching the filter, oldest first. */
    async activeAssignments(filter: AssignmentFilter, transaction?: Transaction): Promise<ApplicationAssessor[]> {
      const where = new Conditions().add('x.ended_at IS NULL');
      const oneOrAny = (column: string, value: string | string[]) =>
        Array.isArray(value) ? where.add(`x.${column} = ANY(?)`, value) : where.add(`x.${column} = ?`, value);
      if (filter.applicationId) oneOrAny('application_id', filter.applicationId);
      if (filter.assessorId) oneOrAny('assessor_id', filter.assessorId);
      if (filter.centreId) oneOrAny('centre_id', filter.centreId);
      if (filter.role) oneOrAny('role', filter.role);
      return instancesOf(ApplicationAssessor, where.sql, where.values, {
        transaction,
        then: 'ORDER BY x.assigned_at ASC, x.id ASC',
      });
    },

    /** Ends the current assignments matching the filter (the assessor leaves them); answers how many. */
    async end(
      filter: Required<Pick<AssignmentFilter, 'centreId' | 'assessorId'>>,
      transaction: Transaction,
    ): Promise<number> {
      const [count] = await ApplicationAssessor.update(
        { endedAt: new Date() },
        { where: { centreId: filter.centreId, assessorId: filter.assessorId, endedAt: null }, transaction },
      );
      return count;
    },
  };
}

export type Assignments = ReturnType<typeof createAssignments>;

import type { Sequelize, Transaction } from 'sequelize';
import { instancesOf } from '../../platform/db/prepared.ts';
import { forbidden } from '../../platform/http/errors.ts';
import { createAssignments } from './assignments.ts';
import { defineAssessorModels, type AssessorProfile } from './models.ts';

/** Assessor profiles (one per user who submitted the assessor onboarding) and their assignments. */
export function createAssessorService(sequelize: Sequelize) {
  const models = defineAssessorModels(sequelize);
  const { AssessorProfile } = models;

  /** The caller's profile. Acting as an assessor means a completed onboarding, which made one. */
  async function profileOf(userId: string, transaction?: Transaction): Promise<AssessorProfile> {
    return (await instancesOf(AssessorProfile, 'x.user_id = $1', [userId], { transaction }))[0]!;
  }

  return {
    models,
    assignments: createAssignments(sequelize, models),
    profileOf,

    /** The caller's profile, which a platform admin must have approved (403 `assessor.not_approved`). */
    async approvedProfileOf(userId: string, what: string, transaction?: Transaction): Promise<AssessorProfile> {
      const profile = await profileOf(userId, transaction);
      if (profile.status !== 'approved') {
        throw forbidden(
          'assessor.not_approved',
          `Your assessor profile is ${profile.status}: ${what} once a platform admin approves it.`,
        );
      }
      return profile;
    },
  };
}

export type AssessorService = ReturnType<typeof createAssessorService>;

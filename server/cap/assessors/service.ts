import type { Sequelize, Transaction } from 'sequelize';
import { newId } from '../../platform/ids.ts';
import { createAssignments } from './assignments.ts';
import { defineAssessorModels } from './models.ts';

/** Assessor profiles (one per user who submitted the assessor onboarding) and their assignments. */
export function createAssessorService(sequelize: Sequelize) {
  const models = defineAssessorModels(sequelize);
  return {
    models,
    assignments: createAssignments(sequelize, models),
    /** The profile of a newly onboarded assessor, `pending` until an admin approves it; in the submit's transaction. */
    async createForOwner(userId: string, transaction: Transaction): Promise<void> {
      await models.AssessorProfile.bulkCreate([{ id: newId(), userId }], { ignoreDuplicates: true, transaction });
    },
  };
}

export type AssessorService = ReturnType<typeof createAssessorService>;

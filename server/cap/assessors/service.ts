import { Op, type Sequelize, type Transaction } from 'sequelize';
import { forbidden } from '../../platform/http/errors.ts';
import { newId } from '../../platform/ids.ts';
import { valueAt, type JsonObject } from '../../platform/http/merge-patch.ts';
import { createAssignments } from './assignments.ts';
import { defineAssessorModels, type AssessorProfile } from './models.ts';

/** Assessor profiles (one per user who submitted the assessor onboarding), their sectors and assignments. */
export function createAssessorService(sequelize: Sequelize) {
  const models = defineAssessorModels(sequelize);
  const { AssessorProfile, AssessorSector } = models;

  /** The caller's profile. Acting as an assessor means a completed onboarding, which made one. */
  async function profileOf(userId: string, transaction?: Transaction): Promise<AssessorProfile> {
    return (await AssessorProfile.findOne({ where: { userId }, transaction }))!;
  }

  return {
    models,
    assignments: createAssignments(sequelize, models),
    profileOf,

    /** The caller's profile, which a platform admin must have approved (403 `assessor.not_approved`). */
    async approvedProfileOf(userId: string, what: string, transaction?: Transaction): Promise<AssessorProfile> {
      const profile = await profileOf(userId, transaction);
      if (profile.status !== 'approved') {
        throw forbidden('assessor.not_approved', `Your assessor profile is ${profile.status}: ${what} once a platform admin approves it.`);
      }
      return profile;
    },

    /**
     * The profile of a newly onboarded assessor, `pending` until an admin approves it, with the sectors
     * the onboarding named (those the catalogue has); in the submit's transaction.
     */
    async createForOwner(userId: string, draft: JsonObject, transaction: Transaction): Promise<void> {
      await AssessorProfile.bulkCreate([{ id: newId(), userId }], { ignoreDuplicates: true, transaction });
      await followDraft(userId, draft, transaction);
    },

    followDraft,

    setSectors,
  };

  /** The sectors follow the onboarding's `assessorDetails.sectorIds` when it names them (the settings screen saves them there). */
  async function followDraft(userId: string, draft: JsonObject, transaction: Transaction): Promise<void> {
    const sectorIds = valueAt(draft, 'assessorDetails.sectorIds');
    if (Array.isArray(sectorIds)) await setSectors((await profileOf(userId, transaction)).id, sectorIds.map(String), transaction);
  }

  /** Replaces the assessor's sectors with the given ones that exist in the catalogue; answers those. */
  async function setSectors(assessorId: string, sectorIds: string[], transaction: Transaction): Promise<string[]> {
    const [known] = (await sequelize.query(`SELECT id FROM cap.sectors WHERE id = ANY($1)`, { bind: [[...new Set(sectorIds)]], transaction })) as [Array<{ id: string }>, unknown];
    const ids = known.map((row) => row.id);
    await AssessorSector.destroy({ where: { assessorId, sectorId: { [Op.notIn]: ids.length ? ids : [''] } }, transaction });
    await AssessorSector.bulkCreate(ids.map((sectorId) => ({ assessorId, sectorId })), { ignoreDuplicates: true, transaction });
    return ids;
  }
}

export type AssessorService = ReturnType<typeof createAssessorService>;

import { Op, type Transaction } from 'sequelize';
import { newId } from '../../platform/ids.ts';
import { valueAt, type JsonObject } from '../../platform/http/merge-patch.ts';
import { moderationWriter } from '../people/index.ts';
import type { AssessorService } from './service.ts';

/**
 * An assessor's profile and sectors as their onboarding makes them: the profile when they submit it,
 * and the sectors whenever it names them. Only sectors the catalogue has are kept (`knownSectorIds`).
 */
export function createAssessorSectors(
  assessors: AssessorService,
  knownSectorIds: (sectorIds: string[], transaction?: Transaction) => Promise<string[]>,
) {
  const { AssessorProfile, AssessorSector } = assessors.models;
  const profiles = moderationWriter(AssessorProfile);

  /** Replaces the assessor's sectors with the given ones that exist in the catalogue; answers those. */
  async function setSectors(assessorId: string, sectorIds: string[], transaction: Transaction): Promise<string[]> {
    const ids = await knownSectorIds(sectorIds, transaction);
    await AssessorSector.destroy({
      where: { assessorId, sectorId: { [Op.notIn]: ids.length ? ids : [''] } },
      transaction,
    });
    await AssessorSector.bulkCreate(
      ids.map((sectorId) => ({ assessorId, sectorId })),
      { ignoreDuplicates: true, transaction },
    );
    return ids;
  }

  /** The sectors follow the onboarding's `assessorDetails.sectorIds` when it names them (the settings screen saves them there). */
  async function followDraft(userId: string, draft: JsonObject, transaction: Transaction): Promise<void> {
    const sectorIds = valueAt(draft, 'assessorDetails.sectorIds');
    if (Array.isArray(sectorIds))
      await setSectors((await assessors.profileOf(userId, transaction)).id, sectorIds.map(String), transaction);
  }

  return {
    setSectors,
    followDraft,

    /**
     * The profile of a newly onboarded assessor, `pending` until an admin approves it, with the sectors
     * the onboarding named (those the catalogue has); in the submit's transaction.
     */
    async createForOwner(userId: string, draft: JsonObject, transaction: Transaction): Promise<void> {
      await profiles.create(transaction, 'sign_up', { id: newId(), userId }, { by: 'owner', ignoreDuplicates: true });
      await followDraft(userId, draft, transaction);
    },
  };
}

export type AssessorSectors = ReturnType<typeof createAssessorSectors>;

import type { Sequelize } from 'sequelize';
import { forbidden } from '../../../platform/http/errors.ts';
import { centreDraftPaths, type CentreFields, type CentreService } from '../service.ts';
import type { CentreContext } from '../../people/context/service.ts';
import { mergePatch, valueAt, type JsonObject } from '../../../platform/http/merge-patch.ts';
import type { OnboardingService } from '../../people/onboarding/service.ts';
import type { AssetUrls } from '../../../contracts/orchestrator-client.ts';
import type { UserService } from '../../people/service.ts';

/** One line for an address: its street, LGA, state and country, as given. */
function formatAddress(address: JsonObject | null): string | null {
  if (!address) return null;
  const parts = ['address', 'lga', 'state', 'country'].map((key) => address[key]).filter((part) => typeof part === 'string' && part.trim());
  return parts.length ? parts.join(', ') : null;
}

/**
 * The centre's profile (CentreProfile): the centre's record, who owns it and whether their identity
 * is verified, and the organisation onboarding it came from. Its owner's onboarding draft and the
 * centre are one record seen two ways: a profile change is written into the draft too, and a save
 * of the draft (the web client sends both in one click) reaches the centre (centres/service.ts).
 */
export function createCentreProfiles(sequelize: Sequelize, centres: CentreService, onboarding: OnboardingService, users: UserService, assetUrls: AssetUrls) {
  const { Centre } = centres.models;
  const { Onboarding } = onboarding.models;
  const { CapUser } = users.models;

  async function read(centreId: string) {
    const centre = (await Centre.findByPk(centreId))!;
    const [[owner, draft], urlOf] = await Promise.all([
      centre.createdBy
        ? Promise.all([
            CapUser.findByPk(centre.createdBy, { attributes: ['identityVerified'] }),
            Onboarding.findOne({ where: { userId: centre.createdBy, persona: 'centre' }, attributes: ['data'] }),
          ])
        : [null, null],
      assetUrls([centre.logoAssetId]),
    ]);
    return {
      id: centre.id,
      name: centre.name,
      registrationNo: centre.registrationNo,
      logoAssetId: centre.logoAssetId,
      logo: urlOf(centre.logoAssetId),
      status: centre.status,
      ownerIdentityVerified: owner?.identityVerified ?? false,
      address: centre.address,
      formattedAddress: formatAddress(centre.address),
      supportContact: centre.supportContact,
      accountDetails: centre.accountDetails,
      onboarding: (draft?.data as JsonObject | undefined) ?? null,
    };
  }

  return {
    read: (context: CentreContext) => read(context.centreId),

    /** Super admins only. Objects merge (null removes a field); the owner's draft takes the same change. */
    async update(context: CentreContext, patch: Partial<CentreFields>) {
      if (context.role !== 'super_admin') throw forbidden('centre.role_forbidden', 'Only a super admin of the centre can change its profile.');
      await sequelize.transaction(async (transaction) => {
        const centre = (await Centre.findByPk(context.centreId, { transaction, lock: transaction.LOCK.UPDATE }))!;
        const changes: Record<string, unknown> = {};
        const draftPatch: JsonObject = {};
        for (const [field, value] of Object.entries(patch) as Array<[keyof CentreFields, unknown]>) {
          const current = centre.get(field);
          changes[field] = value && typeof value === 'object' ? mergePatch((current as JsonObject | null) ?? {}, value as JsonObject) : value;
          const path = centreDraftPaths[field].split('.');
          let node = draftPatch;
          for (const key of path.slice(0, -1)) node = (node[key] ??= {}) as JsonObject;
          node[path.at(-1)!] = value as JsonObject;
        }
        await centre.update(changes, { transaction });
        const draft = centre.createdBy ? await Onboarding.findOne({ where: { userId: centre.createdBy, persona: 'centre' }, transaction, lock: transaction.LOCK.UPDATE }) : null;
        if (draft && valueAt(draft.data, 'variant') !== 'staff') {
          draft.data = mergePatch(draft.data, { centre: draftPatch }) as JsonObject;
          draft.changed('data', true);
          await draft.save({ transaction });
        }
      });
      return read(context.centreId);
    },
  };
}

export type CentreProfiles = ReturnType<typeof createCentreProfiles>;

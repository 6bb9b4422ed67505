import type { Sequelize } from 'sequelize';
import { forbidden } from '../../../platform/http/errors.ts';
import { centreDraftPaths, type CentreFields, type CentreService } from '../service.ts';
import type { CentreContext, People } from '../../people/index.ts';
import { mergePatch, valueAt, type JsonObject } from '../../../platform/http/merge-patch.ts';
import type { AssetUrls } from '../../../contracts/orchestrator-client.ts';

/** One line for an address: its street, LGA, state and country, as given. */
function formatAddress(address: JsonObject | null): string | null {
  if (!address) return null;
  const parts = ['address', 'lga', 'state', 'country']
    .map((key) => address[key])
    .filter((part) => typeof part === 'string' && part.trim());
  return parts.length ? parts.join(', ') : null;
}

/**
 * The centre's profile (CentreProfile): the centre's record, who owns it and whether their identity
 * is verified, and the organisation onboarding it came from. Its owner's onboarding draft and the
 * centre are one record seen two ways: a profile change is written into the draft too, and a save
 * of the draft (the web client sends both in one click) reaches the centre (centres/service.ts).
 */
export function createCentreProfiles(
  sequelize: Sequelize,
  centres: CentreService,
  people: Pick<People, 'users' | 'onboardings'>,
  assetUrls: AssetUrls,
) {
  const { Centre } = centres.models;

  async function read(centreId: string) {
    const centre = (await Centre.findByPk(centreId))!;
    const [[owner, draft], urlOf] = await Promise.all([
      centre.createdBy
        ? Promise.all([
            people.users.recordsOf([centre.createdBy]).then((found) => found.get(centre.createdBy!)),
            people.onboardings.dataOf(centre.createdBy, 'centre'),
          ])
        : [undefined, null],
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
      onboarding: draft,
    };
  }

  return {
    read: (context: CentreContext) => read(context.centreId),

    /** Super admins only. Objects merge (null removes a field); the owner's draft takes the same change. */
    async update(context: CentreContext, patch: Partial<CentreFields>) {
      if (context.role !== 'super_admin')
        throw forbidden('centre.role_forbidden', 'Only a super admin of the centre can change its profile.');
      await sequelize.transaction(async (transaction) => {
        const centre = (await Centre.findByPk(context.centreId, { transaction, lock: transaction.LOCK.UPDATE }))!;
        const changes: Record<string, unknown> = {};
        const draftPatch: JsonObject = {};
        for (const [field, value] of Object.entries(patch) as Array<[keyof CentreFields, unknown]>) {
          const current = centre.get(field);
          changes[field] =
            value && typeof value === 'object'
              ? mergePatch((current as JsonObject | null) ?? {}, value as JsonObject)
              : value;
          const path = centreDraftPaths[field].split('.');
          let node = draftPatch;
          for (const key of path.slice(0, -1)) node = (node[key] ??= {}) as JsonObject;
          node[path.at(-1)!] = value as JsonObject;
        }
        await centre.update(changes, { transaction });
        if (centre.createdBy) {
          await people.onboardings.patch(transaction, centre.createdBy, 'centre', (data) =>
            valueAt(data, 'variant') !== 'staff' ? { centre: draftPatch } : null,
          );
        }
      });
      return read(context.centreId);
    },
  };
}

export type CentreProfiles = ReturnType<typeof createCentreProfiles>;

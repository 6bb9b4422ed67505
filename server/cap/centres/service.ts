import {
  Op,
  QueryTypes,
  UniqueConstraintError,
  type CreationAttributes,
  type InferAttributes,
  type Sequelize,
  type Transaction,
} from 'sequelize';
import type { AssetUrls } from '../../contracts/orchestrator-client.ts';
import { conflict } from '../../platform/http/errors.ts';
import { Conditions, keysetInstances } from '../../platform/db/keyset.ts';
import { instancesOf, preparedReads } from '../../platform/db/prepared.ts';
import { pageRequest } from '../../platform/http/pagination.ts';
import { valueAt, type JsonObject } from '../../platform/http/merge-patch.ts';
import { membershipWriter, moderationWriter } from '../people/index.ts';
import { defineCentreModels, type Centre } from './models.ts';

export type CentreModels = ReturnType<typeof defineCentreModels>;

/** Where each field of a centre is in a centre onboarding draft (under `centre`). */
export const centreDraftPaths = {
  name: 'centreInformation.name',
  registrationNo: 'centreInformation.registrationNo',
  logoAssetId: 'centreInformation.logoAssetId',
  address: 'centreResidentialAddress',
  supportContact: 'centreSupportInformation',
  accountDetails: 'centreAccountDetails',
} as const;

export type CentreFields = Pick<InferAttributes<Centre>, keyof typeof centreDraftPaths>;

/** The centre's fields the draft holds (a blank logo is no logo). */
function centreFieldsOf(draft: JsonObject): Partial<CentreFields> {
  const fields: Record<string, unknown> = {};
  for (const [field, path] of Object.entries(centreDraftPaths)) {
    const value = valueAt(draft, `centre.${path}`);
    if (value !== undefined) fields[field] = field === 'logoAssetId' && value === '' ? null : value;
  }
  return fields as Partial<CentreFields>;
}

/** A registration number is one centre's: every path that creates or changes centres answers this 409 (the unique index decides races). */
async function ownRegistrationNo<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof UniqueConstraintError)
      throw conflict('centre.registration_taken', 'A centre with this registration number exists.');
    throw err;
  }
}

export function createCentreService(sequelize: Sequelize, assetUrls: AssetUrls) {
  const models = defineCentreModels(sequelize);
  const { Centre, CentreStaff } = models;
  const read = preparedReads(sequelize);
  /** The writers of the centres' moderation status and of their staff's membership status. */
  const moderated = moderationWriter(Centre);
  const staff = membershipWriter(CentreStaff);

  return {
    models,
    staff,

    /** A centre an admin registers (approved), in the caller's transaction; 409 `centre.registration_taken` when its number is another centre's. */
    register: (values: Omit<CreationAttributes<Centre>, 'status'>, transaction: Transaction) =>
      ownRegistrationNo(() => moderated.create(transaction, 'register', values, { by: 'admin' })),

    /**
     * The centre described by a completed centre onboarding draft, `pending` until an admin approves
     * it, with its owner as an active super_admin. Runs in the submit's transaction.
     */
    async createForOwner(owner: { userId: string; email: string }, draft: JsonObject, transaction: Transaction) {
      const name = ['firstName', 'lastName'].map((field) => valueAt(draft, `owner.personalDetails.${field}`)).join(' ');
      const centre = (await ownRegistrationNo(() =>
        moderated.create(
          transaction,
          'sign_up',
          { ...(centreFieldsOf(draft) as CentreFields), createdBy: owner.userId },
          { by: 'owner' },
        ),
      ))!;
      await staff.create(
        transaction,
        'admit',
        { centreId: centre.id, userId: owner.userId, name, email: owner.email.toLowerCase(), role: 'super_admin' },
        { by: 'owner' },
      );
      return centre;
    },

    /**
     * A save of the owner's completed centre onboarding (the centre settings screen) is the centre's
     * own record too: the centre takes whatever parts the draft has. Staff variants are no centre's.
     */
    async followOwnerDraft(userId: string, draft: JsonObject, transaction: Transaction) {
      if (draft.variant === 'staff') return;
      const centre = await Centre.findOne({
        where: { createdBy: userId },
        order: [['createdAt', 'ASC']],
        transaction,
        lock: transaction.LOCK.UPDATE,
      });
      if (centre) await ownRegistrationNo(() => centre.update(centreFieldsOf(draft), { transaction }));
    },

    /** Approved centres, oldest first, with their resolved logos (the public catalogue's `GET /centres`). */
    async approved(query: Record<string, unknown>) {
      const where = new Conditions().add(`x.status = 'approved'`);
      const { items, meta } = await keysetInstances(read, pageRequest(query), Centre, {
        from: 'cap.centres x',
        where,
        key: 'x.id',
        desc: false,
      });
      const urlOf = await assetUrls(items.map((c) => c.logoAssetId));
      return {
        items: items.map((c) => ({
          id: c.id,
          name: c.name,
          registrationNo: c.registrationNo,
          status: c.status,
          logoAssetId: c.logoAssetId,
          logo: urlOf(c.logoAssetId),
          address: c.address,
        })),
        meta,
      };
    },

    /** The centre (its name, status, address), or null for no such centre. */
    find: async (centreId: string, transaction?: Transaction) =>
      (await instancesOf(Centre, 'x.id = $1', [centreId], { transaction }))[0] ?? null,

    /** How many centres are approved now (the platform's figures). */
    approvedCount: () => Centre.count({ where: { status: 'approved' } }),

    /** The centres among `centreIds`, by name. */
    findAll: (centreIds: string[]) =>
      instancesOf(Centre, 'x.id = ANY($1)', [[...new Set(centreIds)]], { then: 'ORDER BY x.name ASC' }),

    /**
     * The centre's bank account, its row locked in the caller's transaction: money leaving the centre
     * (a withdrawal) is taken one at a time per centre.
     */
    async lockedAccount(
      centreId: string,
      transaction: Transaction,
    ): Promise<{ bank?: string; accountNo?: string } | null> {
      const [centre] = await sequelize.query<{ account_details: { bank?: string; accountNo?: string } | null }>(
        `SELECT account_details FROM cap.centres WHERE id = $1 FOR UPDATE`,
        { type: QueryTypes.SELECT, bind: [centreId], transaction },
      );
      return centre?.account_details ?? null;
    },

    /** Centres where the user is the only active super_admin: nobody would be left to run them. */
    async soleSuperAdminOf(userId: string) {
      const mine = await CentreStaff.findAll({
        where: { userId, role: 'super_admin', status: 'active' },
        include: [{ model: Centre, as: 'centre' }],
        order: [['createdAt', 'ASC']],
      });
      const sole = [];
      for (const membership of mine) {
        const others = await CentreStaff.count({
          where: { centreId: membership.centreId, role: 'super_admin', status: 'active', userId: { [Op.ne]: userId } },
        });
        if (others === 0) sole.push(membership.centre!);
      }
      return sole;
    },
  };
}

export type CentreService = ReturnType<typeof createCentreService>;

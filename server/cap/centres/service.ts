import { Op, type Sequelize, type Transaction } from 'sequelize';
import type { JsonObject } from '../vocabulary.ts';
import { valueAt } from '../merge-patch.ts';
import { defineCentreModels, type CentreStaff } from './models.ts';

export type CentreModels = ReturnType<typeof defineCentreModels>;

export function createCentreService(sequelize: Sequelize) {
  const models = defineCentreModels(sequelize);
  const { Centre, CentreStaff } = models;

  return {
    models,

    /**
     * The centre described by a completed centre onboarding draft, `pending` until an admin approves
     * it, with its owner as an active super_admin. Runs in the submit's transaction.
     */
    async createForOwner(owner: { userId: string; email: string }, draft: JsonObject, transaction: Transaction) {
      const part = (path: string) => (valueAt(draft, path) as JsonObject | undefined) ?? null;
      const name = ['firstName', 'lastName'].map((field) => valueAt(draft, `owner.personalDetails.${field}`)).join(' ');
      const centre = await Centre.create(
        {
          name: String(valueAt(draft, 'centre.centreInformation.name')),
          registrationNo: String(valueAt(draft, 'centre.centreInformation.registrationNo')),
          logoAssetId: (valueAt(draft, 'centre.centreInformation.logoAssetId') as string | undefined) ?? null,
          address: part('centre.centreResidentialAddress'),
          supportContact: part('centre.centreSupportInformation'),
          accountDetails: part('centre.centreAccountDetails'),
          createdBy: owner.userId,
        },
        { transaction },
      );
      await CentreStaff.create(
        { centreId: centre.id, userId: owner.userId, name, email: owner.email.toLowerCase(), role: 'super_admin', status: 'active' },
        { transaction },
      );
      return centre;
    },

    /** The user's memberships that are not inactive, with their centre, oldest first. */
    async membershipsOf(userId: string, statuses: CentreStaff['status'][] = ['active', 'pending']): Promise<CentreStaff[]> {
      return CentreStaff.findAll({
        where: { userId, status: { [Op.in]: statuses } },
        include: [{ model: Centre, as: 'centre' }],
        order: [['createdAt', 'ASC'], ['id', 'ASC']],
      });
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

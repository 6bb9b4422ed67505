import { Op, type Sequelize, type WhereOptions } from 'sequelize';
import { forbidden } from '../../platform/http/errors.ts';
import type { Handler } from '../../platform/http/operations.ts';
import { keysetPage, pageRequest } from '../../platform/http/pagination.ts';
import { newId } from '../../platform/ids.ts';
import type { Centre, CentreStaff } from '../centres/models.ts';
import type { CentreService } from '../centres/service.ts';
import type { StaffService } from '../staff/service.ts';
import type { CapAuth } from '../users/auth.ts';
import type { UserIdentity, UserService } from '../users/service.ts';
import type { JsonObject } from '../vocabulary.ts';
import { defineAdminModels } from './models.ts';
import { platformRoles, type Permission, type PlatformRole } from './roles.ts';

/** Platform role grants and the permissions they give. */
export function createPlatformRoles(sequelize: Sequelize, users: UserService) {
  const { PlatformRoleGrant } = defineAdminModels(sequelize);

  async function permissionsOf(userId: string): Promise<Set<Permission>> {
    const grants = await PlatformRoleGrant.findAll({ where: { userId } });
    return new Set(grants.flatMap((grant) => (platformRoles as Record<string, readonly Permission[]>)[grant.role] ?? []));
  }

  return {
    permissionsOf,

    /** Gives the user a role, creating their CapUser if CAP has not met them yet. Granting a held role changes nothing. */
    async grant(user: UserIdentity, role: PlatformRole): Promise<{ granted: boolean }> {
      return sequelize.transaction(async (transaction) => {
        await users.provision(user, transaction);
        const [, created] = await PlatformRoleGrant.findOrCreate({ where: { userId: user.userId, role }, transaction });
        return { granted: created };
      });
    },

    /** A handler that runs only for callers whose roles allow `permission` (403 `auth.permission_denied` otherwise). */
    allowed(auth: CapAuth, permission: Permission, handler: Handler): Handler {
      return async (call) => {
        if (!(await permissionsOf(auth.caller(call).userId)).has(permission)) {
          throw forbidden('auth.permission_denied', `This needs the platform permission ${permission}, which none of your roles gives.`);
        }
        return handler(call);
      };
    },
  };
}

export type PlatformRoles = ReturnType<typeof createPlatformRoles>;

export interface NewCentre {
  name: string;
  registrationNo: string;
  address?: JsonObject;
  superAdmin: { name: string; email: string };
}

/** A centre as the admins see it, with the super admin it was founded with. */
function adminCentreOf(centre: Centre, founder: CentreStaff | undefined) {
  return {
    id: centre.id,
    name: centre.name,
    registrationNo: centre.registrationNo,
    status: centre.status,
    logoAssetId: centre.logoAssetId,
    address: centre.address,
    createdAt: centre.createdAt.toISOString(),
    // Photos come with storage (a later issue).
    superAdmin: founder ? { userId: founder.userId, name: founder.name, email: founder.email, photo: null } : null,
  };
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, '\\$&');

/** The admins' side of centres: creating approved centres with their first super admin, and the list. */
export function createAdminCentres(centres: CentreService, staff: StaffService) {
  const { Centre, CentreStaff } = centres.models;

  /** The first super admin of each centre, by centre id. */
  async function foundersOf(centreIds: string[]): Promise<Map<string, CentreStaff>> {
    const rows = await CentreStaff.findAll({
      where: { centreId: { [Op.in]: centreIds }, role: 'super_admin' },
      order: [['createdAt', 'ASC'], ['id', 'ASC']],
    });
    const founders = new Map<string, CentreStaff>();
    for (const row of rows) if (!founders.has(row.centreId)) founders.set(row.centreId, row);
    return founders;
  }

  return {
    /**
     * An approved centre and the invitation of its super admin (ProvisionAccount mails a new account
     * its password). The centre is written with the staff row, only once the account exists.
     */
    async create(adminId: string, input: NewCentre) {
      const id = newId();
      const name = input.name.trim();
      await staff.enrol({ id, name }, { ...input.superAdmin, role: 'super_admin' }, (transaction) =>
        Centre.create(
          { id, name, registrationNo: input.registrationNo.trim(), address: input.address ?? null, status: 'approved', createdBy: adminId },
          { transaction },
        ),
      );
      const centre = (await Centre.findByPk(id))!;
      return adminCentreOf(centre, (await foundersOf([id])).get(id));
    },

    async list(query: { q?: string; cursor?: string; limit?: number }) {
      const where: WhereOptions = {};
      if (query.q) {
        const like = `%${escapeLike(query.q.trim())}%`;
        Object.assign(where, { [Op.or]: [{ name: { [Op.iLike]: like } }, { registrationNo: { [Op.iLike]: like } }] });
      }
      const { items, meta } = await keysetPage(Centre, pageRequest(query as Record<string, unknown>), { where });
      const founders = await foundersOf(items.map((centre) => centre.id));
      return { items: items.map((centre) => adminCentreOf(centre, founders.get(centre.id))), meta };
    },
  };
}

export type AdminCentres = ReturnType<typeof createAdminCentres>;

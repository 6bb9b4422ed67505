import type { Sequelize } from 'sequelize';
import { preparedReads } from '../../../platform/db/prepared.ts';
import { forbidden } from '../../../platform/http/errors.ts';
import type { CallInput, Handler } from '../../../platform/http/operations.ts';
import type { CapAuth } from '../auth.ts';
import type { UserIdentity, UserService } from '../service.ts';
import { defineAdminModels } from './models.ts';
import { platformRoles, type Permission, type PlatformRole } from './roles.ts';

/** Platform role grants and the permissions they give. */
export function createPlatformRoles(sequelize: Sequelize, users: Pick<UserService, 'provision'>) {
  const { PlatformRoleGrant } = defineAdminModels(sequelize);

  const read = preparedReads(sequelize);

  /** Read on every platform staff request: one prepared statement. */
  async function permissionsOf(userId: string): Promise<Set<Permission>> {
    const grants = await read<{ role: string }>(
      'cap.platform_role_grants_of',
      'SELECT role FROM cap.platform_role_grants WHERE user_id = $1',
      [userId],
    );
    return new Set(
      grants.flatMap((grant) => (platformRoles as Record<string, readonly Permission[]>)[grant.role] ?? []),
    );
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
    allowed<In extends CallInput>(auth: CapAuth, permission: Permission, handler: Handler<In>): Handler<In> {
      return async (call) => {
        if (!(await permissionsOf(auth.caller(call).userId)).has(permission)) {
          throw forbidden(
            'auth.permission_denied',
            `This needs the platform permission ${permission}, which none of your roles gives.`,
          );
        }
        return handler(call);
      };
    },
  };
}

export type PlatformRoles = ReturnType<typeof createPlatformRoles>;

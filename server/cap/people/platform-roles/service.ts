import { Op, type Sequelize } from 'sequelize';
import { upstreamFailure, type IdentityClient } from '../../../contracts/orchestrator-client.ts';
import { forbidden } from '../../../platform/http/errors.ts';
import type { CallInput, Handler } from '../../../platform/http/operations.ts';
import type { CapAuth } from '../auth.ts';
import type { UserIdentity, UserService } from '../service.ts';
import { defineAdminModels } from './models.ts';
import { platformRoles, type Permission, type PlatformRole } from './roles.ts';

/** Platform role grants and the permissions they give; with the Orchestrator's client, the accounts of addresses too. */
export function createPlatformRoles(
  sequelize: Sequelize,
  users: Pick<UserService, 'provision'>,
  orchestrator?: Pick<IdentityClient, 'findAccounts'>,
) {
  const { PlatformRoleGrant } = defineAdminModels(sequelize);

  /** Whether any of the roles gives the permission. */
  const gives = (roles: readonly string[], permission: Permission) =>
    roles.some((role) => (platformRoles as Record<string, readonly Permission[]>)[role]?.includes(permission));

  return {
    /** Gives the user a role, creating their CapUser if CAP has not met them yet. Granting a held role changes nothing. */
    async grant(user: UserIdentity, role: PlatformRole): Promise<{ granted: boolean }> {
      return sequelize.transaction(async (transaction) => {
        await users.provision(user, transaction);
        const [, created] = await PlatformRoleGrant.findOrCreate({ where: { userId: user.userId, role }, transaction });
        return { granted: created };
      });
    },

    /** The accounts of some addresses (the Orchestrator's, read over gRPC) with the platform roles each holds, in the order asked. */
    async accounts(emails: string[]) {
      let found;
      try {
        found = (await orchestrator!.findAccounts(emails)).accounts;
      } catch (err) {
        upstreamFailure(
          err,
          { unavailable: 'accounts.unavailable', failed: 'accounts.upstream_error' },
          'Reading the accounts',
        );
      }
      const grants = await PlatformRoleGrant.findAll({ where: { userId: { [Op.in]: found.map((a) => a.user_id) } } });
      const byEmail = new Map(found.map((a) => [a.email, a]));
      const asked = [...new Set(emails.map((email) => email.trim().toLowerCase()))];
      return asked.flatMap((email) => {
        const account = byEmail.get(email);
        if (!account) return [];
        return [
          {
            email,
            userId: account.user_id,
            status: account.status as 'pending_verification' | 'active' | 'suspended' | 'deactivated',
            mustChangePassword: account.must_change_password,
            platformRoles: grants.filter((g) => g.userId === account.user_id).map((g) => g.role as PlatformRole),
          },
        ];
      });
    },

    /** A handler that runs only for callers whose roles allow `permission` (403 `auth.permission_denied` otherwise). */
    allowed<In extends CallInput>(auth: CapAuth, permission: Permission, handler: Handler<In>): Handler<In> {
      return async (call) => {
        // The caller's roles are read with them (the caller statement), and kept with them until a grant changes.
        if (!gives(auth.standing(call).platformRoles, permission)) {
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

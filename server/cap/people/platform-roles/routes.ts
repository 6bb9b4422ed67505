import type { operations } from '../../../contracts/openapi/cap.ts';
import type { Handlers } from '../../../platform/http/operations.ts';
import { ok } from '../../../platform/http/reply.ts';
import type { CapAuth } from '../auth.ts';
import type { PlatformRoles } from './service.ts';

/** `POST /admin/accounts/lookup` (openapi/cap/admin-accounts.yaml). */
export function platformRoleRoutes(auth: CapAuth, roles: PlatformRoles): Handlers<operations> {
  return {
    lookupAdminAccounts: roles.allowed(auth, 'platform.accounts.read', async (call) =>
      ok(await roles.accounts(call.body.emails)),
    ),
  };
}

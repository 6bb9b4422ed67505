import type { Handler } from '../../platform/http/operations.ts';
import { created, ok } from '../../platform/http/reply.ts';
import type { CapAuth } from '../users/auth.ts';
import type { AdminCentres, PlatformRoles } from './service.ts';

/** `/admin/*`: authorised by platform permission, with no persona headers. */
export function adminRoutes(auth: CapAuth, roles: PlatformRoles, centres: AdminCentres): Record<string, Handler> {
  return {
    createAdminCentre: roles.allowed(auth, 'platform.centres.write', async (call) => created(await centres.create(auth.caller(call).userId, call.body))),
    listAdminCentres: roles.allowed(auth, 'platform.centres.read', async (call) => {
      const { items, meta } = await centres.list(call.query);
      return ok(items, { ...meta });
    }),
  };
}

import type { operations } from '../../../contracts/openapi/cap.ts';
import type { Handlers } from '../../../platform/http/operations.ts';
import { created, ok } from '../../../platform/http/reply.ts';
import { moderationRoutes, type CapAuth, type PlatformRoles } from '../../people/index.ts';
import type { AdminCentres } from './service.ts';

/** `/admin/centres*` (openapi/cap/admin-centres.yaml): authorised by platform permission, with no persona headers. */
export function adminCentreRoutes(auth: CapAuth, roles: PlatformRoles, centres: AdminCentres): Handlers<operations> {
  return {
    createAdminCentre: roles.allowed(auth, 'platform.centres.write', async (call) =>
      created(await centres.create(auth.caller(call).userId, call.body)),
    ),
    listAdminCentres: roles.allowed(auth, 'platform.centres.read', async (call) => {
      const { items, meta } = await centres.list(call.query);
      return ok(items, { ...meta });
    }),
    ...moderationRoutes('Centre', centres, 'platform.centres', (permission, handler) =>
      roles.allowed(auth, permission, handler),
    ),
  };
}

import type { operations } from '../../../contracts/openapi/cap.ts';
import type { Handlers } from '../../../platform/http/operations.ts';
import { ok } from '../../../platform/http/reply.ts';
import type { CapAuth, PlatformRoles } from '../../people/index.ts';
import type { AdminDashboard } from './service.ts';

/** `GET /admin/dashboard` (openapi/cap/admin-dashboard.yaml). */
export function adminDashboardRoutes(
  auth: CapAuth,
  roles: PlatformRoles,
  dashboard: AdminDashboard,
): Handlers<operations> {
  return {
    getAdminDashboard: roles.allowed(auth, 'platform.dashboard.read', async (call) =>
      ok(await dashboard.dashboard(call.query)),
    ),
  };
}

import type { Handler } from '../../../platform/http/operations.ts';
import { created, ok } from '../../../platform/http/reply.ts';
import type { CapAuth } from '../auth.ts';
import type { AdminAssessors } from '../../assessors/moderation.ts';
import type { AdminCentres } from '../../centres/moderation/service.ts';
import type { BulkAction } from './bulk.ts';
import type { ModerationAction } from './lifecycle.ts';
import type { PlatformRoles } from '../platform-roles/service.ts';

/** What the admins moderate offers the same operations. */
interface Moderation {
  summary(): Promise<object>;
  detail(id: string): Promise<object>;
  act(id: string, action: ModerationAction): Promise<object>;
  delete(id: string): Promise<object>;
  bulk(ids: string[], action: BulkAction): Promise<object[]>;
}

/** `/admin/*`: authorised by platform permission, with no persona headers. */
export function adminRoutes(auth: CapAuth, roles: PlatformRoles, centres: AdminCentres, assessors: AdminAssessors): Record<string, Handler> {
  /** The moderation operations of one kind (openapi/cap/admin-centres.yaml, admin-assessors.yaml), named alike. */
  const moderationRoutes = (noun: string, service: Moderation, permission: 'platform.centres' | 'platform.assessors'): Record<string, Handler> => {
    const read = (handler: Handler) => roles.allowed(auth, `${permission}.read`, handler);
    const write = (handler: Handler) => roles.allowed(auth, `${permission}.write`, handler);
    return {
      [`getAdmin${noun}sSummary`]: read(async () => ok(await service.summary())),
      [`getAdmin${noun}`]: read(async (call) => ok(await service.detail(call.params.id))),
      ...Object.fromEntries(
        (['approve', 'reject', 'suspend'] as const).map((action) => [`${action}Admin${noun}`, write(async (call) => ok(await service.act(call.params.id, action)))]),
      ),
      [`deleteAdmin${noun}`]: write(async (call) => ok(await service.delete(call.params.id))),
      [`bulkAdmin${noun}s`]: write(async (call) => ok(await service.bulk(call.body.ids, call.body.action))),
    };
  };
  return {
    createAdminCentre: roles.allowed(auth, 'platform.centres.write', async (call) => created(await centres.create(auth.caller(call).userId, call.body))),
    listAdminAssessors: roles.allowed(auth, 'platform.assessors.read', async (call) => {
      const { items, meta } = await assessors.list(call.query);
      return ok(items, { ...meta });
    }),
    ...moderationRoutes('Assessor', assessors, 'platform.assessors'),
    ...moderationRoutes('Centre', centres, 'platform.centres'),
    listAdminCentres: roles.allowed(auth, 'platform.centres.read', async (call) => {
      const { items, meta } = await centres.list(call.query);
      return ok(items, { ...meta });
    }),
  };
}

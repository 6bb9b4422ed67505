import type { Handler } from '../../../platform/http/operations.ts';
import { ok } from '../../../platform/http/reply.ts';
import type { Permission } from '../platform-roles/roles.ts';
import type { BulkAction } from './bulk.ts';
import type { ModerationAction } from './lifecycle.ts';

/** What the admins moderate (centres, assessor profiles) offers the same operations. */
export interface Moderated {
  summary(): Promise<object>;
  detail(id: string): Promise<object>;
  act(id: string, action: ModerationAction): Promise<object>;
  delete(id: string): Promise<object>;
  bulk(ids: string[], action: BulkAction): Promise<object[]>;
}

/**
 * The moderation operations of one kind (openapi/cap/admin-centres.yaml, admin-assessors.yaml), named
 * alike (`getAdminCentresSummary`, `approveAdminCentre`, ...): `/admin/*`, authorised by the platform
 * permission `<permission>.read` or `.write` (`allowed`), with no persona headers.
 */
export function moderationRoutes(
  noun: string,
  service: Moderated,
  permission: 'platform.centres' | 'platform.assessors',
  allowed: (permission: Permission, handler: Handler) => Handler,
): Record<string, Handler> {
  const read = (handler: Handler) => allowed(`${permission}.read`, handler);
  const write = (handler: Handler) => allowed(`${permission}.write`, handler);
  return {
    [`getAdmin${noun}sSummary`]: read(async () => ok(await service.summary())),
    [`getAdmin${noun}`]: read(async (call) => ok(await service.detail(call.params.id))),
    ...Object.fromEntries(
      (['approve', 'reject', 'suspend'] as const).map((action) => [
        `${action}Admin${noun}`,
        write(async (call) => ok(await service.act(call.params.id, action))),
      ]),
    ),
    [`deleteAdmin${noun}`]: write(async (call) => ok(await service.delete(call.params.id))),
    [`bulkAdmin${noun}s`]: write(async (call) => ok(await service.bulk(call.body.ids, call.body.action))),
  };
}

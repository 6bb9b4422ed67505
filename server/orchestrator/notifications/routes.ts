import type { Handler } from '../../platform/http/operations.ts';
import { ok } from '../../platform/http/reply.ts';
import type { Notifications } from './service.ts';

export function notificationRoutes(notifications: Notifications): Record<string, Handler> {
  return {
    listDevMailbox: async (call) => ok(await notifications.devMailbox(call.query.to, call.query.limit)),
  };
}

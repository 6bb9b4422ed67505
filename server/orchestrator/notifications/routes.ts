import type { operations } from '../../contracts/openapi/ol.ts';
import type { Call, Handlers } from '../../platform/http/operations.ts';
import { pageRequest } from '../../platform/http/pagination.ts';
import { ok } from '../../platform/http/reply.ts';
import type { Notifications } from './service.ts';

export function notificationRoutes(notifications: Notifications): Handlers<operations> {
  const me = (call: Call) => call.principal!.userId!;
  return {
    listDevMailbox: async (call) =>
      ok(
        await notifications.devMailbox(call.query.to, call.query.limit, {
          after: call.query.after,
          waitSeconds: call.query.waitSeconds,
        }),
      ),
    listDevSms: async (call) => ok(await notifications.devSms(call.query.to, call.query.limit)),
    listNotifications: async (call) => {
      const { items, meta } = await notifications.list(me(call), pageRequest(call.query), call.query);
      return ok(items, { ...meta });
    },
    getUnreadNotificationCount: async (call) => ok(await notifications.unreadCount(me(call))),
    markNotificationRead: async (call) => ok(await notifications.markRead(me(call), call.params.id)),
    markAllNotificationsRead: async (call) => ok(await notifications.markAllRead(me(call))),
    deleteNotification: async (call) => ok(await notifications.remove(me(call), call.params.id)),
    getNotificationPreferences: async (call) => ok(await notifications.preferences(me(call))),
    updateNotificationPreferences: async (call) => ok(await notifications.setPreferences(me(call), call.body)),
  };
}

import type { Handler } from '../../../platform/http/operations.ts';
import { ok } from '../../../platform/http/reply.ts';
import type { ActingContexts, CapAuth } from '../../people/index.ts';
import type { NotificationPolicies } from './service.ts';

export function notificationPolicyRoutes(auth: CapAuth, contexts: ActingContexts, policies: NotificationPolicies): Record<string, Handler> {
  return {
    getCentreNotificationPolicy: contexts.centre(async (_call, context) => ok(await policies.read(context))),
    replaceCentreNotificationPolicy: contexts.centre(async (call, context) => ok(await policies.replace(context, auth.caller(call).userId, call.body))),
    updateCentreNotificationPolicy: contexts.centre(async (call, context) => ok(await policies.update(context, auth.caller(call).userId, call.body))),
  };
}

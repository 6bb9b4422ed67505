import type { operations } from '../../../contracts/openapi/cap.ts';
import type { Handlers } from '../../../platform/http/operations.ts';
import { ok } from '../../../platform/http/reply.ts';
import type { ActingContexts, CapAuth } from '../../people/index.ts';
import type { NotificationPolicies } from './service.ts';

export function notificationPolicyRoutes(
  auth: CapAuth,
  contexts: ActingContexts,
  policies: NotificationPolicies,
): Handlers<operations> {
  return {
    getCentreNotificationPolicy: contexts.centre(async (_call, context) => ok(await policies.read(context))),
    replaceCentreNotificationPolicy: contexts.centre(async (call, context) =>
      ok(await policies.replace(context, auth.caller(call).userId, call.body)),
    ),
    updateCentreNotificationPolicy: contexts.centre(async (call, context) =>
      ok(await policies.update(context, auth.caller(call).userId, call.body)),
    ),
  };
}

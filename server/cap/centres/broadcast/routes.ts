import type { operations } from '../../../contracts/openapi/cap.ts';
import type { Handlers } from '../../../platform/http/operations.ts';
import { ok } from '../../../platform/http/reply.ts';
import type { ActingContexts, CapAuth } from '../../people/index.ts';
import type { Broadcasts } from './service.ts';

export function broadcastRoutes(auth: CapAuth, contexts: ActingContexts, broadcasts: Broadcasts): Handlers<operations> {
  return {
    broadcastToCentreGroup: contexts.centre(async (call, context) =>
      ok(await broadcasts.send(context, auth.caller(call).userId, call.body)),
    ),
  };
}

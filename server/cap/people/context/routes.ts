import type { Handler } from '../../../platform/http/operations.ts';
import { ok } from '../../../platform/http/reply.ts';
import type { ActingContexts } from './service.ts';

export function contextRoutes(contexts: ActingContexts): Record<string, Handler> {
  return {
    getActingContext: contexts.bound((_call, context) => ok(context)),
  };
}

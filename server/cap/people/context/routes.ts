import type { operations } from '../../../contracts/openapi/cap.ts';
import type { Handlers } from '../../../platform/http/operations.ts';
import { ok } from '../../../platform/http/reply.ts';
import type { ActingContexts } from './service.ts';

export function contextRoutes(contexts: ActingContexts): Handlers<operations> {
  return {
    getActingContext: contexts.bound((_call, context) => ok(context)),
  };
}

import type { operations } from '../../../contracts/openapi/cap.ts';
import type { Handlers } from '../../../platform/http/operations.ts';
import { ok } from '../../../platform/http/reply.ts';
import type { CapAuth } from '../auth.ts';
import type { IdentityService } from './service.ts';

export function identityRoutes(auth: CapAuth, identity: IdentityService): Handlers<operations> {
  return {
    verifyIdentity: async (call) => ok(await identity.verify(auth.caller(call), call.body)),
  };
}

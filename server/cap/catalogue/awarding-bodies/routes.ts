import type { operations } from '../../../contracts/openapi/cap.ts';
import type { Handlers } from '../../../platform/http/operations.ts';
import { created, ok } from '../../../platform/http/reply.ts';
import type { ActingContexts, CapAuth, PlatformRoles } from '../../people/index.ts';
import type { AwardingBodies } from './service.ts';

export function awardingBodyRoutes(
  auth: CapAuth,
  roles: PlatformRoles,
  contexts: ActingContexts,
  bodies: AwardingBodies,
): Handlers<operations> {
  return {
    createAdminAwardingBody: roles.allowed(auth, 'platform.awarding_bodies.write', async (call) =>
      created(await bodies.create(auth.caller(call).userId, call.body)),
    ),
    listAwardingBodies: async () => ok(await bodies.list()),
    setAdminTradeAwardingBody: roles.allowed(auth, 'platform.catalogue.write', async (call) =>
      ok(await bodies.setTradeAwardingBody(call.params.id, call.body.awardingBodyId)),
    ),
    inviteAwardingBodyStaff: contexts.as('awarding_body', async (call) =>
      created(await bodies.inviteStaff(auth.caller(call).userId, call.body)),
    ),
  };
}

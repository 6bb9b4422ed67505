import type { Handler } from '../../../platform/http/operations.ts';
import { created, ok } from '../../../platform/http/reply.ts';
import type { PlatformRoles } from '../../people/platform-roles/service.ts';
import type { ActingContexts } from '../../people/context/service.ts';
import type { CapAuth } from '../../people/auth.ts';
import type { AwardingBodies } from './service.ts';

export function awardingBodyRoutes(auth: CapAuth, roles: PlatformRoles, contexts: ActingContexts, bodies: AwardingBodies): Record<string, Handler> {
  return {
    createAdminAwardingBody: roles.allowed(auth, 'platform.awarding_bodies.write', async (call) => created(await bodies.create(auth.caller(call).userId, call.body))),
    listAwardingBodies: async () => ok(await bodies.list()),
    inviteAwardingBodyStaff: contexts.as('awarding_body', async (call) => created(await bodies.inviteStaff(auth.caller(call).userId, call.body))),
  };
}

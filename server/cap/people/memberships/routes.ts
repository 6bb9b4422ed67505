import type { operations } from '../../../contracts/openapi/cap.ts';
import type { Handlers } from '../../../platform/http/operations.ts';
import { ok } from '../../../platform/http/reply.ts';
import type { CapAuth } from '../auth.ts';
import type { Invitations } from './invitations.ts';

export function invitationRoutes(auth: CapAuth, invitations: Invitations): Handlers<operations> {
  return {
    listMyInvitations: async (call) => ok(await invitations.list(auth.caller(call).userId)),
    acceptInvitation: async (call) => ok(await invitations.accept(auth.caller(call).userId, call.params.id)),
    declineInvitation: async (call) => ok(await invitations.decline(auth.caller(call).userId, call.params.id)),
  };
}

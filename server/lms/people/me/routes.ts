import type { operations } from '../../../contracts/openapi/lms.ts';
import type { Handlers } from '../../../platform/http/operations.ts';
import { ok } from '../../../platform/http/reply.ts';
import type { Access } from '../access/service.ts';
import type { Onboarding } from '../onboarding/service.ts';
import type { Invites } from '../staff/invites.ts';
import type { Users } from '../users/service.ts';
import { describeMe } from './service.ts';

export function meRoutes(users: Users, onboarding: Onboarding, access: Access, invites: Invites): Handlers<operations> {
  return {
    getMe: async (call) => ok(await describeMe(await access.actor(call.principal!), onboarding, invites)),
    getMeProfile: async (call) => ok(users.profile(await users.actingUser(call.principal!))),
    patchMeProfile: async (call) => ok(await users.updateProfile(await users.actingUser(call.principal!), call.body)),
  };
}

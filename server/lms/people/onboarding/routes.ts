import type { operations } from '../../../contracts/openapi/lms.ts';
import type { Handlers } from '../../../platform/http/operations.ts';
import { created, ok } from '../../../platform/http/reply.ts';
import type { Users } from '../users/service.ts';
import type { Onboarding } from './service.ts';

export function onboardingRoutes(users: Users, onboarding: Onboarding): Handlers<operations> {
  return {
    postOnboardingStart: async (call) =>
      created(await onboarding.start(await users.actingUser(call.principal!), call.body.persona)),
    getOnboardingMine: async (call) => ok(await onboarding.mine(await users.actingUser(call.principal!))),
    getOnboardingPersona: async (call) =>
      ok(await onboarding.get(await users.actingUser(call.principal!), call.params.persona)),
    patchOnboardingPersonaSave: async (call) =>
      ok(await onboarding.save(await users.actingUser(call.principal!), call.params.persona, call.body)),
    postOnboardingPersonaSubmit: async (call) =>
      ok(await onboarding.submit(await users.actingUser(call.principal!), call.params.persona)),
  };
}

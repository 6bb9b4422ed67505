import type { Call, Handler } from '../../platform/http/operations.ts';
import { created, ok } from '../../platform/http/reply.ts';
import type { CapAuth } from '../users/auth.ts';
import type { OnboardingService } from './service.ts';

export function onboardingRoutes(auth: CapAuth, onboarding: OnboardingService): Record<string, Handler> {
  const userId = (call: Call) => auth.caller(call).userId;
  return {
    startOnboarding: async (call) => created(await onboarding.start(userId(call), call.body.persona)),
    listMyOnboardings: async (call) => ok(await onboarding.mine(userId(call))),
    getOnboarding: async (call) => ok(await onboarding.get(userId(call), call.params.persona)),
    // One documented operation per persona, so the document can describe each draft's shape.
    saveCandidateOnboarding: async (call) => ok(await onboarding.save(userId(call), 'candidate', call.body)),
    saveCentreOnboarding: async (call) => ok(await onboarding.save(userId(call), 'centre', call.body)),
    saveAssessorOnboarding: async (call) => ok(await onboarding.save(userId(call), 'assessor', call.body)),
    submitOnboarding: async (call) => ok(await onboarding.submit(userId(call), call.params.persona)),
  };
}

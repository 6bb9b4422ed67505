import type { operations } from '../../../contracts/openapi/cap.ts';
import type { Call, Handlers } from '../../../platform/http/operations.ts';
import { created, ok } from '../../../platform/http/reply.ts';
import type { CapAuth } from '../auth.ts';
import type { PassportPhotos } from './passport-photos.ts';
import type { OnboardingService } from './service.ts';

export function onboardingRoutes(
  auth: CapAuth,
  onboarding: OnboardingService,
  photos: PassportPhotos,
): Handlers<operations> {
  const userId = (call: Call) => auth.caller(call).userId;
  const save = (persona: 'candidate' | 'centre' | 'assessor') => async (call: Call) =>
    ok(
      await photos.withUrl(
        await onboarding.save(userId(call), persona, await photos.checkedPatch(auth.token(call), call.body)),
      ),
    );
  return {
    startOnboarding: async (call) => created(await onboarding.start(userId(call), call.body.persona)),
    listMyOnboardings: async (call) => ok(await onboarding.mine(userId(call))),
    getOnboarding: async (call) => ok(await photos.withUrl(await onboarding.get(userId(call), call.params.persona))),
    // One documented operation per persona, so the document can describe each draft's shape.
    saveCandidateOnboarding: save('candidate'),
    saveCentreOnboarding: save('centre'),
    saveAssessorOnboarding: save('assessor'),
    submitOnboarding: async (call) => ok(await onboarding.submit(userId(call), call.params.persona)),
  };
}

import type { Onboarding } from '../onboarding/service.ts';
import { capabilitiesOf } from '../onboarding/rules.ts';
import type { LmsUser } from '../users/models.ts';

/** The LmsMe view: the account's personas, their onboarding state, and what the completed ones allow. */
export async function describeMe(user: LmsUser, onboarding: Onboarding) {
  const personas = await onboarding.personaStatuses(user);
  const completed = personas.filter((p) => p.onboardingStatus === 'completed');
  return {
    lmsUserId: user.id,
    userId: user.userId,
    personas,
    instructorStatus: null, // instructor invites are a later issue
    capabilities: [...new Set(completed.flatMap((p) => capabilitiesOf[p.persona]))],
  };
}

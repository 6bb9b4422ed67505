import type { Actor } from '../access/service.ts';
import type { Onboarding } from '../onboarding/service.ts';
import type { Invites } from '../staff/invites.ts';

/** The LmsMe view: the account's personas, their onboarding state, its staff role and what it may do. */
export async function describeMe(actor: Actor, onboarding: Onboarding, invites: Invites) {
  const { user } = actor;
  const personas = await onboarding.personaStatuses(user);
  const instructorStatus = actor.personas.has('instructor')
    ? 'active'
    : (await invites.instructorInvited(user))
      ? 'invited'
      : null;
  return {
    lmsUserId: user.id,
    userId: user.userId,
    personas,
    ...(actor.staffRole ? { staffRole: actor.staffRole } : {}),
    instructorStatus,
    capabilities: [...actor.capabilities].sort(),
  };
}

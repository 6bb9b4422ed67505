import type { PlatformEvent } from '../../platform/events/types.ts';
import type { Module } from '../../platform/modules.ts';
import type { ServiceDeps } from '../../platform/service.ts';
import { createAccess } from './access/service.ts';
import { createIdentityClient } from './identity.ts';
import { meRoutes } from './me/routes.ts';
import { onboardingRoutes } from './onboarding/routes.ts';
import { createOnboarding } from './onboarding/service.ts';
import { createInvites } from './staff/invites.ts';
import { createUsers, type Account } from './users/service.ts';

/**
 * People: LMS users (one per Orchestrator account), their onboardings, staff and instructor invites
 * and memberships, and who a caller is (access). Answers its module and what other modules use.
 */
export function createPeople(deps: ServiceDeps) {
  const users = createUsers(deps.sequelize);
  const invites = createInvites(deps.sequelize, deps.events);
  const onboarding = createOnboarding(deps.sequelize, invites.accept);
  const access = createAccess(deps.sequelize, users, onboarding);
  const identity = createIdentityClient(() => deps.peers.olGrpcAddress(), deps.config.serviceApiKey);
  const module: Module = {
    handlers: { ...meRoutes(users, onboarding, access, invites), ...onboardingRoutes(users, onboarding) },
    subscriptions: [
      { type: 'user.created', consumer: 'lms.provision-user', handle: (event, transaction) => users.provision(accountOf(event), transaction) },
      { type: 'user.deleted', consumer: 'lms.deactivate-user', handle: (event, transaction) => users.deactivate(accountOf(event).userId, transaction) },
    ],
  };
  return { module, users, invites, onboarding, access, identity };
}

export type People = ReturnType<typeof createPeople>;

function accountOf(event: PlatformEvent): Account {
  const { userId, email } = event.data as { userId: string; email?: string };
  return { userId, email: email ?? null };
}

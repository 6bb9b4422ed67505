import { createCallerCache } from '../../platform/db/caller-cache.ts';
import type { PlatformEvent } from '../../platform/events/types.ts';
import type { ServiceModule } from '../../platform/modules.ts';
import type { ServiceDeps } from '../../platform/service.ts';
import { createAccess, type Actor } from './access/service.ts';
import { createIdentityClient } from './identity.ts';
import { meRoutes } from './me/routes.ts';
import { onboardingRoutes } from './onboarding/routes.ts';
import { createOnboarding } from './onboarding/service.ts';
import { createInvites } from './staff/invites.ts';
import { createUsers, type Account } from './users/service.ts';

/**
 * People: LMS users (one per Orchestrator account), their onboardings, staff and instructor invites
 * and memberships, and who a caller is (access, its callers kept between requests). Answers its
 * module and what other modules use.
 */
export function createPeople(deps: ServiceDeps) {
  const users = createUsers(deps.sequelize);
  const invites = createInvites(deps.sequelize, deps.events);
  const onboarding = createOnboarding(deps.sequelize, invites.accept);
  const callers = createCallerCache<Actor>(deps.sequelize, {
    schema: 'lms',
    logger: deps.logger.child({ component: 'lms-callers' }),
    database: deps.database,
  });
  const access = createAccess(deps.sequelize, users, onboarding, callers);
  const identity = createIdentityClient(() => deps.peers.olGrpcAddress(), deps.config.serviceApiKey);
  deps.events.subscribe('user.created', 'lms.provision-user', (event, transaction) =>
    users.provision(accountOf(event), transaction),
  );
  deps.events.subscribe('user.deleted', 'lms.deactivate-user', (event, transaction) =>
    users.deactivate(accountOf(event).userId, transaction),
  );
  const module: ServiceModule = {
    handlers: { ...meRoutes(users, onboarding, access, invites), ...onboardingRoutes(users, onboarding) },
    start: () => callers.start(),
    stop: () => callers.stop(),
    settled: () => callers.settled(),
  };
  return { module, users, invites, onboarding, access, identity };
}

export type People = ReturnType<typeof createPeople>;

function accountOf(event: PlatformEvent): Account {
  const { userId, email } = event.data as { userId: string; email?: string };
  return { userId, email: email ?? null };
}

// What other modules use of this one's inner files.
export type { Access, Actor } from './access/service.ts';
export type { IdentityClient } from './identity.ts';
export type { Onboarding } from './onboarding/service.ts';
export { createInvites } from './staff/invites.ts';
export type { Invites } from './staff/invites.ts';
export { defineStaffModels, membershipLifecycle } from './staff/models.ts';
export type { StaffMember, StaffRole } from './staff/models.ts';
export { defineUserModels } from './users/models.ts';
export type { LmsUser } from './users/models.ts';
export type { Users } from './users/service.ts';

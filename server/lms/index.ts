import { createBearerAuth } from '../platform/auth/bearer.ts';
import type { PlatformEvent } from '../platform/events/types.ts';
import type { Service, ServiceDeps } from '../platform/service.ts';
import { lmsProviderStateRoutes } from './dev/provider-states.ts';
import { meRoutes } from './me/routes.ts';
import { onboardingRoutes } from './onboarding/routes.ts';
import { createOnboarding } from './onboarding/service.ts';
import { createUsers, type Account } from './users/service.ts';

/** The LMS: courses, enrollments, the player and LMS certificates. */
export async function createLms(deps: ServiceDeps): Promise<Service> {
  const users = createUsers(deps.sequelize);
  const onboarding = createOnboarding(deps.sequelize);

  deps.events.subscribe('user.created', 'lms.provision-user', (event, transaction) => users.provision(accountOf(event), transaction));
  deps.events.subscribe('user.deleted', 'lms.deactivate-user', (event, transaction) => users.deactivate(accountOf(event).userId, transaction));

  return {
    name: 'lms',
    handlers: { ...meRoutes(users, onboarding), ...onboardingRoutes(users, onboarding), ...lmsProviderStateRoutes(deps) },
    security: {
      bearerAuth: createBearerAuth({
        jwksUrl: () => `${deps.peers.url('ol')}/.well-known/jwks.json`,
        issuer: deps.config.jwtIssuer,
        audience: deps.config.jwtAudience,
        allowedBeforePasswordChange: ['getMe'],
      }),
    },
  };
}

function accountOf(event: PlatformEvent): Account {
  const { userId, email } = event.data as { userId: string; email?: string };
  return { userId, email: email ?? null };
}

import { createBearerAuth } from '../platform/auth/bearer.ts';
import type { PlatformEvent } from '../platform/events/types.ts';
import type { Service, ServiceDeps } from '../platform/service.ts';
import { createAccess } from './access/service.ts';
import { authoringRoutes, catalogueRoutes } from './courses/routes.ts';
import { createCourseInstructors } from './courses/instructors.ts';
import { createCourses } from './courses/service.ts';
import { lmsProviderStateRoutes } from './dev/provider-states.ts';
import { meRoutes } from './me/routes.ts';
import { onboardingRoutes } from './onboarding/routes.ts';
import { createOnboarding } from './onboarding/service.ts';
import { createInvites } from './staff/invites.ts';
import { instructorRoutes, staffRoutes } from './staff/routes.ts';
import { createStaff } from './staff/service.ts';
import { createEntitlements } from './enrollments/entitlements.ts';
import { createIdentityClient } from './identity.ts';
import { learnerRoutes } from './learners/routes.ts';
import { createLearners } from './learners/service.ts';
import { createUsers, type Account } from './users/service.ts';

/** The LMS: courses, enrollments, the player and LMS certificates. */
export async function createLms(deps: ServiceDeps): Promise<Service> {
  const users = createUsers(deps.sequelize);
  const invites = createInvites(deps.sequelize, deps.events);
  const onboarding = createOnboarding(deps.sequelize, invites.accept);
  const access = createAccess(deps.sequelize, users, onboarding);
  const courses = createCourses(deps.sequelize);
  const courseInstructors = createCourseInstructors(deps.sequelize, access, courses);
  const entitlements = createEntitlements(deps.sequelize, deps.events);
  const staff = createStaff(deps.sequelize, entitlements);
  const identity = createIdentityClient(() => deps.peers.olGrpcAddress(), deps.config.serviceApiKey);
  const learners = createLearners(deps.sequelize, deps.events, users, onboarding, entitlements, identity);

  deps.events.subscribe('user.created', 'lms.provision-user', (event, transaction) => users.provision(accountOf(event), transaction));
  deps.events.subscribe('user.deleted', 'lms.deactivate-user', (event, transaction) => users.deactivate(accountOf(event).userId, transaction));

  return {
    name: 'lms',
    handlers: {
      ...meRoutes(users, onboarding, access, invites),
      ...onboardingRoutes(users, onboarding),
      ...lmsProviderStateRoutes(deps),
      ...catalogueRoutes(access, courses),
      ...authoringRoutes(access, courses),
      ...instructorRoutes(access, invites, courseInstructors),
      ...staffRoutes(access, invites, staff),
      ...learnerRoutes(access, learners),
    },
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

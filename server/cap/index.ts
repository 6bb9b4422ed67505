import { createBearerAuth } from '../platform/auth/bearer.ts';
import type { PlatformEvent } from '../platform/events/types.ts';
import type { Service, ServiceDeps } from '../platform/service.ts';
import { adminRoutes } from './admin/routes.ts';
import { createAdminCentres, createPlatformRoles } from './admin/service.ts';
import { createCentreService } from './centres/service.ts';
import { contextRoutes } from './context/routes.ts';
import { createActingContexts } from './context/service.ts';
import { capProviderStateRoutes } from './dev/provider-states.ts';
import { identityRoutes } from './identity/routes.ts';
import { createIdentityService } from './identity/service.ts';
import { onboardingRoutes } from './onboarding/routes.ts';
import { createOnboardingService } from './onboarding/service.ts';
import { createIdentityClient } from './orchestrator.ts';
import { staffRoutes } from './staff/routes.ts';
import { createStaffService } from './staff/service.ts';
import { createAccountService } from './users/account.ts';
import { createCapAuth } from './users/auth.ts';
import { userRoutes } from './users/routes.ts';
import { createUserService } from './users/service.ts';

/** The user.created / user.deleted data CAP reads. */
function userEventData(event: PlatformEvent): { userId: string; email?: string; intents?: string[] } {
  const { userId, email, intents } = event.data as { userId?: unknown; email?: unknown; intents?: unknown };
  if (typeof userId !== 'string') throw new Error(`${event.type} event ${event.id} carries no userId`);
  return {
    userId,
    email: typeof email === 'string' ? email : undefined,
    intents: Array.isArray(intents) ? intents.map(String) : undefined,
  };
}

/** CAP: the accreditation portal. */
export async function createCap(deps: ServiceDeps): Promise<Service> {
  const { sequelize, config, peers, events } = deps;
  const users = createUserService(sequelize);
  const centres = createCentreService(sequelize);
  const onboarding = createOnboardingService(sequelize, users, centres);
  const account = createAccountService(onboarding, centres);
  const contexts = createActingContexts(onboarding, centres);
  const orchestrator = createIdentityClient(() => peers.olGrpcAddress(), config.serviceApiKey);
  const identity = createIdentityService(users, onboarding, orchestrator);
  const staff = createStaffService(sequelize, users, centres, onboarding, orchestrator);
  const roles = createPlatformRoles(sequelize, users);
  const adminCentres = createAdminCentres(centres, staff);
  const auth = createCapAuth(
    users,
    createBearerAuth({
      jwksUrl: () => peers.url('ol') + '/.well-known/jwks.json',
      issuer: config.jwtIssuer,
      audience: config.jwtAudience,
    }),
    staff.admitFirstCall,
  );

  // Intents say which platforms a new account is for; someone who signed up for another platform
  // still gets a CapUser on their first CAP call.
  events.subscribe('user.created', 'cap.provision-user', async (event, transaction) => {
    const { userId, email, intents } = userEventData(event);
    if (intents && !intents.includes('cap')) return;
    await users.provision({ userId, email: email ?? '' }, transaction);
  });
  events.subscribe('user.deleted', 'cap.deactivate-user', async (event, transaction) => {
    await users.deactivate(userEventData(event), transaction);
  });

  return {
    name: 'cap',
    security: { bearerAuth: auth.scheme },
    handlers: {
      ...userRoutes(auth, users, account),
      ...onboardingRoutes(auth, onboarding),
      ...contextRoutes(contexts),
      ...identityRoutes(auth, identity),
      ...staffRoutes(auth, contexts, staff),
      ...adminRoutes(auth, roles, adminCentres),
      ...capProviderStateRoutes(deps),
    },
  };
}

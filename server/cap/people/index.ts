// The people module's face: the only file other modules import from it. People are CAP users (their
// account, auth and standing), their onboardings and identity checks, the acting context, memberships
// of organisations, platform roles, and the moderation every moderated thing shares.
// Tables: users, onboardings, platform_role_grants.
import type { Sequelize } from 'sequelize';
import { readUserEvent } from '../../contracts/user-events.ts';
import type { IdentityClient, OrchestratorHttp } from '../../contracts/orchestrator-client.ts';
import { createBearerAuth } from '../../platform/auth/bearer.ts';
import type { PlatformConfig } from '../../platform/config.ts';
import type { ServiceEvents } from '../../platform/events/types.ts';
import type { Logger } from '../../platform/logger.ts';
import type { Peers } from '../../platform/service.ts';
import { createAccountService } from './account.ts';
import { createCapAuth } from './auth.ts';
import { createCallerCache } from '../../platform/db/caller-cache.ts';
import type { DatabaseWatch } from '../../platform/db/watch.ts';
import { contextRoutes } from './context/routes.ts';
import { createActingContexts } from './context/service.ts';
import { identityRoutes } from './identity/routes.ts';
import { createIdentityService } from './identity/service.ts';
import { createInvitations, type MembershipKind } from './memberships/invitations.ts';
import { createMemberProvisioning } from './memberships/provision.ts';
import { invitationRoutes } from './memberships/routes.ts';
import { createPassportPhotos } from './onboarding/passport-photos.ts';
import { onboardingRoutes } from './onboarding/routes.ts';
import { createOnboardingService, type OnboardingHooks } from './onboarding/service.ts';
import type { PlatformRole } from './platform-roles/roles.ts';
import { platformRoleRoutes } from './platform-roles/routes.ts';
import { createPlatformRoles } from './platform-roles/service.ts';
import { userRoutes } from './routes.ts';
import { createUserService, type StandingSql } from './service.ts';
import type { Caller } from './models.ts';

export type { CapAuth } from './auth.ts';
export type { CapUserRecord, Standing } from './models.ts';
export type { ActingContext, ContextHeaders, Memberships } from './context/resolve.ts';
export type { ActingContexts, CentreContext } from './context/service.ts';
export { memberAttributes, type MemberRow, type MembershipKind } from './memberships/invitations.ts';
export { membershipWriter } from './memberships/lifecycle.ts';
export type { NewMember, ProvisionMember } from './memberships/provision.ts';
export { createModeration, type BulkAction } from './moderation/bulk.ts';
export { moderationWriter, operableStatuses, type ModerationAction } from './moderation/lifecycle.ts';
export { moderationRoutes } from './moderation/routes.ts';
export type { PassportPhotos } from './onboarding/passport-photos.ts';
export { addressFields, contactInformationFields, personalDetailsFields, under } from './onboarding/rules.ts';
export type { OnboardingHooks } from './onboarding/service.ts';
export { platformRoles, type Permission, type PlatformRole } from './platform-roles/roles.ts';
export type { PlatformRoles } from './platform-roles/service.ts';
export type { StandingSql, UserIdentity } from './service.ts';
export { peopleSql } from './sql.ts';
export { personas, type ModerationStatus, type OnboardingStatus, type Persona } from './vocabulary.ts';

export interface PeopleDeps {
  sequelize: Sequelize;
  config: PlatformConfig;
  peers: Peers;
  events: ServiceEvents;
  logger: Logger;
  /** Reports a database outage once and says when it is over (the caller cache listens again then). */
  database: DatabaseWatch;
  /** The Orchestrator's IdentityService (identity checks, accounts for new members). */
  identity: IdentityClient;
  files: Pick<OrchestratorHttp, 'assetUrls' | 'ownsAsset'>;
}

/** What the people module needs of the modules above it, read when a call needs it. */
export interface PeopleNeeds {
  /** What else happens when an onboarding is submitted, or saved after it was completed (centres, assessors). */
  onboarding: OnboardingHooks;
  /** Centres the user alone runs as an active super admin: they keep the account from being deleted (centres). */
  soleSuperAdminOf(userId: string): Promise<Array<{ name: string }>>;
  /** The organisations people join by membership (centres, awarding bodies). */
  memberships(): MembershipKind[];
  /** The caller's standing, from the modules that own it (centres, catalogue, assessors). */
  standing: StandingSql;
}

/**
 * The people module: its operations (GET /me, onboarding, identity checks, the acting context,
 * invitations), CAP's bearerAuth scheme, the callers it keeps between requests, its consumers of the
 * Orchestrator's user events, and what the other modules use: the caller and their acting context
 * (`auth`, `contexts`), platform permissions (`roles`), photos, member provisioning, and users'
 * records and onboardings.
 */
export function createPeople(deps: PeopleDeps, needs: PeopleNeeds) {
  const { sequelize, config, peers, events, logger } = deps;
  const callers = createCallerCache<Caller>(sequelize, {
    schema: 'cap',
    logger: logger.child({ component: 'cap-callers' }),
    database: deps.database,
  });
  const users = createUserService(sequelize, { standing: needs.standing, callers });
  const onboarding = createOnboardingService(sequelize, users, needs.onboarding);
  const account = createAccountService(needs.soleSuperAdminOf);
  // `auth` is made below; the acting context reads the standing it admitted, at call time.
  const contexts = createActingContexts((call) => auth.standing(call));
  const identity = createIdentityService(users, onboarding, deps.identity);
  const invitations = createInvitations(sequelize, users, needs.memberships);
  const roles = createPlatformRoles(sequelize, users, deps.identity);
  const photos = createPassportPhotos({ sequelize, assetUrls: deps.files.assetUrls, ownsAsset: deps.files.ownsAsset });
  const auth = createCapAuth(
    users,
    createBearerAuth({
      jwksUrl: () => peers.url('ol') + '/.well-known/jwks.json',
      issuer: config.jwtIssuer,
      audience: config.jwtAudience,
      allowedBeforePasswordChange: ['getMe'],
    }),
    invitations.firstCall,
  );

  // Intents say which platforms a new account is for; someone who signed up for another platform
  // still gets a CapUser on their first CAP call.
  events.subscribe('user.created', 'cap.provision-user', async (event, transaction) => {
    const { userId, email, intents } = readUserEvent(event);
    if (intents && !intents.includes('cap')) return;
    await users.provision({ userId, email: email ?? '' }, transaction);
  });
  events.subscribe('user.deleted', 'cap.deactivate-user', async (event, transaction) => {
    await users.deactivate(readUserEvent(event), transaction);
  });

  return {
    handlers: {
      ...userRoutes(auth, users, account),
      ...onboardingRoutes(auth, onboarding, photos),
      ...contextRoutes(contexts),
      ...identityRoutes(auth, identity),
      ...invitationRoutes(auth, invitations),
      ...platformRoleRoutes(auth, roles),
    },
    security: { bearerAuth: auth.scheme },
    start: () => callers.start(),
    stop: () => callers.stop(),
    settled: () => callers.settled(),

    auth,
    contexts,
    roles,
    photos,
    provisionMember: createMemberProvisioning(users, deps.identity),
    users: { recordsOf: users.recordsOf, signatureOf: users.signatureOf, setSignature: users.setSignature },
    onboardings: {
      dataOf: onboarding.dataOf,
      dataOfUsers: onboarding.dataOfUsers,
      patch: onboarding.patch,
      remove: onboarding.remove,
      completeAsStaff: onboarding.completeAsStaff,
    },
  };
}

export type People = ReturnType<typeof createPeople>;

/**
 * Grants a platform role straight in the CAP schema (`sequelize`), creating the CapUser when CAP has not
 * met them: what capctl's operator face does to make the first platform admin (no API grants a role).
 */
export async function grantPlatformRole(
  sequelize: Sequelize,
  user: { userId: string; email: string },
  role: PlatformRole,
) {
  return createPlatformRoles(sequelize, createUserService(sequelize)).grant(user, role);
}

import { createBearerAuth } from '../platform/auth/bearer.ts';
import type { PlatformEvent } from '../platform/events/types.ts';
import type { Service, ServiceDeps } from '../platform/service.ts';
import { adminRoutes } from './admin/routes.ts';
import { createAdminAssessors } from './admin/assessors.ts';
import { createAdminCentres } from './admin/centres.ts';
import { createAssessorService } from './assessors/service.ts';
import { createAssessorCards } from './assessors/people.ts';
import { createRetainedRequests } from './assessors/retained.ts';
import { createRoster } from './assessors/roster.ts';
import { createJobPostings } from './assessors/postings.ts';
import { createAssessorConsole } from './assessors/console.ts';
import { assessorMarketRoutes } from './assessors/routes.ts';
import { broadcastRoutes } from './broadcast/routes.ts';
import { createBroadcasts } from './broadcast/service.ts';
import { applicationRoutes } from './applications/routes.ts';
import { createApplications } from './applications/service.ts';
import { candidateRoutes } from './candidate/routes.ts';
import { createCandidateArea } from './candidate/service.ts';
import { catalogueRoutes } from './catalogue/routes.ts';
import { centreDashboardRoutes } from './centre-dashboard/routes.ts';
import { createCentreDashboard } from './centre-dashboard/service.ts';
import { capPaymentRoutes } from './payments/routes.ts';
import { createCapPayments } from './payments/service.ts';
import { readPaymentCompleted } from '../platform/events/payment-completed.ts';
import { devEventsHandler } from '../platform/events/dev-events.ts';
import { createCatalogue } from './catalogue/service.ts';
import { platformConfigRoutes } from './platform-config/routes.ts';
import { createPlatformConfig } from './platform-config/service.ts';
import { centreProfileRoutes } from './centre-profile/routes.ts';
import { createCentreProfiles } from './centre-profile/service.ts';
import { awardingBodyRoutes } from './awarding-bodies/routes.ts';
import { createAwardingBodies } from './awarding-bodies/service.ts';
import { createInvitations } from './memberships/invitations.ts';
import { createMemberProvisioning } from './memberships/provision.ts';
import { invitationRoutes } from './memberships/routes.ts';
import { createPlatformRoles } from './admin/service.ts';
import { createCentreService } from './centres/service.ts';
import { contextRoutes } from './context/routes.ts';
import { createActingContexts } from './context/service.ts';
import { capProviderStateRoutes } from './dev/provider-states.ts';
import { directoryRoutes } from './directory/routes.ts';
import { createDirectory } from './directory/service.ts';
import { identityRoutes } from './identity/routes.ts';
import { createIdentityService } from './identity/service.ts';
import { notificationPolicyRoutes } from './notification-policy/routes.ts';
import { createNotificationPolicies } from './notification-policy/service.ts';
import { createPassportPhotos } from './onboarding/passport-photos.ts';
import { onboardingRoutes } from './onboarding/routes.ts';
import { createOnboardingService } from './onboarding/service.ts';
import { createIdentityClient, createOrchestratorHttp, createPaymentsClient } from './orchestrator.ts';
import { staffApplicationRoutes, staffRoutes } from './staff/routes.ts';
import { adminDashboardRoutes } from './admin-dashboard/routes.ts';
import { createAdminDashboard } from './admin-dashboard/service.ts';
import { templateRoutes } from './templates/routes.ts';
import { createTemplates } from './templates/service.ts';
import { createStaffService } from './staff/service.ts';
import { createAccountService } from './users/account.ts';
import { createCapAuth } from './users/auth.ts';
import { userRoutes } from './users/routes.ts';
import { createUserService } from './users/service.ts';
import { createCallerCache } from './users/callers.ts';
import { evidenceRoutes } from './evidence/routes.ts';
import { createEvidence } from './evidence/service.ts';
import { interviewRoutes } from './interviews/routes.ts';
import { createInterviews } from './interviews/service.ts';
import { createRecommendationsClient } from './lms.ts';
import { nsqRoutes } from './nsq/routes.ts';
import { createNsqPaths } from './nsq/service.ts';
import { sharingRoutes } from './sharing/routes.ts';
import { verificationRoutes } from './verification/routes.ts';
import { createVerification } from './verification/service.ts';
import { createSharing } from './sharing/service.ts';

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
  const { sequelize, config, peers, events, logger } = deps;
  const callers = createCallerCache(sequelize, logger.child({ component: 'cap-callers' }), deps.database);
  const users = createUserService(sequelize, callers);
  const centres = createCentreService(sequelize);
  const assessors = createAssessorService(sequelize);
  const onboarding = createOnboardingService(sequelize, users, {
    submitted: {
      centre: (owner, draft, transaction) => centres.createForOwner(owner, draft, transaction),
      assessor: (owner, draft, transaction) => assessors.createForOwner(owner.userId, draft, transaction),
    },
    savedAfterCompletion: {
      centre: (owner, draft, transaction) => centres.followOwnerDraft(owner.userId, draft, transaction),
      assessor: (owner, draft, transaction) => assessors.followDraft(owner.userId, draft, transaction),
    },
  });
  const account = createAccountService(centres);
  // `auth` is made below; the acting context reads the standing it admitted, at call time.
  const contexts = createActingContexts((call) => auth.standing(call));
  const orchestrator = createIdentityClient(() => peers.olGrpcAddress(), config.serviceApiKey);
  const orchestratorHttp = createOrchestratorHttp(() => peers.url('ol'), config.serviceApiKey, logger.child({ component: 'orchestrator-http' }));
  const identity = createIdentityService(users, onboarding, orchestrator);
  const provisionMember = createMemberProvisioning(users, orchestrator);
  const staff = createStaffService(sequelize, users, centres, onboarding, provisionMember);
  const awardingBodies = createAwardingBodies(sequelize, provisionMember, orchestratorHttp.assetUrls);
  const invitations = createInvitations(sequelize, users, [staff.membershipKind, awardingBodies.membershipKind]);
  const roles = createPlatformRoles(sequelize, users);
  const photos = createPassportPhotos({ sequelize, assetUrls: orchestratorHttp.assetUrls, ownsAsset: orchestratorHttp.ownsAsset });
  const adminCentres = createAdminCentres(centres, staff, orchestratorHttp.assetUrls, photos);
  const centreProfiles = createCentreProfiles(sequelize, centres, onboarding, users, orchestratorHttp.assetUrls);
  const platformConfig = createPlatformConfig(sequelize);
  const catalogue = createCatalogue(sequelize, centres.models, orchestratorHttp.assetUrls);
  const assessorCards = createAssessorCards(sequelize, orchestratorHttp.assetUrls);
  const applications = createApplications({ sequelize, events, assignments: assessors.assignments, assessorCards, centreCertifyBypass: config.centreCertifyBypass, users, onboarding, catalogue: catalogue.models, centres: centres.models, photos });
  const assessorMarket = {
    retained: createRetainedRequests(sequelize, assessors, centres.models, assessorCards),
    roster: createRoster(sequelize, assessorCards, applications),
    postings: createJobPostings(sequelize, assessors, catalogue.models, centres.models, assessorCards),
    console: createAssessorConsole({ sequelize, assessors, onboarding, catalogue: catalogue.models, centres: centres.models, applications, cards: assessorCards }),
  };
  const candidateArea = createCandidateArea({ sequelize, users, onboarding, applications, assetUrls: orchestratorHttp.assetUrls, ownsAsset: orchestratorHttp.ownsAsset });
  const payments = createCapPayments({
    sequelize,
    applications,
    platformConfig,
    payments: createPaymentsClient(() => peers.olGrpcAddress(), config.serviceApiKey),
    logger: deps.logger.child({ component: 'cap-payments' }),
  });
  const evidence = createEvidence({ sequelize, applications, catalogue: catalogue.models, onboarding, assetUrls: orchestratorHttp.assetUrls, ownsAsset: orchestratorHttp.ownsAsset });
  const verification = createVerification({
    sequelize,
    applications,
    evidence,
    assignments: assessors.assignments,
    assessorModels: assessors.models,
    catalogue: catalogue.models,
    orchestrator: orchestratorHttp,
    baseUrl: () => peers.url('cap'),
  });
  const sharing = createSharing({ sequelize, applications, evidence, readAsset: orchestratorHttp.readAsset, baseUrl: () => peers.url('cap'), extras: verification.sharedCertificate });
  const adminAssessors = createAdminAssessors(assessors, onboarding, users, photos);
  const directory = createDirectory(sequelize);
  const broadcasts = createBroadcasts(centres, orchestratorHttp.broadcast);
  const notificationPolicies = createNotificationPolicies(sequelize, centres);
  const interviews = createInterviews({
    sequelize,
    applications,
    assessors,
    catalogue: catalogue.models,
    centres: centres.models,
    assessorCards,
    ownsAsset: orchestratorHttp.ownsAsset,
    recommendations: createRecommendationsClient(() => peers.lmsGrpcAddress(), config.serviceApiKey),
    logger: logger.child({ component: 'cap-interviews' }),
  });
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
    const { userId, email, intents } = userEventData(event);
    if (intents && !intents.includes('cap')) return;
    await users.provision({ userId, email: email ?? '' }, transaction);
  });
  events.subscribe('payment.completed', 'cap.application-paid', async (event, transaction) => {
    const data = readPaymentCompleted(event.data);
    if (data.purpose === 'cap_application') await payments.completed(data, transaction);
  });
  events.subscribe('payment.failed', 'cap.application-payment-failed', async (event, transaction) => {
    const { paymentId, purpose } = event.data as { paymentId?: unknown; purpose?: unknown };
    if (typeof paymentId !== 'string') throw new Error(`payment.failed event ${event.id} carries no paymentId`);
    if (purpose === 'cap_application') await payments.failed(paymentId, transaction);
  });
  // The centre's notification policy says who hears of a submitted application.
  events.subscribe('application.submitted', 'cap.notify-centre', async (event, transaction) => {
    const data = event.data as { applicationId: string; centreId: string; type: string };
    await notificationPolicies.announceSubmitted(data, transaction, (t, request) => events.publish(t, 'notification.requested', request));
  });
  events.subscribe('user.deleted', 'cap.deactivate-user', async (event, transaction) => {
    await users.deactivate(userEventData(event), transaction);
  });

  return {
    name: 'cap',
    security: { bearerAuth: auth.scheme },
    handlers: {
      ...userRoutes(auth, users, account),
      ...onboardingRoutes(auth, onboarding, photos),
      ...contextRoutes(contexts),
      ...identityRoutes(auth, identity),
      ...staffRoutes(auth, contexts, staff),
      ...adminRoutes(auth, roles, adminCentres, adminAssessors),
      ...awardingBodyRoutes(auth, roles, contexts, awardingBodies),
      ...invitationRoutes(auth, invitations),
      ...centreProfileRoutes(contexts, centreProfiles),
      ...directoryRoutes(contexts, directory),
      ...broadcastRoutes(auth, contexts, broadcasts),
      ...notificationPolicyRoutes(auth, contexts, notificationPolicies),
      ...platformConfigRoutes(auth, roles, platformConfig),
      ...catalogueRoutes(auth, roles, catalogue),
      ...applicationRoutes(auth, contexts, applications),
      ...capPaymentRoutes(auth, contexts, roles, payments),
      ...candidateRoutes(auth, contexts, candidateArea),
      ...centreDashboardRoutes(contexts, createCentreDashboard(sequelize)),
      ...evidenceRoutes(auth, contexts, evidence),
      ...interviewRoutes(auth, contexts, interviews),
      ...nsqRoutes(auth, contexts, createNsqPaths({ sequelize, applications, assessors, assessorCards, catalogue: catalogue.models, ownsAsset: orchestratorHttp.ownsAsset })),
      ...sharingRoutes(auth, contexts, sharing),
      ...verificationRoutes(auth, roles, contexts, verification),
      ...assessorMarketRoutes(auth, contexts, assessorMarket),
      ...capProviderStateRoutes(deps),
      listDevEvents: devEventsHandler(sequelize, 'cap', config.devMode),
      ...staffApplicationRoutes(auth, contexts, staff, applications),
      ...adminDashboardRoutes(auth, roles, createAdminDashboard(sequelize)),
      ...templateRoutes(auth, roles, createTemplates({ sequelize, assetUrls: orchestratorHttp.assetUrls, ownsAsset: orchestratorHttp.ownsAsset })),
    },
    start: () => callers.start(),
    settled: () => callers.settled(),
    async stop() {
      await callers.stop();
      await orchestratorHttp.close();
    },
  };
}

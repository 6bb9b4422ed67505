import { createBearerAuth } from '../platform/auth/bearer.ts';
import { readUserEvent } from '../contracts/user-events.ts';
import type { Service, ServiceDeps } from '../platform/service.ts';
import { adminRoutes } from './people/moderation/routes.ts';
import { createAdminAssessors } from './assessors/moderation.ts';
import { createAdminCentres } from './centres/moderation/service.ts';
import { createAssessorService } from './assessors/service.ts';
import { createAssessorCards } from './assessors/people.ts';
import { createRetainedRequests } from './assessors/retained.ts';
import { createRoster } from './assessors/roster.ts';
import { createJobPostings } from './assessors/postings.ts';
import { createAssessorConsole } from './assessors/console.ts';
import { assessorMarketRoutes } from './assessors/routes.ts';
import { broadcastRoutes } from './centres/broadcast/routes.ts';
import { createBroadcasts } from './centres/broadcast/service.ts';
import { applicationRoutes } from './applications/routes.ts';
import { createApplications } from './applications/service.ts';
import { candidateRoutes } from './applications/candidate/routes.ts';
import { createCandidateArea } from './applications/candidate/service.ts';
import { catalogueRoutes } from './catalogue/routes.ts';
import { centreDashboardRoutes } from './centres/figures/routes.ts';
import { createCentreDashboard } from './centres/figures/service.ts';
import { capPaymentRoutes } from './applications/payments/routes.ts';
import { createCapPayments } from './applications/payments/service.ts';
import { readPaymentCompleted } from '../contracts/payment-completed.ts';
import { devEventsHandler } from '../platform/events/dev-events.ts';
import { createCatalogue } from './catalogue/service.ts';
import { platformConfigRoutes } from './catalogue/platform-config/routes.ts';
import { createPlatformConfig } from './catalogue/platform-config/service.ts';
import { centreProfileRoutes } from './centres/profile/routes.ts';
import { createCentreProfiles } from './centres/profile/service.ts';
import { awardingBodyRoutes } from './catalogue/awarding-bodies/routes.ts';
import { createAwardingBodies } from './catalogue/awarding-bodies/service.ts';
import { createInvitations } from './people/memberships/invitations.ts';
import { createMemberProvisioning } from './people/memberships/provision.ts';
import { invitationRoutes } from './people/memberships/routes.ts';
import { createPlatformRoles } from './people/platform-roles/service.ts';
import { createCentreService } from './centres/service.ts';
import { contextRoutes } from './people/context/routes.ts';
import { createActingContexts } from './people/context/service.ts';
import { capProviderStateRoutes } from './operator/provider-states.ts';
import { directoryRoutes } from './centres/directory/routes.ts';
import { createDirectory } from './centres/directory/service.ts';
import { identityRoutes } from './people/identity/routes.ts';
import { createIdentityService } from './people/identity/service.ts';
import { notificationPolicyRoutes } from './centres/notification-policy/routes.ts';
import { createNotificationPolicies } from './centres/notification-policy/service.ts';
import { createPassportPhotos } from './people/onboarding/passport-photos.ts';
import { onboardingRoutes } from './people/onboarding/routes.ts';
import { createOnboardingService } from './people/onboarding/service.ts';
import { createIdentityClient, createOrchestratorHttp, createPaymentsClient } from '../contracts/orchestrator-client.ts';
import { staffApplicationRoutes, staffRoutes } from './centres/staff/routes.ts';
import { adminDashboardRoutes } from './applications/figures/routes.ts';
import { createAdminDashboard } from './applications/figures/service.ts';
import { templateRoutes } from './catalogue/templates/routes.ts';
import { createTemplates } from './catalogue/templates/service.ts';
import { createStaffService } from './centres/staff/service.ts';
import { createAccountService } from './people/account.ts';
import { createCapAuth } from './people/auth.ts';
import { userRoutes } from './people/routes.ts';
import { createUserService } from './people/service.ts';
import { createCallerCache } from './people/callers.ts';
import { evidenceRoutes } from './applications/evidence/routes.ts';
import { createEvidence } from './applications/evidence/service.ts';
import { interviewRoutes } from './applications/interviews/routes.ts';
import { createInterviews } from './applications/interviews/service.ts';
import { createRecommendationsClient } from '../contracts/lms-client.ts';
import { nsqRoutes } from './applications/nsq/routes.ts';
import { createNsqPaths } from './applications/nsq/service.ts';
import { sharingRoutes } from './applications/sharing/routes.ts';
import { verificationRoutes } from './applications/verification/routes.ts';
import { createVerification } from './applications/verification/service.ts';
import { createSharing } from './applications/sharing/service.ts';

/** CAP: the accreditation portal. */
export async function createCap(deps: ServiceDeps): Promise<Service> {
  const { sequelize, config, peers, events, logger } = deps;
  const callers = createCallerCache(sequelize, logger.child({ component: 'cap-callers' }));
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
    const { userId, email, intents } = readUserEvent(event);
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
    await users.deactivate(readUserEvent(event), transaction);
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

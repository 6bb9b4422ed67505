import { createRecommendationsClient } from '../contracts/lms-client.ts';
import {
  createIdentityClient,
  createOrchestratorHttp,
  createPaymentsClient,
} from '../contracts/orchestrator-client.ts';
import { devEventsHandler } from '../platform/events/dev-events.ts';
import { originAllowed } from '../platform/http/browser.ts';
import { composeModules } from '../platform/modules.ts';
import type { Service, ServiceDeps } from '../platform/service.ts';
import { applicationsSql, applicationTypes, createApplications, stageLabels, stagesOf } from './applications/index.ts';
import { assessorsSql, createAssessors } from './assessors/index.ts';
import { catalogueSql, createCatalogue } from './catalogue/index.ts';
import { centresSql, createCentres } from './centres/index.ts';
import { capProviderStateRoutes } from './operator/provider-states.ts';
import { createPeople } from './people/index.ts';

/**
 * CAP: the accreditation portal, five modules built bottom up (people, catalogue, centres, assessors,
 * applications). Each takes the modules below it; what a module needs of the ones above it is read
 * when a call needs it, so the arrows below point up only inside functions.
 */
export async function createCap(deps: ServiceDeps): Promise<Service> {
  const { sequelize, config, peers, events, logger } = deps;
  const orchestrator = createOrchestratorHttp(
    () => peers.url('ol'),
    config.serviceApiKey,
    logger.child({ component: 'orchestrator-http' }),
  );
  const identity = createIdentityClient(() => peers.olGrpcAddress(), config.serviceApiKey);

  const people = createPeople(
    { ...deps, identity, files: orchestrator },
    {
      onboarding: {
        submitted: {
          centre: (owner, draft, transaction) => centres.createForOwner(owner, draft, transaction),
          assessor: (owner, draft, transaction) => assessors.createForOwner(owner.userId, draft, transaction),
        },
        savedAfterCompletion: {
          centre: (owner, draft, transaction) => centres.followOwnerDraft(owner.userId, draft, transaction),
          assessor: (owner, draft, transaction) => assessors.followDraft(owner.userId, draft, transaction),
        },
      },
      soleSuperAdminOf: (userId) => centres.soleSuperAdminOf(userId),
      memberships: () => [centres.membershipKind, catalogue.awardingBodies.membershipKind],
      standing: {
        centres: centresSql.standing,
        awardingBody: catalogueSql.standingAwardingBody,
        awardingBodyActive: catalogueSql.standingAwardingBodyActive,
        assessorStatus: assessorsSql.standing,
      },
    },
  );
  const catalogue = createCatalogue(
    { sequelize, files: orchestrator },
    {
      people,
      lifecycle: { applicationTypes, stagesOf, stageLabels },
      applicationCountOf: (tradeId) => applications.tradeApplicationCount(tradeId),
    },
  );
  const centres = createCentres(
    { sequelize, events, files: orchestrator, broadcast: orchestrator.broadcast },
    {
      people,
      dealings: {
        inUse: async (centreId, transaction) =>
          (await applications.centreInUse(centreId, transaction)) ||
          (await assessors.centreInUse(centreId, transaction)),
        applicationsOf: (centreId) => applications.ofCentre(centreId),
        retainedAssessorsOf: (centreId) => assessors.retainedAssessorsOf(centreId),
      },
      audiences: {
        candidatesOf: (centreId, senderId, tradeId) => applications.candidatesOf(centreId, senderId, tradeId),
        assessorsOf: (centreId, senderId) => assessors.retainedUsersOf(centreId, senderId),
      },
      figures: {
        applications: (centreId, year, type) => applications.centreFigures(centreId, year, type),
        retainedCount: (centreId) => assessors.retainedCount(centreId),
      },
      directory: { candidates: applicationsSql.candidatesOf, assessors: assessorsSql.retainedBy },
      workloadOf: (centreId, userId) => applications.workloadOf(centreId, userId),
    },
  );
  const assessors = createAssessors(
    { sequelize, files: orchestrator, events },
    {
      people,
      catalogue,
      centres,
      applications: {
        list: (viewer, query) => applications.list(viewer, query),
        presentByIds: (ids) => applications.presentByIds(ids),
        statesOf: (ids) => applications.statesOf(ids),
      },
    },
  );
  const applications = createApplications(
    {
      sequelize,
      events,
      logger,
      centreCertifyBypass: config.centreCertifyBypass,
      baseUrl: () => peers.url('cap'),
      files: orchestrator,
      payments: createPaymentsClient(() => peers.olGrpcAddress(), config.serviceApiKey),
      checkoutReturn: { webUrl: config.capWebUrl, originAllowed: originAllowed(config) },
      recommendations: createRecommendationsClient(() => peers.lmsGrpcAddress(), config.serviceApiKey),
    },
    { people, catalogue, centres, assessors },
  );

  const dev = {
    handlers: {
      ...capProviderStateRoutes(deps, {
        approveCentre: centres.approve,
        approveAssessor: assessors.approve,
        assessorIdOf: assessors.profileIdOf,
        retains: assessors.retains,
        grantPlatformAdmin: async (user) => void (await people.roles.grant(user, 'platform_admin')),
        placeAtInterview: (applicationId) => applications.placeAt(applicationId, 'interview'),
      }),
      listDevEvents: devEventsHandler(sequelize, 'cap', config.devMode),
    },
    stop: () => orchestrator.close(),
  };
  return {
    name: 'cap',
    security: people.security,
    ...composeModules([people, catalogue, centres, assessors, applications, dev]),
  };
}

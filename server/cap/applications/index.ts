// The applications module's face: the only file other modules import from it. RPL and NSQ applications
// through their lifecycle: the candidate's draft, payments with centre prices and the centre wallet,
// the evidence vault, interviews, NSQ paths, internal and external verification and certificates,
// sharing, the candidate's corner, and the figures of a centre's and of the platform's applications.
// Tables: applications, application_stages, application_moves, application_versions, application_payments,
// centre_prices, wallet_entries, application_evidence, self_assessments, third_party_reports,
// application_share_tokens, certificates, centre_panels, interview_templates, application_interviews,
// interview_forms, interview_evaluations, appeals, nsq_inductions, nsq_unit_records, nsq_unit_signoffs.
import type { Sequelize } from 'sequelize';
import type { RecommendationsClient } from '../../contracts/lms-client.ts';
import type { OrchestratorHttp, PaymentsClient } from '../../contracts/orchestrator-client.ts';
import { readPaymentCompleted } from '../../contracts/payment-completed.ts';
import { readPaymentRefunded } from '../../contracts/payment-refunded.ts';
import type { ServiceEvents } from '../../platform/events/types.ts';
import type { Logger } from '../../platform/logger.ts';
import type { Assessors } from '../assessors/index.ts';
import type { Catalogue } from '../catalogue/index.ts';
import type { Centres } from '../centres/index.ts';
import type { People } from '../people/index.ts';
import { candidateRoutes } from './candidate/routes.ts';
import { createCandidateArea } from './candidate/service.ts';
import { evidenceRoutes } from './evidence/routes.ts';
import { createEvidence } from './evidence/service.ts';
import { createCentreFigures } from './figures/centre.ts';
import { adminDashboardRoutes } from './figures/routes.ts';
import { createAdminDashboard } from './figures/service.ts';
import { interviewRoutes } from './interviews/routes.ts';
import { createInterviews } from './interviews/service.ts';
import { nsqRoutes } from './nsq/routes.ts';
import { createNsqPaths } from './nsq/service.ts';
import { capPaymentRoutes } from './payments/routes.ts';
import { createCapPayments } from './payments/service.ts';
import { subscribeCandidateNotices } from './notices.ts';
import { createApplicationQueries } from './queries.ts';
import { applicationRoutes } from './routes.ts';
import { createApplications as createApplicationService } from './service.ts';
import { sharingRoutes } from './sharing/routes.ts';
import { createSharing } from './sharing/service.ts';
import { verificationRoutes } from './verification/routes.ts';
import { createVerification } from './verification/service.ts';

export {
  applicationStatuses,
  lifecycles,
  nsqStages,
  rplStages,
  stageLabels,
  stagesOf,
  type ApplicationStatus,
  type StageKey,
} from './lifecycle.ts';
export { applicationsSql } from './queries.ts';
export type { AssessorViewer, ListQuery, Viewer } from './service.ts';
export { applicationTypes, type ApplicationType } from './vocabulary.ts';

export interface ApplicationsDeps {
  sequelize: Sequelize;
  events: ServiceEvents;
  logger: Logger;
  /** CAP_CENTRE_CERTIFY_BYPASS: a centre may certify without a certificate. */
  centreCertifyBypass: boolean;
  /** CAP's public base URL (printed on certificates, in share links). */
  baseUrl: () => string;
  files: Pick<OrchestratorHttp, 'assetUrls' | 'ownsAsset' | 'readAsset' | 'storeFile'>;
  /** The Orchestrator's PaymentsService. */
  payments: PaymentsClient;
  /** Where a payer returns from checkout: the web app (CAP_WEB_URL) and the origins a caller may name (CORS_ORIGINS). */
  checkoutReturn: { webUrl: string; originAllowed: (origin: string) => boolean };
  /** The LMS's RecommendationsService (gap training). */
  recommendations: RecommendationsClient;
}

/** What the applications module needs of the modules below it. */
export interface ApplicationsNeeds {
  people: People;
  catalogue: Catalogue;
  centres: Centres;
  assessors: Assessors;
}

/**
 * The applications module: its operations, its consumers of the Orchestrator's payment events, and
 * what the other modules read of applications (an assessor's work, a centre's figures and dealings).
 */
export function createApplications(deps: ApplicationsDeps, needs: ApplicationsNeeds) {
  const { sequelize, events, files, logger } = deps;
  const { people, catalogue, centres, assessors } = needs;
  const { auth, contexts, roles } = people;
  const applications = createApplicationService({
    sequelize,
    events,
    centreCertifyBypass: deps.centreCertifyBypass,
    people,
    catalogue,
    centres,
    assessors,
  });
  const queries = createApplicationQueries(applications);
  const centreFigures = createCentreFigures(sequelize);
  const payments = createCapPayments({
    sequelize,
    applications,
    catalogue,
    centres,
    payments: deps.payments,
    files,
    logger: logger.child({ component: 'cap-payments' }),
    ...deps.checkoutReturn,
  });
  const evidence = createEvidence({
    sequelize,
    applications,
    catalogue,
    people,
    assetUrls: files.assetUrls,
    ownsAsset: files.ownsAsset,
  });
  const verification = createVerification({
    sequelize,
    applications,
    evidence,
    assessors,
    catalogue,
    orchestrator: files,
    baseUrl: deps.baseUrl,
  });
  const sharing = createSharing({
    sequelize,
    applications,
    evidence,
    readAsset: files.readAsset,
    baseUrl: deps.baseUrl,
    extras: verification.sharedCertificate,
  });
  const interviews = createInterviews({
    sequelize,
    applications,
    assessors,
    catalogue,
    centres,
    people,
    ownsAsset: files.ownsAsset,
    recommendations: deps.recommendations,
    logger: logger.child({ component: 'cap-interviews' }),
  });
  const nsq = createNsqPaths({ sequelize, applications, assessors, catalogue, ownsAsset: files.ownsAsset });
  const candidate = createCandidateArea({
    sequelize,
    people,
    applications,
    assetUrls: files.assetUrls,
    ownsAsset: files.ownsAsset,
  });
  const dashboard = createAdminDashboard(sequelize, {
    centres: centres.approvedCount,
    assessors: assessors.approvedCount,
  });

  subscribeCandidateNotices(events, centres, deps.checkoutReturn.webUrl);
  events.subscribe('payment.completed', 'cap.application-paid', async (event, transaction) => {
    const data = readPaymentCompleted(event.data);
    if (data.purpose === 'cap_application') await payments.completed(data, transaction);
  });
  events.subscribe('payment.refunded', 'cap.application-refunded', async (event, transaction) => {
    const data = readPaymentRefunded(event.data);
    if (data.purpose === 'cap_application') await payments.refunded(data, transaction);
  });
  events.subscribe('payment.failed', 'cap.application-payment-failed', async (event, transaction) => {
    const { paymentId, purpose } = event.data as { paymentId?: unknown; purpose?: unknown };
    if (typeof paymentId !== 'string') throw new Error(`payment.failed event ${event.id} carries no paymentId`);
    if (purpose === 'cap_application') await payments.failed(paymentId, transaction);
  });

  return {
    handlers: {
      ...applicationRoutes(auth, contexts, applications, centres, centreFigures),
      ...capPaymentRoutes(auth, contexts, roles, payments),
      ...candidateRoutes(auth, contexts, candidate),
      ...evidenceRoutes(auth, contexts, evidence),
      ...interviewRoutes(auth, contexts, interviews),
      ...nsqRoutes(auth, contexts, nsq),
      ...sharingRoutes(auth, contexts, sharing),
      ...verificationRoutes(auth, contexts, verification),
      ...adminDashboardRoutes(auth, roles, dashboard),
    },

    /** The applications list, as the viewer reads it (an assessor: those assigned to them now). */
    list: applications.list,
    /** Development mode only (the provider states): an application at a stage without the moves before it. */
    placeAt: applications.placeAt,
    ...queries,
    /** A centre's figures from its applications (the centres module's dashboard). */
    centreFigures: centreFigures.applications,
  };
}

export type Applications = ReturnType<typeof createApplications>;

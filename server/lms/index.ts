import path from 'node:path';
import { createBearerAuth } from '../platform/auth/bearer.ts';
import type { PlatformEvent } from '../platform/events/types.ts';
import type { Service, ServiceDeps } from '../platform/service.ts';
import { createAccess } from './people/access/service.ts';
import { authoringRoutes, catalogueRoutes } from './catalogue/courses/routes.ts';
import { createCourseInstructors } from './catalogue/courses/instructors.ts';
import { createCourses } from './catalogue/courses/service.ts';
import { lmsProviderStateRoutes } from './dev/provider-states.ts';
import { meRoutes } from './people/me/routes.ts';
import { onboardingRoutes } from './people/onboarding/routes.ts';
import { createOnboarding } from './people/onboarding/service.ts';
import { createInvites } from './people/staff/invites.ts';
import { instructorRoutes, staffRoutes } from './back-office/staff/routes.ts';
import { createStaff } from './back-office/staff/service.ts';
import { createEntitlements } from './learning/enrollments/entitlements.ts';
import { createIdentityClient } from './people/identity.ts';
import { learnerRoutes } from './back-office/learners/routes.ts';
import { createLearners } from './back-office/learners/service.ts';
import { createUsers, type Account } from './people/users/service.ts';
import { createStorageClient } from './orchestrator.ts';
import { playerRoutes, scormContentTokenAuth } from './learning/player/routes.ts';
import { createPlayer } from './learning/player/service.ts';
import { createPackageStore } from './catalogue/scorm/store.ts';
import { enrollmentRoutes } from './learning/enrollments/routes.ts';
import { assessmentRoutes } from './learning/assessments/routes.ts';
import { certificateRoutes } from './learning/certificates/routes.ts';
import { createGrpcServer, type GrpcServerHandle } from '../platform/grpc/server.ts';
import { recommendationsService } from './catalogue/recommendations/grpc.ts';
import { createCertificates } from './learning/certificates/service.ts';
import { createAssessments } from './learning/assessments/service.ts';
import { createEnrollments } from './learning/enrollments/service.ts';
import { createCheckouts } from './learning/enrollments/checkout.ts';
import { levelOfferingRoutes } from './learning/level-offerings/routes.ts';
import { createLevelOfferings } from './learning/level-offerings/service.ts';
import { createPaymentsClient } from './orchestrator.ts';
import { readPaymentCompleted } from '../platform/events/payment-completed.ts';
import { devEventsHandler } from '../platform/events/dev-events.ts';

/** The LMS: courses, enrollments, the player and LMS certificates. */
export async function createLms(deps: ServiceDeps): Promise<Service> {
  const users = createUsers(deps.sequelize);
  const invites = createInvites(deps.sequelize, deps.events);
  const onboarding = createOnboarding(deps.sequelize, invites.accept);
  const access = createAccess(deps.sequelize, users, onboarding);
  const storage = createStorageClient(() => deps.peers.url('ol'), deps.config.serviceApiKey, deps.logger);
  const packages = createPackageStore({
    sequelize: deps.sequelize,
    storage,
    root: path.join(deps.config.dataDir, 'lms', 'scorm'),
    limits: { maxUncompressedBytes: deps.config.lmsScormMaxUncompressedBytes, maxEntries: 10_000 },
  });
  const courses = createCourses(deps.sequelize, packages.attach);
  const courseInstructors = createCourseInstructors(deps.sequelize, access, courses);
  const entitlements = createEntitlements(deps.sequelize, deps.events);
  const certificates = createCertificates({ sequelize: deps.sequelize, storage, logger: deps.logger });
  const player = createPlayer({
    sequelize: deps.sequelize,
    entitlements,
    packages,
    storage,
    onCompleted: certificates.issue,
    certificateIssued: certificates.issued,
  });
  const staff = createStaff(deps.sequelize, entitlements);
  const identity = createIdentityClient(() => deps.peers.olGrpcAddress(), deps.config.serviceApiKey);

  const checkouts = createCheckouts(deps.sequelize, createPaymentsClient(() => deps.peers.olGrpcAddress(), deps.config.serviceApiKey));
  const enrollments = createEnrollments({ sequelize: deps.sequelize, entitlements, checkouts, player });
  const levelOfferings = createLevelOfferings({ sequelize: deps.sequelize, entitlements, checkouts });
  const paid = { course: enrollments.paid, level: levelOfferings.paid };
  const learners = createLearners(deps.sequelize, deps.events, users, onboarding, entitlements, identity, levelOfferings);

  let grpcServer: GrpcServerHandle | undefined;

  deps.events.subscribe('payment.completed', 'lms.enrollment-paid', async (event, transaction) => {
    const data = readPaymentCompleted(event.data);
    if (data.purpose !== 'lms_enrollment') return;
    const attempt = await checkouts.settle(data, transaction);
    if (!attempt) {
      deps.logger.warn({ paymentId: data.paymentId }, 'payment.completed for an LMS payment this LMS did not start: ignored');
      return;
    }
    await paid[attempt.kind](attempt, data, transaction);
  });
  // The certificate's PDF is made after the completion is committed; the bus retries it if storage fails.
  deps.events.subscribe('lms.course.completed', 'lms.certificate-document', async (event) => {
    const { certificateId } = event.data as { certificateId?: unknown };
    if (typeof certificateId === 'string') await certificates.document(certificateId);
  });
  deps.events.subscribe('payment.failed', 'lms.enrollment-payment-failed', async (event, transaction) => {
    const { paymentId, purpose } = event.data as { paymentId?: unknown; purpose?: unknown };
    if (typeof paymentId !== 'string') throw new Error(`payment.failed event ${event.id} carries no paymentId`);
    if (purpose === 'lms_enrollment') await checkouts.fail(paymentId, transaction);
  });
  deps.events.subscribe('user.created', 'lms.provision-user', (event, transaction) => users.provision(accountOf(event), transaction));
  deps.events.subscribe('user.deleted', 'lms.deactivate-user', (event, transaction) => users.deactivate(accountOf(event).userId, transaction));

  return {
    name: 'lms',
    handlers: {
      ...meRoutes(users, onboarding, access, invites),
      ...onboardingRoutes(users, onboarding),
      ...lmsProviderStateRoutes(deps),
      listDevEvents: devEventsHandler(deps.sequelize, 'lms', deps.config.devMode),
      ...catalogueRoutes(access, courses),
      ...authoringRoutes(access, courses),
      ...instructorRoutes(access, invites, courseInstructors),
      ...playerRoutes(player, users, deps.config),
      ...enrollmentRoutes(access, enrollments),
      ...levelOfferingRoutes(access, levelOfferings),
      ...certificateRoutes(access, certificates),
      ...assessmentRoutes(createAssessments({ sequelize: deps.sequelize, player }), users),
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
      scormContentToken: scormContentTokenAuth(player),
    },
    async start() {
      grpcServer = await createGrpcServer({
        host: deps.config.host,
        port: deps.config.lmsGrpcPort,
        serviceKey: deps.config.serviceApiKey,
        logger: deps.logger,
        database: deps.database,
        label: 'grpc-lms',
        services: [recommendationsService({ sequelize: deps.sequelize, courseUrl: (courseId) => `${deps.peers.url('lms')}/courses/${courseId}` })],
      });
      return { 'grpc-lms': grpcServer.address };
    },
    async stop() {
      await grpcServer?.stop();
      await storage.close();
    },
  };
}

function accountOf(event: PlatformEvent): Account {
  const { userId, email } = event.data as { userId: string; email?: string };
  return { userId, email: email ?? null };
}

import { readPaymentCompleted } from '../../contracts/payment-completed.ts';
import { readPaymentRefunded } from '../../contracts/payment-refunded.ts';
import type { ServiceModule } from '../../platform/modules.ts';
import type { ServiceDeps } from '../../platform/service.ts';
import type { Catalogue } from '../catalogue/index.ts';
import { createPaymentsClient, type StorageClient } from '../orchestrator.ts';
import type { People } from '../people/index.ts';
import { assessmentRoutes } from './assessments/routes.ts';
import { createAssessments } from './assessments/service.ts';
import { certificateRoutes } from './certificates/routes.ts';
import { createCertificates } from './certificates/service.ts';
import { createCheckouts } from './enrollments/checkout.ts';
import { createEntitlements } from './enrollments/entitlements.ts';
import { enrollmentRoutes } from './enrollments/routes.ts';
import { createEnrollments } from './enrollments/service.ts';
import { levelOfferingRoutes } from './level-offerings/routes.ts';
import { createLevelOfferings } from './level-offerings/service.ts';
import { playerRoutes } from './player/routes.ts';
import { createPlayer } from './player/service.ts';

/** Learning: entitlements, enrollments and their checkout, level offerings, the player, assessments and certificates. */
export function createLearning(deps: ServiceDeps, people: People, catalogue: Catalogue, storage: StorageClient) {
  const { access, users } = people;
  const entitlements = createEntitlements(deps.sequelize, deps.events);
  const certificates = createCertificates({ sequelize: deps.sequelize, storage, logger: deps.logger });
  const player = createPlayer({
    sequelize: deps.sequelize,
    entitlements,
    packages: catalogue.packages,
    storage,
    onCompleted: certificates.issue,
    certificateIssued: certificates.issued,
  });
  const checkouts = createCheckouts(
    deps.sequelize,
    createPaymentsClient(() => deps.peers.olGrpcAddress(), deps.config.serviceApiKey),
  );
  const enrollments = createEnrollments({ sequelize: deps.sequelize, entitlements, checkouts, player });
  const levelOfferings = createLevelOfferings({ sequelize: deps.sequelize, entitlements, checkouts });
  const paid = { course: enrollments.paid, level: levelOfferings.paid };

  deps.events.subscribe('payment.completed', 'lms.enrollment-paid', async (event, transaction) => {
    const data = readPaymentCompleted(event.data);
    if (data.purpose !== 'lms_enrollment') return;
    const attempt = await checkouts.settle(data, transaction);
    if (!attempt) {
      deps.logger.warn(
        { paymentId: data.paymentId },
        'payment.completed for an LMS payment this LMS did not start: ignored',
      );
      return;
    }
    await paid[attempt.kind](attempt, data, transaction);
  });
  // A refunded checkout takes back what it bought, once however often (and however concurrently) the
  // event arrives: the attempt's row is locked and a refunded attempt changes nothing.
  deps.events.subscribe('payment.refunded', 'lms.enrollment-refunded', async (event, transaction) => {
    const data = readPaymentRefunded(event.data);
    if (data.purpose !== 'lms_enrollment') return;
    const refunded = await checkouts.refunded(data, transaction);
    if (!refunded) {
      deps.logger.warn(
        { paymentId: data.paymentId },
        'payment.refunded for an LMS payment this LMS did not take: ignored',
      );
      return;
    }
    if (!refunded.changed) return;
    await entitlements.revokePaid(transaction, data.paymentId);
    if (refunded.attempt.kind === 'level') await levelOfferings.refunded(refunded.attempt, transaction);
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

  const module: ServiceModule = {
    handlers: {
      ...playerRoutes(player, users, deps.config),
      ...enrollmentRoutes(access, enrollments),
      ...levelOfferingRoutes(access, levelOfferings),
      ...certificateRoutes(access, certificates),
      ...assessmentRoutes(createAssessments({ sequelize: deps.sequelize, player }), users),
    },
  };
  return { module, entitlements, levelOfferings, player, checkouts };
}

export type Learning = ReturnType<typeof createLearning>;

// What other modules use of this one's inner files.
export type { Checkouts } from './enrollments/checkout.ts';
export type { Entitlements, GrantRequest } from './enrollments/entitlements.ts';
export { defineEnrollmentModels } from './enrollments/models.ts';
export type { Enrollment, EnrollmentStatus, Entitlement } from './enrollments/models.ts';
export type { LevelOfferings } from './level-offerings/service.ts';
export { scormContentTokenAuth } from './player/routes.ts';

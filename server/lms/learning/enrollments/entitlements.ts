import type { Sequelize, Transaction } from 'sequelize';
import type { ServiceEvents } from '../../../platform/events/types.ts';
import { newId } from '../../../platform/ids.ts';
import { findMove, lifecycleWriter, modelStore, type MoverOf } from '../../../platform/lifecycle.ts';
import { enrollmentLifecycle, entitlementLifecycle, type EnrollmentMove } from './lifecycle.ts';
import { defineEnrollmentModels, type Enrollment, type Entitlement, type EntitlementSource } from './models.ts';

/** What a grant says beyond the learner, the course and the source; all optional. */
export interface GrantDetails {
  paymentId?: string | null;
  sponsorUserId?: string | null;
  sponsorNote?: string | null;
  capApplicationId?: string | null;
  /** What was paid for it, in minor units; zero when nobody paid. */
  amountMinorUnits?: bigint | string;
  currency?: string;
  priceRevisionId?: string | null;
  validUntil?: Date | null;
}

export interface GrantRequest extends GrantDetails {
  courseId: string;
  learnerLmsUserId: string;
  source: EntitlementSource;
}

export interface GrantOutcome {
  entitlement: Entitlement;
  enrollment: Enrollment;
  /** False when the learner already held an active entitlement to the course: nothing changed. */
  granted: boolean;
}

export type Entitlements = ReturnType<typeof createEntitlements>;

/**
 * Entitlements, whatever their source (a payment, an admin grant, a seat of an organisation, ...), and
 * the enrollment moves they cause. One entitlement per learner and course, so a repeated grant (a
 * redelivered `payment.completed`, a seat for a course already bought) finds the first one.
 */
export function createEntitlements(sequelize: Sequelize, events: ServiceEvents) {
  const { Entitlement, Enrollment } = defineEnrollmentModels(sequelize);
  const entitlements = lifecycleWriter(entitlementLifecycle, { store: modelStore(Entitlement) });
  const enrollments = lifecycleWriter(enrollmentLifecycle, {
    store: modelStore(Enrollment),
    events,
    eventData: (_type, enrollment, { from, to }) => ({
      enrollmentId: enrollment.id,
      courseId: enrollment.courseId,
      learnerLmsUserId: enrollment.learnerLmsUserId,
      from,
      to,
    }),
  });

  /**
   * Grants the course to the learner inside `transaction` and activates the learner's enrollment
   * (creating it when there is none), publishing `lms.enrollment.activated` in the same transaction.
   * Safe to repeat and to race: the entitlement and enrollment rows are unique per learner and course
   * and are locked before they change.
   */
  async function grant(transaction: Transaction, request: GrantRequest): Promise<GrantOutcome> {
    const { courseId, learnerLmsUserId } = request;
    const now = new Date();
    await entitlements.create(
      transaction,
      'open',
      { id: newId(), courseId, learnerLmsUserId, ...entitlementFields(request, now) },
      { by: 'lms', ignoreDuplicates: true },
    );
    const entitlement = await Entitlement.findOne({
      where: { courseId, learnerLmsUserId },
      transaction,
      lock: transaction.LOCK.UPDATE,
      rejectOnEmpty: true,
    });
    const granted = entitlement.status !== 'active';
    if (granted)
      await entitlements.move(transaction, entitlement, 'grant', {
        by: 'lms',
        changes: entitlementFields(request, now),
      });

    await enrollments.create(
      transaction,
      'enroll',
      { id: newId(), courseId, learnerLmsUserId, percentComplete: 0, entitlementId: entitlement.id, completedAt: null },
      { by: 'lms', ignoreDuplicates: true },
    );
    const enrollment = await Enrollment.findOne({
      where: { courseId, learnerLmsUserId },
      transaction,
      lock: transaction.LOCK.UPDATE,
      rejectOnEmpty: true,
    });
    if (enrollment.entitlementId !== entitlement.id) {
      enrollment.entitlementId = entitlement.id;
      await enrollment.save({ transaction });
    }
    if (findMove(enrollmentLifecycle, enrollment.status, 'activate'))
      await move(transaction, enrollment, 'activate', 'lms', {
        entitlementId: entitlement.id,
        source: entitlement.source,
      });
    return { entitlement, enrollment, granted };
  }

  /**
   * The refund of a payment, in `transaction`: every entitlement that payment granted and still holds
   * (a course, or each member of a level offering) is revoked, and its enrollment, while active, is
   * ended, so the learner loses access. One the learner holds by a later grant carries that grant's
   * payment, not this one, and stays. Safe to repeat: a revoked entitlement is no longer active.
   */
  async function revokePaid(transaction: Transaction, paymentId: string): Promise<void> {
    const paid = await Entitlement.findAll({
      where: { paymentId, status: 'active' },
      transaction,
      lock: transaction.LOCK.UPDATE,
      order: [['id', 'ASC']],
    });
    for (const entitlement of paid) {
      await entitlements.move(transaction, entitlement, 'revoke', { by: 'lms' });
      const enrollment = await Enrollment.findOne({
        where: { entitlementId: entitlement.id },
        transaction,
        lock: transaction.LOCK.UPDATE,
      });
      if (enrollment && findMove(enrollmentLifecycle, enrollment.status, 'refunded'))
        await move(transaction, enrollment, 'refunded', 'lms');
    }
  }

  /** Applies one move of the enrollment lifecycle and publishes what it emits (with `eventData`), in `transaction`. */
  async function move(
    transaction: Transaction,
    enrollment: Enrollment,
    name: EnrollmentMove,
    by: MoverOf<typeof enrollmentLifecycle>,
    eventData: Record<string, unknown> = {},
  ): Promise<void> {
    await enrollments.move(transaction, enrollment, name, {
      by,
      changes: name === 'complete' ? { completedAt: new Date() } : undefined,
      event: eventData,
    });
  }

  /** A pending enrollment of the learner in the course, waiting for its entitlement (checkout). */
  async function enroll(transaction: Transaction, courseId: string, learnerLmsUserId: string): Promise<Enrollment> {
    return (await enrollments.create(
      transaction,
      'enroll',
      { id: newId(), courseId, learnerLmsUserId, percentComplete: 0, entitlementId: null, completedAt: null },
      { by: 'learner' },
    ))!;
  }

  return { grant, move, enroll, revokePaid };
}

function entitlementFields(request: GrantRequest, now: Date) {
  return {
    source: request.source,
    sponsorUserId: request.sponsorUserId ?? null,
    sponsorNote: request.sponsorNote ?? null,
    paymentId: request.paymentId ?? null,
    capApplicationId: request.capApplicationId ?? null,
    amountMinorUnits: String(request.amountMinorUnits ?? 0),
    currency: request.currency ?? 'NGN',
    priceRevisionId: request.priceRevisionId ?? null,
    validFrom: now,
    validUntil: request.validUntil ?? null,
  };
}

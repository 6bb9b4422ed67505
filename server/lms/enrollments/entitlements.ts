import type { Sequelize, Transaction } from 'sequelize';
import type { ServiceEvents } from '../../platform/events/types.ts';
import { newId } from '../../platform/ids.ts';
import { canMove, enrollmentMoves, type EnrollmentMove } from './lifecycle.ts';
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

  /**
   * Grants the course to the learner inside `transaction` and activates the learner's enrollment
   * (creating it when there is none), publishing `lms.enrollment.activated` in the same transaction.
   * Safe to repeat and to race: the entitlement and enrollment rows are unique per learner and course
   * and are locked before they change.
   */
  async function grant(transaction: Transaction, request: GrantRequest): Promise<GrantOutcome> {
    const { courseId, learnerLmsUserId } = request;
    const now = new Date();
    await Entitlement.bulkCreate([{ id: newId(), courseId, learnerLmsUserId, status: 'pending', ...entitlementFields(request, now) }], {
      ignoreDuplicates: true,
      transaction,
    });
    const entitlement = await Entitlement.findOne({ where: { courseId, learnerLmsUserId }, transaction, lock: transaction.LOCK.UPDATE, rejectOnEmpty: true });
    const granted = entitlement.status !== 'active';
    if (granted) {
      entitlement.set({ ...entitlementFields(request, now), status: 'active' });
      await entitlement.save({ transaction });
    }

    await Enrollment.bulkCreate(
      [{ id: newId(), courseId, learnerLmsUserId, status: 'pending', percentComplete: 0, entitlementId: entitlement.id, completedAt: null }],
      { ignoreDuplicates: true, transaction },
    );
    const enrollment = await Enrollment.findOne({ where: { courseId, learnerLmsUserId }, transaction, lock: transaction.LOCK.UPDATE, rejectOnEmpty: true });
    if (enrollment.entitlementId !== entitlement.id) {
      enrollment.entitlementId = entitlement.id;
      await enrollment.save({ transaction });
    }
    if (canMove(enrollment.status, 'activate')) await move(transaction, enrollment, 'activate', { entitlementId: entitlement.id, source: entitlement.source });
    return { entitlement, enrollment, granted };
  }

  /** Applies one move of the enrollment lifecycle and publishes what it emits, in `transaction`. */
  async function move(transaction: Transaction, enrollment: Enrollment, name: EnrollmentMove, eventData: Record<string, unknown> = {}): Promise<void> {
    const rule = enrollmentMoves[name];
    if (!canMove(enrollment.status, name)) throw new Error(`enrollment ${enrollment.id} cannot ${name} from ${enrollment.status}`);
    const from = enrollment.status;
    enrollment.status = rule.to;
    if (rule.to === 'completed') enrollment.completedAt = new Date();
    await enrollment.save({ transaction });
    if (rule.emits) {
      await events.publish(transaction, rule.emits, {
        enrollmentId: enrollment.id,
        courseId: enrollment.courseId,
        learnerLmsUserId: enrollment.learnerLmsUserId,
        from,
        to: rule.to,
        ...eventData,
      });
    }
  }

  return { grant, move };
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

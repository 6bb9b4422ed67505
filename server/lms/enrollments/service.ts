import { QueryTypes, UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import type { PaymentCompletedData } from '../../platform/events/payment-completed.ts';
import { conflict, forbidden, notFound } from '../../platform/http/errors.ts';
import { keysetPage, type PageRequest } from '../../platform/http/pagination.ts';
import { newId } from '../../platform/ids.ts';
import type { Logger } from '../../platform/logger.ts';
import { money } from '../../platform/money.ts';
import type { Actor } from '../access/service.ts';
import { defineCourseModels } from '../courses/models.ts';
import { paymentFailure, type PaymentsClient } from '../orchestrator.ts';
import type { Player } from '../player/service.ts';
import type { Entitlements } from './entitlements.ts';
import { defineEnrollmentModels, type Enrollment, type EnrollmentStatus, type Entitlement } from './models.ts';

interface PaymentRow {
  id: string;
  enrollment_id: string;
  learner_lms_user_id: string;
  attempt: number;
  payment_id: string;
  checkout_url: string;
  amount_minor_units: string;
  currency: string;
  status: 'pending' | 'completed' | 'failed';
}

export function entitlementView(entitlement: Entitlement) {
  return {
    id: entitlement.id,
    courseId: entitlement.courseId,
    learnerLmsUserId: entitlement.learnerLmsUserId,
    source: entitlement.source,
    status: entitlement.status,
    sponsorUserId: entitlement.sponsorUserId,
    sponsorNote: entitlement.sponsorNote,
    paymentId: entitlement.paymentId,
    capApplicationId: entitlement.capApplicationId,
    amount: money(entitlement.amountMinorUnits, entitlement.currency),
    priceRevisionId: entitlement.priceRevisionId,
    validFrom: entitlement.validFrom?.toISOString() ?? null,
    validUntil: entitlement.validUntil?.toISOString() ?? null,
  };
}

export type Enrollments = ReturnType<typeof createEnrollments>;

/**
 * Enrolling (free courses and courses already held activate at once; paid ones wait for checkout),
 * checkout through the Orchestrator's InitiatePayment (the amount is the course's price, never the
 * client's; one payment per attempt, a pending attempt is answered again), `payment.completed` and
 * `payment.failed` for LMS payments, Every activation goes through the
 * foundation's `grant`, so however often a payment is reported, one entitlement results.
 */
export function createEnrollments(deps: { sequelize: Sequelize; entitlements: Entitlements; payments: PaymentsClient; player: Player; logger: Logger }) {
  const { sequelize, entitlements } = deps;
  const { Course, CourseInstructor } = defineCourseModels(sequelize);
  const { Enrollment, Entitlement } = defineEnrollmentModels(sequelize);
  const select = <T extends object>(sql: string, bind: unknown[], transaction?: Transaction) => sequelize.query<T>(sql, { type: QueryTypes.SELECT, bind, transaction });

  function requireLearner(actor: Actor): void {
    if (!actor.personas.has('learner')) throw forbidden('lms.onboarding.incomplete', 'Complete the learner onboarding first.');
  }

  async function views(enrollments: Enrollment[]) {
    const courseIds = [...new Set(enrollments.map((e) => e.courseId))];
    const titles = new Map((await Course.findAll({ where: { id: courseIds }, attributes: ['id', 'title'] })).map((c) => [c.id, c.title]));
    const entitlementIds = enrollments.map((e) => e.entitlementId).filter((id): id is string => Boolean(id));
    const held = new Map((await Entitlement.findAll({ where: { id: entitlementIds } })).map((e) => [e.id, e]));
    return enrollments.map((enrollment) => {
      const entitlement = enrollment.entitlementId ? held.get(enrollment.entitlementId) : undefined;
      return {
        id: enrollment.id,
        courseId: enrollment.courseId,
        courseTitle: titles.get(enrollment.courseId) ?? '',
        learnerLmsUserId: enrollment.learnerLmsUserId,
        status: enrollment.status,
        percentComplete: enrollment.percentComplete,
        ...(entitlement ? { entitlement: entitlementView(entitlement) } : {}),
        createdAt: enrollment.createdAt.toISOString(),
        completedAt: enrollment.completedAt?.toISOString() ?? null,
      };
    });
  }
  const view = async (enrollment: Enrollment) => (await views([enrollment]))[0]!;

  /** The learner's own enrollment, for checkout: 404 none, 403 someone else's. */
  async function ownEnrollment(actor: Actor, enrollmentId: string): Promise<Enrollment> {
    const enrollment = await Enrollment.findByPk(enrollmentId);
    if (!enrollment) throw notFound('No such enrollment.');
    if (enrollment.learnerLmsUserId !== actor.user.id) throw forbidden('auth.out_of_scope', 'This enrollment is another learner\'s.');
    return enrollment;
  }

  return {
    async mine(actor: Actor, page: PageRequest, status?: EnrollmentStatus) {
      requireLearner(actor);
      const { items, meta } = await keysetPage(Enrollment, page, { where: { learnerLmsUserId: actor.user.id, ...(status ? { status } : {}) } });
      return { data: await views(items), meta };
    },

    /** The enrollment with its progress: for its learner, the course's instructors, and staff. */
    async detail(actor: Actor, enrollmentId: string) {
      const enrollment = await Enrollment.findByPk(enrollmentId);
      if (!enrollment) throw notFound('No such enrollment.');
      const allowed =
        enrollment.learnerLmsUserId === actor.user.id ||
        actor.staffRole !== null ||
        (await CourseInstructor.count({ where: { courseId: enrollment.courseId, lmsUserId: actor.user.id } })) > 0;
      if (!allowed) throw forbidden('auth.out_of_scope', 'This enrollment is another learner\'s.');
      const { rules } = await deps.player.rulesOf(enrollment.courseId);
      return { ...(await view(enrollment)), progress: await deps.player.snapshotOf(enrollment, rules) };
    },

    /**
     * Enrols the learner in a published course: active at once when they already hold it or it is
     * free (a zero-amount self_pay entitlement, no payment), pending otherwise until checkout is paid.
     * Enrolling again while pending answers the same enrollment.
     */
    async enroll(actor: Actor, courseId: string) {
      requireLearner(actor);
      const course = await Course.findOne({ where: { id: courseId, status: 'published' } });
      if (!course) throw notFound('No such course in the catalogue.');
      const enrollment = await sequelize.transaction(async (transaction) => {
        const existing = await Enrollment.findOne({ where: { courseId, learnerLmsUserId: actor.user.id }, transaction, lock: transaction.LOCK.UPDATE });
        if (existing && (existing.status === 'active' || existing.status === 'completed')) {
          throw conflict('lms.enrollment.exists', `You are already enrolled in this course (${existing.status}).`);
        }
        const held = await Entitlement.findOne({ where: { courseId, learnerLmsUserId: actor.user.id, status: 'active' }, transaction });
        if (held || BigInt(course.priceMinorUnits) === 0n) {
          const granted = await entitlements.grant(transaction, {
            courseId,
            learnerLmsUserId: actor.user.id,
            source: held?.source ?? 'self_pay',
            amountMinorUnits: held?.amountMinorUnits ?? '0',
            currency: course.currency,
          });
          return granted.enrollment;
        }
        if (existing) return existing;
        return Enrollment.create(
          { id: newId(), courseId, learnerLmsUserId: actor.user.id, status: 'pending', percentComplete: 0, entitlementId: null, completedAt: null },
          { transaction },
        );
      });
      return view(enrollment);
    },

    /**
     * Starts paying for a pending enrollment at the course's price. A pending attempt is answered
     * again (the same payment), so a repeated or concurrent checkout never charges twice.
     */
    async checkout(actor: Actor, enrollmentId: string) {
      const enrollment = await ownEnrollment(actor, enrollmentId);
      if (enrollment.status === 'active' || enrollment.status === 'completed') throw conflict('lms.checkout.already_paid', 'This enrollment is already active: there is nothing to pay.');
      const course = await Course.findByPk(enrollment.courseId, { rejectOnEmpty: true });
      if (BigInt(course.priceMinorUnits) === 0n) throw conflict('lms.checkout.zero_price', 'This course is free: enrolling activates it, there is nothing to pay.');
      const attempts = await select<PaymentRow>('SELECT * FROM lms.lms_payments WHERE enrollment_id = $1 ORDER BY attempt DESC', [enrollment.id]);
      const pending = attempts.find((row) => row.status === 'pending');
      if (pending) return { paymentId: pending.payment_id, checkoutUrl: pending.checkout_url, amount: money(pending.amount_minor_units, pending.currency) };
      const attempt = (attempts[0]?.attempt ?? 0) + 1;
      let started;
      try {
        started = await deps.payments.initiatePayment({
          payer_user_id: actor.user.userId,
          purpose: 'PAYMENT_PURPOSE_LMS_ENROLLMENT',
          purpose_reference_id: enrollment.id,
          amount_minor: course.priceMinorUnits,
          currency: course.currency,
          beneficiary_centre_id: '',
          idempotency_key: `lms:enrollment:${enrollment.id}:${attempt}`,
          return_url: '',
        });
      } catch (err) {
        paymentFailure(err);
      }
      try {
        await sequelize.query(
          `INSERT INTO lms.lms_payments (id, kind, enrollment_id, learner_lms_user_id, attempt, payment_id, reference, checkout_url, amount_minor_units, currency, status, initiated_at, created_at, updated_at)
           VALUES ($1, 'course', $2, $3, $4, $5, $6, $7, $8, $9, 'pending', now(), now(), now())`,
          { bind: [newId(), enrollment.id, actor.user.id, attempt, started.payment_id, started.reference, started.checkout_url, course.priceMinorUnits, course.currency] },
        );
      } catch (err) {
        // A concurrent checkout of the same attempt got the same payment (same idempotency key) and kept it.
        if (!(err instanceof UniqueConstraintError)) throw err;
      }
      return { paymentId: started.payment_id, checkoutUrl: started.checkout_url, amount: money(course.priceMinorUnits, course.currency) };
    },

    /** `payment.completed` for an LMS payment, in the delivery's transaction: the attempt is paid and the course granted (once). */
    async paid(data: PaymentCompletedData, transaction: Transaction) {
      const [row] = await select<PaymentRow>('SELECT * FROM lms.lms_payments WHERE payment_id = $1 FOR UPDATE', [data.paymentId], transaction);
      if (!row) {
        deps.logger.warn({ paymentId: data.paymentId }, 'payment.completed for an LMS payment this LMS did not start: ignored');
        return;
      }
      if (row.status !== 'completed') {
        await sequelize.query(`UPDATE lms.lms_payments SET status = 'completed', paid_at = $2, updated_at = now() WHERE id = $1`, { bind: [row.id, new Date(data.completedAt)], transaction });
      }
      const enrollment = await Enrollment.findByPk(row.enrollment_id, { transaction, rejectOnEmpty: true });
      await entitlements.grant(transaction, {
        courseId: enrollment.courseId,
        learnerLmsUserId: enrollment.learnerLmsUserId,
        source: 'self_pay',
        paymentId: data.paymentId,
        amountMinorUnits: data.amount.amountMinorUnits,
        currency: data.amount.currency,
      });
    },

    /** `payment.failed`: the attempt is closed, so the next checkout starts a new payment. */
    async failed(paymentId: string, transaction: Transaction) {
      await sequelize.query(`UPDATE lms.lms_payments SET status = 'failed', updated_at = now() WHERE payment_id = $1 AND status = 'pending'`, { bind: [paymentId], transaction });
    },
  };
}

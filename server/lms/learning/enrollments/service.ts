import type { Sequelize, Transaction } from 'sequelize';
import type { PaymentCompletedData } from '../../../contracts/payment-completed.ts';
import { conflict, forbidden, notFound } from '../../../platform/http/errors.ts';
import { isoTime } from '../../../platform/db/iso-time.ts';
import { jsonObject } from '../../../platform/db/json-text.ts';
import { Conditions, keysetRows, statementName } from '../../../platform/db/keyset.ts';
import { preparedReads } from '../../../platform/db/prepared.ts';
import type { PageRequest } from '../../../platform/http/pagination.ts';
import { JsonText } from '../../../platform/http/reply.ts';
import { money } from '../../../platform/money.ts';
import type { Actor } from '../../people/index.ts';
import { catalogueSql, defineCourseModels } from '../../catalogue/index.ts';
import type { Player } from '../player/service.ts';
import type { CheckoutAttempt, Checkouts } from './checkout.ts';
import type { Entitlements } from './entitlements.ts';
import { defineEnrollmentModels, type Enrollment, type EnrollmentStatus } from './models.ts';

/** The entitlement whose id is the SQL expression `id` (JSON, json-text.ts), or null. */
const entitlementJson = (id: string) =>
  `(SELECT ${jsonObject(`n.id, n.course_id AS "courseId", n.learner_lms_user_id AS "learnerLmsUserId", n.source, n.status,
      n.sponsor_user_id AS "sponsorUserId", n.sponsor_note AS "sponsorNote", n.payment_id AS "paymentId",
      n.cap_application_id AS "capApplicationId",
      ${jsonObject('n.amount_minor_units::text AS "amountMinorUnits", n.currency')} AS amount,
      n.price_revision_id AS "priceRevisionId", ${isoTime('n.valid_from')} AS "validFrom", ${isoTime('n.valid_until')} AS "validUntil"`)}
    FROM lms.lms_entitlements n WHERE n.id = ${id})`;

/**
 * The enrollment row `x` as the API shows it (JSON made by PostgreSQL, json-text.ts), with its
 * course's title and its entitlement (left out without one): the one definition of the shape, for
 * the list's pages and a single enrollment alike.
 */
const enrollmentJson = (x: string) => {
  const columns = (entitlement: string) => `${x}.id, ${x}.course_id AS "courseId",
    coalesce(${catalogueSql.courseTitle(`${x}.course_id`)}, '') AS "courseTitle", ${x}.learner_lms_user_id AS "learnerLmsUserId",
    ${x}.status, ${x}.percent_complete AS "percentComplete", ${entitlement}
    ${isoTime(`${x}.created_at`)} AS "createdAt", ${isoTime(`${x}.completed_at`)} AS "completedAt"`;
  return `CASE WHEN ${x}.entitlement_id IS NULL THEN ${jsonObject(columns(''))}
    ELSE ${jsonObject(columns(`${entitlementJson(`${x}.entitlement_id`)} AS entitlement,`))} END`;
};

export type Enrollments = ReturnType<typeof createEnrollments>;

/**
 * Enrolling (free courses and courses already held activate at once; paid ones wait for checkout),
 * checkout at the course's price (never the client's; see checkout.ts) and the paid checkout. Every
 * activation goes through the entitlements' `grant`, so however often a payment is reported, one
 * entitlement results.
 */
export function createEnrollments(deps: {
  sequelize: Sequelize;
  entitlements: Entitlements;
  checkouts: Checkouts;
  player: Player;
}) {
  const { sequelize, entitlements } = deps;
  const { Course, CourseInstructor } = defineCourseModels(sequelize);
  const { Enrollment, Entitlement } = defineEnrollmentModels(sequelize);
  const read = preparedReads(sequelize);

  function requireLearner(actor: Actor): void {
    if (!actor.personas.has('learner'))
      throw forbidden('lms.onboarding.incomplete', 'Complete the learner onboarding first.');
  }

  const viewText = `SELECT ${enrollmentJson('x')}::text AS json FROM lms.lms_enrollments x WHERE x.id = $1`;
  /** The enrollment as the API shows it (`enrollmentJson`). */
  async function view(enrollment: Enrollment): Promise<Record<string, unknown>> {
    const [row] = await read<{ json: string }>(statementName(viewText), viewText, [enrollment.id]);
    return JSON.parse(row!.json) as Record<string, unknown>;
  }

  /** The learner's own enrollment, for checkout: 404 none, 403 someone else's. */
  async function ownEnrollment(actor: Actor, enrollmentId: string): Promise<Enrollment> {
    const enrollment = await Enrollment.findByPk(enrollmentId);
    if (!enrollment) throw notFound('No such enrollment.');
    if (enrollment.learnerLmsUserId !== actor.user.id)
      throw forbidden('auth.out_of_scope', "This enrollment is another learner's.");
    return enrollment;
  }

  return {
    /** The learner's enrollments: one statement a page, the reply's JSON made in it (`enrollmentJson`). */
    async mine(actor: Actor, page: PageRequest, status?: EnrollmentStatus) {
      requireLearner(actor);
      const where = new Conditions().add('x.learner_lms_user_id = ?', actor.user.id);
      if (status) where.add('x.status = ?', status);
      const { items, meta } = await keysetRows<{ id: string; json: string }>(read, page, {
        select: `x.id, ${enrollmentJson('x')}::text AS json`,
        from: 'lms.lms_enrollments x',
        where,
        key: 'x.id',
        desc: true,
      });
      return { data: JsonText.array(items.map((row) => row.json)), meta };
    },

    /** The enrollment with its progress: for its learner, the course's instructors, and staff. */
    async detail(actor: Actor, enrollmentId: string) {
      const enrollment = await Enrollment.findByPk(enrollmentId);
      if (!enrollment) throw notFound('No such enrollment.');
      const allowed =
        enrollment.learnerLmsUserId === actor.user.id ||
        actor.staffRole !== null ||
        (await CourseInstructor.count({ where: { courseId: enrollment.courseId, lmsUserId: actor.user.id } })) > 0;
      if (!allowed) throw forbidden('auth.out_of_scope', "This enrollment is another learner's.");
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
        const existing = await Enrollment.findOne({
          where: { courseId, learnerLmsUserId: actor.user.id },
          transaction,
          lock: transaction.LOCK.UPDATE,
        });
        if (existing && (existing.status === 'active' || existing.status === 'completed')) {
          throw conflict('lms.enrollment.exists', `You are already enrolled in this course (${existing.status}).`);
        }
        const held = await Entitlement.findOne({
          where: { courseId, learnerLmsUserId: actor.user.id, status: 'active' },
          transaction,
        });
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
        return entitlements.enroll(transaction, courseId, actor.user.id);
      });
      return view(enrollment);
    },

    /**
     * Starts paying for a pending enrollment at the course's price. A pending attempt is answered
     * again (the same payment), so a repeated or concurrent checkout never charges twice.
     */
    async checkout(actor: Actor, enrollmentId: string) {
      const enrollment = await ownEnrollment(actor, enrollmentId);
      if (enrollment.status === 'active' || enrollment.status === 'completed')
        throw conflict('lms.checkout.already_paid', 'This enrollment is already active: there is nothing to pay.');
      const course = await Course.findByPk(enrollment.courseId, { rejectOnEmpty: true });
      if (BigInt(course.priceMinorUnits) === 0n)
        throw conflict(
          'lms.checkout.zero_price',
          'This course is free: enrolling activates it, there is nothing to pay.',
        );
      return deps.checkouts.start(
        'course',
        { id: enrollment.id, learnerLmsUserId: actor.user.id, payerUserId: actor.user.userId },
        money(course.priceMinorUnits, course.currency),
      );
    },

    /** A paid course checkout, in the delivery's transaction: the course is granted (once). */
    async paid(attempt: CheckoutAttempt, data: PaymentCompletedData, transaction: Transaction) {
      const enrollment = await Enrollment.findByPk(attempt.targetId, { transaction, rejectOnEmpty: true });
      await entitlements.grant(transaction, {
        courseId: enrollment.courseId,
        learnerLmsUserId: enrollment.learnerLmsUserId,
        source: 'self_pay',
        paymentId: data.paymentId,
        amountMinorUnits: data.amount.amountMinorUnits,
        currency: data.amount.currency,
      });
    },
  };
}

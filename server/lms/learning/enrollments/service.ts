import type { Sequelize, Transaction } from 'sequelize';
import type { PaymentCompletedData } from '../../../contracts/payment-completed.ts';
import { conflict, forbidden, notFound } from '../../../platform/http/errors.ts';
import { isoTime } from '../../../platform/db/iso-time.ts';
import { Conditions, keysetRows } from '../../../platform/db/keyset.ts';
import { preparedReads } from '../../../platform/db/prepared.ts';
import type { PageRequest } from '../../../platform/http/pagination.ts';
import { money } from '../../../platform/money.ts';
import type { Actor } from '../../people/index.ts';
import { catalogueSql, defineCourseModels } from '../../catalogue/index.ts';
import type { Player } from '../player/service.ts';
import type { CheckoutAttempt, Checkouts } from './checkout.ts';
import type { Entitlements } from './entitlements.ts';
import { defineEnrollmentModels, type Enrollment, type EnrollmentStatus, type Entitlement } from './models.ts';

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

/** The entitlement whose id is the SQL expression `id` as entitlementView shows it (JSON), or null. */
const entitlementJson = (id: string) => `(SELECT json_build_object('id', n.id, 'courseId', n.course_id,
    'learnerLmsUserId', n.learner_lms_user_id, 'source', n.source, 'status', n.status, 'sponsorUserId', n.sponsor_user_id,
    'sponsorNote', n.sponsor_note, 'paymentId', n.payment_id, 'capApplicationId', n.cap_application_id,
    'amount', json_build_object('amountMinorUnits', n.amount_minor_units::text, 'currency', n.currency),
    'priceRevisionId', n.price_revision_id, 'validFrom', ${isoTime('n.valid_from')}, 'validUntil', ${isoTime('n.valid_until')})
  FROM lms.lms_entitlements n WHERE n.id = ${id})`;

interface EnrollmentRow {
  id: string;
  courseId: string;
  courseTitle: string;
  learnerLmsUserId: string;
  status: EnrollmentStatus;
  percentComplete: number;
  entitlement: ReturnType<typeof entitlementView> | null;
  createdAt: string;
  completedAt: string | null;
}

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

  async function views(enrollments: Enrollment[]) {
    const courseIds = [...new Set(enrollments.map((e) => e.courseId))];
    const titles = new Map(
      (await Course.findAll({ where: { id: courseIds }, attributes: ['id', 'title'] })).map((c) => [c.id, c.title]),
    );
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
    if (enrollment.learnerLmsUserId !== actor.user.id)
      throw forbidden('auth.out_of_scope', "This enrollment is another learner's.");
    return enrollment;
  }

  return {
    /** The learner's enrollments: one statement a page, the course's title and the entitlement (as entitlementView shows it) read in it. */
    async mine(actor: Actor, page: PageRequest, status?: EnrollmentStatus) {
      requireLearner(actor);
      const where = new Conditions().add('x.learner_lms_user_id = ?', actor.user.id);
      if (status) where.add('x.status = ?', status);
      const { items, meta } = await keysetRows<EnrollmentRow>(read, page, {
        select: `x.id, x.course_id AS "courseId", coalesce(${catalogueSql.courseTitle('x.course_id')}, '') AS "courseTitle",
          x.learner_lms_user_id AS "learnerLmsUserId", x.status, x.percent_complete AS "percentComplete",
          ${entitlementJson('x.entitlement_id')} AS entitlement,
          ${isoTime('x.created_at')} AS "createdAt", ${isoTime('x.completed_at')} AS "completedAt"`,
        from: 'lms.lms_enrollments x',
        where,
        key: 'x.id',
        desc: true,
      });
      const data = items.map(({ entitlement, createdAt, completedAt, ...enrollment }) => ({
        ...enrollment,
        ...(entitlement ? { entitlement } : {}),
        createdAt,
        completedAt,
      }));
      return { data, meta };
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

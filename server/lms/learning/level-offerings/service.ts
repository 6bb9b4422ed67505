import { QueryTypes, UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import type { PaymentCompletedData } from '../../../contracts/payment-completed.ts';
import { Conditions, keysetRows } from '../../../platform/db/keyset.ts';
import { preparedReads } from '../../../platform/db/prepared.ts';
import { conflict, forbidden, notFound, validationFailed } from '../../../platform/http/errors.ts';
import type { PageRequest } from '../../../platform/http/pagination.ts';
import { newId } from '../../../platform/ids.ts';
import { defineLifecycle, lifecycleWriter, tableStore } from '../../../platform/lifecycle.ts';
import { money, type Money } from '../../../platform/money.ts';
import type { Actor } from '../../people/index.ts';
import { defineCourseModels, type Course } from '../../catalogue/index.ts';
import { priceAsWritten } from '../../catalogue/index.ts';
import type { CheckoutAttempt, Checkouts } from '../enrollments/checkout.ts';
import type { Entitlements } from '../enrollments/entitlements.ts';

/**
 * A level offering, as data: authored as a `draft`, published by staff once it is publishable (the
 * problems are the refusal's details), and unpublished back to a draft. Publishing a published one or
 * unpublishing a draft changes nothing. `archived` is in the vocabulary; nothing leads there yet.
 */
export const levelOfferingLifecycle = defineLifecycle({
  subject: 'level offering',
  statuses: ['draft', 'published', 'archived'],
  movers: ['staff'],
  moves: {
    create: { from: [null], to: 'draft', by: ['staff'] },
    publish: { from: ['draft', 'archived'], to: 'published', by: ['staff'], guards: ['publishable'] },
    unpublish: { from: ['published', 'archived'], to: 'draft', by: ['staff'] },
  },
  guards: {
    publishable: (problems: Array<{ field: string; issue: string }>) =>
      problems.length ? { reason: 'This offering cannot be published yet.', details: problems } : undefined,
  },
  idempotent: true,
});
export type LevelOfferingStatus = (typeof levelOfferingLifecycle.statuses)[number];

/**
 * A level enrollment, as data: `pending` until paid (or at once when nothing is due), then `active`
 * with its courses granted; the refund of its payment ends it (`withdrawn`). `expired` is in the
 * vocabulary; nothing leads there yet.
 */
export const levelEnrollmentLifecycle = defineLifecycle({
  subject: 'level enrollment',
  statuses: ['pending', 'active', 'expired', 'withdrawn'],
  movers: ['learner', 'lms'],
  moves: {
    enroll: { from: [null], to: 'pending', by: ['learner'] },
    activate: { from: ['pending'], to: 'active', by: ['lms'] },
    refunded: { from: ['active'], to: 'withdrawn', by: ['lms'] },
  },
  idempotent: true,
});
export type LevelEnrollmentStatus = (typeof levelEnrollmentLifecycle.statuses)[number];

interface OfferingRow {
  id: string;
  capQualificationLevelId: string;
  title: string;
  description: string;
  status: LevelOfferingStatus;
  /** Null: the sum of the members' prices. */
  priceMinorUnits: string | null;
  currency: string;
  publishedAt: Date | null;
}

interface LevelEnrollmentRow {
  id: string;
  offeringId: string;
  offeringTitle: string;
  learnerLmsUserId: string;
  status: LevelEnrollmentStatus;
  amountMinorUnits: string;
  currency: string;
  courseIds: string[];
  paymentId: string | null;
  createdAt: Date;
}

export interface OfferingWrite {
  capQualificationLevelId?: string;
  title?: string;
  description?: string;
  price?: Money | null;
  items?: Array<{ courseId: string }>;
}

const offeringColumns = `o.id, o.cap_qualification_level_id AS "capQualificationLevelId", o.title, o.description, o.status,
  o.price_minor_units AS "priceMinorUnits", o.currency, o.published_at AS "publishedAt"`;
const levelEnrollmentColumns = `x.id, x.offering_id AS "offeringId", o.title AS "offeringTitle", x.learner_lms_user_id AS "learnerLmsUserId", x.status,
  x.amount_minor_units AS "amountMinorUnits", x.currency, x.course_ids AS "courseIds", x.payment_id AS "paymentId", x.created_at AS "createdAt"`;

export type LevelOfferings = ReturnType<typeof createLevelOfferings>;

/**
 * Level offerings: the published courses of one CAP qualification level sold together (see the
 * LevelOfferings tag of openapi/lms/level-offerings.yaml for the rules), their level enrollments and
 * checkout. Paying grants every member course through the entitlements (source `level_offering`), so a
 * repeated `payment.completed` grants nothing twice.
 */
export function createLevelOfferings(deps: { sequelize: Sequelize; entitlements: Entitlements; checkouts: Checkouts }) {
  const { sequelize, entitlements } = deps;
  const { Course } = defineCourseModels(sequelize);
  const read = preparedReads(sequelize);
  const offerings = lifecycleWriter(levelOfferingLifecycle, {
    store: tableStore<OfferingRow>('lms.lms_level_offerings'),
    refuse: (refusal) =>
      conflict(
        'lms.level_offering.not_publishable',
        refusal.reason,
        refusal.kind === 'guard_failed' ? refusal.details : undefined,
      ),
  });
  const levelEnrollments = lifecycleWriter(levelEnrollmentLifecycle, {
    store: tableStore<LevelEnrollmentRow>('lms.lms_level_enrollments'),
  });
  const select = <T extends object>(sql: string, bind: unknown[], transaction?: Transaction) =>
    sequelize.query<T>(sql, { type: QueryTypes.SELECT, bind, transaction });

  function requireStaff(actor: Actor): void {
    if (!actor.staffRole) throw forbidden('auth.out_of_scope', 'Level offerings are authored by active LMS staff.');
  }

  function requireLearner(actor: Actor): void {
    if (!actor.personas.has('learner'))
      throw forbidden('lms.onboarding.incomplete', 'Complete the learner onboarding first.');
  }

  /** The offering; `lock` takes its row for a change (`update`) or keeps it from changing meanwhile (`share`). */
  async function offeringRow(
    id: string,
    transaction?: Transaction,
    lock?: 'update' | 'share',
  ): Promise<OfferingRow | undefined> {
    const [row] = await select<OfferingRow>(
      `SELECT ${offeringColumns} FROM lms.lms_level_offerings o WHERE o.id = $1${lock ? ` FOR ${lock.toUpperCase()}` : ''}`,
      [id],
      transaction,
    );
    return row;
  }

  /** The learner's pending or active level enrollment in the offering, if any. */
  async function openEnrollment(offeringId: string, learnerLmsUserId: string, transaction?: Transaction) {
    const [open] = await select<{ id: string; status: LevelEnrollmentStatus }>(
      `SELECT id, status FROM lms.lms_level_enrollments WHERE offering_id = $1 AND learner_lms_user_id = $2 AND status IN ('pending', 'active')`,
      [offeringId, learnerLmsUserId],
      transaction,
    );
    return open;
  }

  /** The member courses of each offering, in their order: two queries however many offerings. */
  async function membersOfEach(offeringIds: string[], transaction?: Transaction): Promise<Map<string, Course[]>> {
    const links = await select<{ offeringId: string; courseId: string }>(
      'SELECT offering_id AS "offeringId", course_id AS "courseId" FROM lms.lms_level_offering_courses WHERE offering_id = ANY($1) ORDER BY position',
      [offeringIds],
      transaction,
    );
    const courses = new Map(
      (await Course.findAll({ where: { id: [...new Set(links.map((l) => l.courseId))] }, transaction })).map((c) => [
        c.id,
        c,
      ]),
    );
    return new Map(
      offeringIds.map((id) => [id, links.filter((l) => l.offeringId === id).map((l) => courses.get(l.courseId)!)]),
    );
  }

  /** The member courses of an offering, in their order. */
  const membersOf = async (offeringId: string, transaction?: Transaction): Promise<Course[]> =>
    (await membersOfEach([offeringId], transaction)).get(offeringId)!;

  /** Course ids among `courseIds` that the learner holds an active entitlement to. */
  async function heldCourses(
    learnerLmsUserId: string,
    courseIds: string[],
    transaction?: Transaction,
  ): Promise<Set<string>> {
    if (courseIds.length === 0) return new Set();
    const rows = await select<{ courseId: string }>(
      `SELECT course_id AS "courseId" FROM lms.lms_entitlements WHERE learner_lms_user_id = $1 AND course_id = ANY($2) AND status = 'active'`,
      [learnerLmsUserId, courseIds],
      transaction,
    );
    return new Set(rows.map((r) => r.courseId));
  }

  const priceOf = (offering: OfferingRow, members: Course[]): bigint =>
    offering.priceMinorUnits !== null
      ? BigInt(offering.priceMinorUnits)
      : members.reduce((sum, c) => sum + BigInt(c.priceMinorUnits), 0n);

  const summary = (offering: OfferingRow, members: Course[]) => ({
    id: offering.id,
    capQualificationLevelId: offering.capQualificationLevelId,
    title: offering.title,
    description: offering.description,
    status: offering.status,
    price: money(priceOf(offering, members), offering.currency),
    publishedAt: offering.publishedAt?.toISOString() ?? null,
  });

  async function detailView(offering: OfferingRow, viewer?: Actor) {
    const members = await membersOf(offering.id);
    const owned = viewer
      ? await heldCourses(
          viewer.user.id,
          members.map((c) => c.id),
        )
      : new Set<string>();
    return {
      ...summary(offering, members),
      items: members.map((c) => ({
        courseId: c.id,
        courseTitle: c.title,
        unitId: c.unitId ?? '',
        price: money(c.priceMinorUnits, c.currency),
      })),
      alreadyOwned: members.filter((c) => owned.has(c.id)).map((c) => c.id),
    };
  }

  async function page(page: PageRequest, where: Conditions) {
    const { items, meta } = await keysetRows<OfferingRow>(read, page, {
      select: offeringColumns,
      from: 'lms.lms_level_offerings o',
      alias: 'o',
      where,
      key: 'o.id',
      desc: true,
    });
    const members = await membersOfEach(items.map((o) => o.id));
    return { data: items.map((o) => summary(o, members.get(o.id)!)), meta };
  }

  /** Replaces the members with `items` (each an existing course, once, in the order given); 422 naming any unknown course. */
  async function setMembers(
    offeringId: string,
    items: Array<{ courseId: string }>,
    transaction: Transaction,
  ): Promise<void> {
    const ids = [...new Set(items.map((i) => i.courseId))];
    const found = await Course.findAll({ where: { id: ids }, attributes: ['id'], transaction });
    const unknown = items
      .map((item, i) => ({ item, i }))
      .filter(({ item }) => !found.some((c) => c.id === item.courseId));
    if (unknown.length)
      throw validationFailed(
        unknown.map(({ i }) => ({ field: `body.items[${i}].courseId`, issue: 'is not a course of this LMS' })),
      );
    await sequelize.query('DELETE FROM lms.lms_level_offering_courses WHERE offering_id = $1', {
      bind: [offeringId],
      transaction,
    });
    for (const [position, courseId] of ids.entries()) {
      await sequelize.query(
        'INSERT INTO lms.lms_level_offering_courses (offering_id, course_id, position) VALUES ($1, $2, $3)',
        { bind: [offeringId, courseId, position], transaction },
      );
    }
  }

  /** Why an offering cannot be published, every reason; empty when it can. */
  async function publishingProblems(
    offering: OfferingRow,
    transaction: Transaction,
  ): Promise<Array<{ field: string; issue: string }>> {
    const members = await membersOf(offering.id, transaction);
    const problems: Array<{ field: string; issue: string }> = [];
    if (members.length === 0) problems.push({ field: 'items', issue: 'an offering needs at least one member course' });
    for (const [i, course] of members.entries()) {
      const field = `items[${i}]`;
      if (course.status !== 'published') problems.push({ field, issue: `${course.title} is not published` });
      if (!course.unitId) problems.push({ field, issue: `${course.title} is not mapped to a CAP unit` });
      if (course.qualificationLevelId !== offering.capQualificationLevelId)
        problems.push({
          field,
          issue: `${course.title} is not a course of qualification level ${offering.capQualificationLevelId}`,
        });
      if (offering.priceMinorUnits === null && course.currency !== offering.currency)
        problems.push({
          field,
          issue: `${course.title} is priced in ${course.currency}, the offering in ${offering.currency}`,
        });
    }
    const [other] = await select<{ id: string }>(
      `SELECT id FROM lms.lms_level_offerings WHERE cap_qualification_level_id = $1 AND status = 'published' AND id <> $2`,
      [offering.capQualificationLevelId, offering.id],
      transaction,
    );
    if (other)
      problems.push({
        field: 'capQualificationLevelId',
        issue: `offering ${other.id} is already published for this level`,
      });
    return problems;
  }

  const levelEnrollmentView = (row: LevelEnrollmentRow) => ({
    id: row.id,
    offeringId: row.offeringId,
    offeringTitle: row.offeringTitle,
    learnerLmsUserId: row.learnerLmsUserId,
    status: row.status,
    amount: money(row.amountMinorUnits, row.currency),
    priceRevisionId: null,
    paymentId: row.paymentId,
    createdAt: row.createdAt.toISOString(),
  });

  async function levelEnrollmentRow(
    id: string,
    transaction?: Transaction,
    lock = false,
  ): Promise<LevelEnrollmentRow | undefined> {
    const [row] = await select<LevelEnrollmentRow>(
      `SELECT ${levelEnrollmentColumns} FROM lms.lms_level_enrollments x JOIN lms.lms_level_offerings o ON o.id = x.offering_id WHERE x.id = $1${lock ? ' FOR UPDATE OF x' : ''}`,
      [id],
      transaction,
    );
    return row;
  }

  /** Activates a level enrollment and grants each of its courses (source `level_offering`), in `transaction`. Safe to repeat. */
  async function activate(row: LevelEnrollmentRow, transaction: Transaction, paymentId: string | null): Promise<void> {
    if (row.status !== 'active')
      await levelEnrollments.move(transaction, row, 'activate', {
        by: 'lms',
        changes: paymentId ? { payment_id: paymentId } : {},
      });
    for (const courseId of row.courseIds) {
      await entitlements.grant(transaction, {
        courseId,
        learnerLmsUserId: row.learnerLmsUserId,
        source: 'level_offering',
        paymentId,
        currency: row.currency,
      });
    }
  }

  return {
    // ---- the catalogue --------------------------------------------------------------------------
    catalogue: (pageRequest: PageRequest, qualificationLevelId?: string) => {
      const where = new Conditions().add(`o.status = 'published'`);
      if (qualificationLevelId) where.add('o.cap_qualification_level_id = ?', qualificationLevelId);
      return page(pageRequest, where);
    },

    async published(actor: Actor, id: string) {
      const offering = await offeringRow(id);
      if (!offering || offering.status !== 'published') throw notFound('No such level offering in the catalogue.');
      return detailView(offering, actor);
    },

    // ---- authoring (staff) ------------------------------------------------------------------------
    authored(
      actor: Actor,
      pageRequest: PageRequest,
      filters: { status?: LevelOfferingStatus; qualificationLevelId?: string },
    ) {
      requireStaff(actor);
      const where = new Conditions();
      if (filters.status) where.add('o.status = ?', filters.status);
      if (filters.qualificationLevelId) where.add('o.cap_qualification_level_id = ?', filters.qualificationLevelId);
      return page(pageRequest, where);
    },

    async authoredOne(actor: Actor, id: string) {
      requireStaff(actor);
      const offering = await offeringRow(id);
      if (!offering) throw notFound('No such level offering.');
      return detailView(offering);
    },

    async create(
      actor: Actor,
      write: Required<Pick<OfferingWrite, 'capQualificationLevelId' | 'title'>> & OfferingWrite,
    ) {
      requireStaff(actor);
      const title = write.title.trim();
      if (!title) throw validationFailed([{ field: 'body.title', issue: 'cannot be blank' }]);
      const price = write.price ? priceAsWritten(write.price) : null;
      const id = newId();
      await sequelize.transaction(async (transaction) => {
        await offerings.create(
          transaction,
          'create',
          {
            id,
            cap_qualification_level_id: write.capQualificationLevelId.trim(),
            title,
            description: write.description ?? '',
            price_minor_units: price?.minor.toString() ?? null,
            currency: price?.currency ?? 'NGN',
            published_at: null,
            created_by: actor.user.id,
          },
          { by: 'staff' },
        );
        await setMembers(id, write.items ?? [], transaction);
      });
      return detailView((await offeringRow(id))!);
    },

    async update(actor: Actor, id: string, write: OfferingWrite) {
      requireStaff(actor);
      await sequelize.transaction(async (transaction) => {
        const offering = await offeringRow(id, transaction, 'update');
        if (!offering) throw notFound('No such level offering.');
        if (write.items !== undefined && offering.status !== 'draft') {
          throw conflict(
            'lms.level_offering.published',
            'Members change only while the offering is a draft: unpublish it first.',
          );
        }
        const title = write.title?.trim();
        if (title === '') throw validationFailed([{ field: 'body.title', issue: 'cannot be blank' }]);
        const price = write.price ? priceAsWritten(write.price) : write.price;
        await sequelize.query(
          `UPDATE lms.lms_level_offerings SET title = coalesce($2, title), description = coalesce($3, description),
             price_minor_units = CASE WHEN $4::boolean THEN $5::bigint ELSE price_minor_units END,
             currency = coalesce($6, currency), updated_at = now() WHERE id = $1`,
          {
            bind: [
              id,
              title ?? null,
              write.description ?? null,
              price !== undefined,
              price?.minor.toString() ?? null,
              price?.currency ?? null,
            ],
            transaction,
          },
        );
        if (write.items !== undefined) await setMembers(id, write.items, transaction);
      });
      return detailView((await offeringRow(id))!);
    },

    async publish(actor: Actor, id: string) {
      requireStaff(actor);
      try {
        await sequelize.transaction(async (transaction) => {
          const offering = await offeringRow(id, transaction, 'update');
          if (!offering) throw notFound('No such level offering.');
          // A published offering is not checked again: publishing it changes nothing.
          const problems = offering.status === 'published' ? [] : await publishingProblems(offering, transaction);
          await offerings.move(transaction, offering, 'publish', {
            by: 'staff',
            facts: problems,
            changes: { published_at: new Date() },
          });
        });
      } catch (err) {
        // Another offering of the level was published at the same moment: the unique index kept one.
        if (err instanceof UniqueConstraintError) {
          throw conflict('lms.level_offering.not_publishable', 'This offering cannot be published yet.', [
            { field: 'capQualificationLevelId', issue: 'another offering was just published for this level' },
          ]);
        }
        throw err;
      }
      return detailView((await offeringRow(id))!);
    },

    async unpublish(actor: Actor, id: string) {
      requireStaff(actor);
      await sequelize.transaction(async (transaction) => {
        const offering = await offeringRow(id, transaction, 'update');
        if (!offering) throw notFound('No such level offering.');
        await offerings.move(transaction, offering, 'unpublish', { by: 'staff' });
      });
      return detailView((await offeringRow(id))!);
    },

    // ---- level enrollments ------------------------------------------------------------------------
    /**
     * Enrols the learner in the members they do not hold yet, at the offering's price less what the
     * held members cost. Nothing to pay: active at once, members granted. Otherwise pending (a pending
     * one is answered again).
     */
    async enroll(actor: Actor, offeringId: string) {
      requireLearner(actor);
      const enrol = () =>
        sequelize.transaction(async (transaction) => {
          // Shared: learners enrol side by side, while nobody changes the offering under them.
          const offering = await offeringRow(offeringId, transaction, 'share');
          if (!offering || offering.status !== 'published') throw notFound('No such level offering in the catalogue.');
          const open = await openEnrollment(offeringId, actor.user.id, transaction);
          if (open?.status === 'active')
            throw conflict('lms.level_enrollment.exists', 'You are already enrolled in this level offering.');
          if (open) return open.id;
          const members = await membersOf(offeringId, transaction);
          const held = await heldCourses(
            actor.user.id,
            members.map((c) => c.id),
            transaction,
          );
          const remaining = members.filter((c) => !held.has(c.id));
          if (remaining.length === 0)
            throw conflict('lms.level_enrollment.nothing_left', 'You already hold every course of this offering.');
          const heldValue = members
            .filter((c) => held.has(c.id))
            .reduce((sum, c) => sum + BigInt(c.priceMinorUnits), 0n);
          const due = priceOf(offering, members) - heldValue;
          const amount = due > 0n ? due : 0n;
          const levelEnrollmentId = newId();
          await levelEnrollments.create(
            transaction,
            'enroll',
            {
              id: levelEnrollmentId,
              offering_id: offeringId,
              learner_lms_user_id: actor.user.id,
              amount_minor_units: amount.toString(),
              currency: offering.currency,
              course_ids: JSON.stringify(remaining.map((c) => c.id)),
              payment_id: null,
            },
            { by: 'learner' },
          );
          if (amount === 0n)
            await activate((await levelEnrollmentRow(levelEnrollmentId, transaction))!, transaction, null);
          return levelEnrollmentId;
        });
      let id: string;
      try {
        id = await enrol();
      } catch (err) {
        // The same learner enrolling twice at once: the unique index kept the first; answer it (or its 409).
        if (!(err instanceof UniqueConstraintError)) throw err;
        id = await enrol();
      }
      return levelEnrollmentView((await levelEnrollmentRow(id))!);
    },

    async checkout(actor: Actor, levelEnrollmentId: string) {
      const row = await levelEnrollmentRow(levelEnrollmentId);
      if (!row) throw notFound('No such level enrollment.');
      if (row.learnerLmsUserId !== actor.user.id)
        throw forbidden('auth.out_of_scope', "This level enrollment is another learner's.");
      if (row.status !== 'pending')
        throw conflict('lms.checkout.already_paid', `This level enrollment is ${row.status}: there is nothing to pay.`);
      return deps.checkouts.start(
        'level',
        { id: row.id, learnerLmsUserId: row.learnerLmsUserId, payerUserId: actor.user.userId },
        money(row.amountMinorUnits, row.currency),
      );
    },

    async mine(actor: Actor, pageRequest: PageRequest, status?: LevelEnrollmentStatus) {
      const where = new Conditions().add('x.learner_lms_user_id = ?', actor.user.id);
      if (status) where.add('x.status = ?', status);
      const { items, meta } = await keysetRows<LevelEnrollmentRow>(read, pageRequest, {
        select: levelEnrollmentColumns,
        from: 'lms.lms_level_enrollments x JOIN lms.lms_level_offerings o ON o.id = x.offering_id',
        where,
        key: 'x.id',
        desc: true,
      });
      return { data: items.map(levelEnrollmentView), meta };
    },

    /** A paid level checkout, in the delivery's transaction: the level enrollment is active and its courses granted (once). */
    async paid(attempt: CheckoutAttempt, data: PaymentCompletedData, transaction: Transaction) {
      const row = await levelEnrollmentRow(attempt.targetId, transaction, true);
      if (!row)
        throw new Error(`payment ${data.paymentId} pays level enrollment ${attempt.targetId}, which does not exist`);
      await activate(row, transaction, data.paymentId);
    },

    /** The refund of a level checkout, in the delivery's transaction: its level enrollment ends (the members' entitlements are revoked by the entitlements). */
    async refunded(attempt: CheckoutAttempt, transaction: Transaction) {
      const row = await levelEnrollmentRow(attempt.targetId, transaction, true);
      if (row?.status === 'active') await levelEnrollments.move(transaction, row, 'refunded', { by: 'lms' });
    },

    /** The published member courses of a published offering (a learner enrolled by staff or a seat gets these); undefined when it is none. */
    async publishedMembers(offeringId: string): Promise<Course[] | undefined> {
      const offering = await offeringRow(offeringId);
      if (!offering || offering.status !== 'published') return undefined;
      return (await membersOf(offeringId)).filter((c) => c.status === 'published');
    },
  };
}

import { QueryTypes, type Sequelize } from 'sequelize';
import { conflict, forbidden, notFound, validationFailed } from '../../../platform/http/errors.ts';
import { Conditions, keysetInstances, keysetRows } from '../../../platform/db/keyset.ts';
import { isoTime } from '../../../platform/db/iso-time.ts';
import { containing } from '../../../platform/db/like.ts';
import { preparedReads } from '../../../platform/db/prepared.ts';
import type { PageRequest } from '../../../platform/http/pagination.ts';
import { lifecycleWriter, modelStore } from '../../../platform/lifecycle.ts';
import { money } from '../../../platform/money.ts';
import type { Actor } from '../../people/index.ts';
import { defineCourseModels } from '../../catalogue/index.ts';
import type { Entitlements, GrantRequest } from '../../learning/index.ts';
import {
  defineEnrollmentModels,
  type Enrollment,
  type Entitlement,
  type EnrollmentStatus,
} from '../../learning/index.ts';
import { defineUserModels } from '../../people/index.ts';
import { defineStaffModels, membershipLifecycle, type StaffMember, type StaffRole } from '../../people/index.ts';

export interface EntitlementGrantBody {
  courseId: string;
  learnerLmsUserId: string;
  source: 'admin_grant' | 'sponsor' | 'cap_recommendation';
  sponsorUserId?: string;
  sponsorNote?: string;
  capApplicationId?: string;
  validUntil?: string;
}

/** The settings of a platform that never saved any. */
const emptyDocument = { mode: 'text' as const, content: null, documentAssetId: null };
const emptySettings = {
  contact: { email: null, phone: null },
  terms: emptyDocument,
  privacy: emptyDocument,
  refund: emptyDocument,
};
type LegalDocument = { mode: 'text' | 'pdf'; content: string | null; documentAssetId: string | null };
type Settings = {
  contact: { email: string | null; phone: { countryCode: string; number: string } | null };
  terms: LegalDocument;
  privacy: LegalDocument;
  refund: LegalDocument;
};
const legalSections = ['terms', 'privacy', 'refund'] as const;
const genders = ['female', 'male', 'other', 'unspecified'] as const;

export type Staff = ReturnType<typeof createStaff>;

/** A checkout attempt as the payments screens read it. */
interface PaymentRow {
  id: string;
  kind: 'course' | 'level';
  status: 'pending' | 'completed' | 'failed' | 'refunding' | 'refunded';
  amountMinorUnits: string;
  currency: string;
  paymentId: string;
  paidAt: Date | null;
  initiatedAt: Date;
  learnerName: string;
  courseId: string | null;
  courseTitle: string | null;
  levelOfferingId: string | null;
  levelOfferingTitle: string | null;
}

interface StaffListRow {
  id: string;
  lmsUserId: string;
  displayName: string | null;
  email: string | null;
  photoAssetId: string | null;
  role: StaffRole;
  status: string;
  createdAt: string;
}

/** An LMS user's name as staff screens show it: from their first onboarding, else their display name, else their address's local part. */
const learnerNameSql = (u: string) => `COALESCE(
  (SELECT NULLIF(trim(concat_ws(' ', o.data->'personalDetails'->>'firstName', o.data->'personalDetails'->>'lastName')), '')
     FROM "lms"."lms_onboardings" o WHERE o.lms_user_id = ${u}.id ORDER BY o.created_at LIMIT 1),
  ${u}.display_name, split_part(${u}.email, '@', 1), '')`;

/** Staff work: memberships, access grants, enrollments across courses, payments, dashboard, settings. */
export function createStaff(sequelize: Sequelize, entitlements: Entitlements) {
  const read = preparedReads(sequelize);
  const { StaffMember } = defineStaffModels(sequelize);
  const memberships = lifecycleWriter(membershipLifecycle, { store: modelStore(StaffMember) });
  const { LmsUser } = defineUserModels(sequelize);
  const { Course } = defineCourseModels(sequelize);
  const { Enrollment, Entitlement } = defineEnrollmentModels(sequelize);

  // ---- memberships -------------------------------------------------------------------------------

  async function membershipView(member: StaffMember) {
    return (await membershipViews([member]))[0]!;
  }

  /** Members as staff screens show them: their users and names read once for the lot. */
  async function membershipViews(members: StaffMember[]) {
    const ids = members.map((m) => m.lmsUserId);
    const [people, names] = await Promise.all([
      ids.length ? LmsUser.findAll({ where: { id: ids } }) : [],
      displayNames(ids),
    ]);
    const personOf = new Map(people.map((person) => [person.id, person]));
    return members.map((member) => {
      const person = personOf.get(member.lmsUserId);
      return {
        lmsUserId: member.lmsUserId,
        displayName: names.get(member.lmsUserId) ?? null,
        email: person?.email ?? null,
        photoAssetId: person?.photoAssetId ?? null,
        photo: person?.photoAssetId ? { assetId: person.photoAssetId, url: null } : null,
        role: member.role,
        status: member.status,
        createdAt: member.createdAt.toISOString(),
      };
    });
  }

  /** Names as people see them: first and last name from an onboarding, else the display name, else the address's local part. */
  async function displayNames(ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await sequelize.query<{ id: string; name: string }>(
      `SELECT u.id, ${learnerNameSql('u')} AS name FROM "lms"."lms_users" u WHERE u.id IN (:ids)`,
      {
        replacements: { ids },
        type: QueryTypes.SELECT,
      },
    );
    return new Map(rows.filter((r) => r.name).map((r) => [r.id, r.name]));
  }

  /** One statement a page: each member's user and name joined (membershipViews' shape). */
  async function listStaff(page: PageRequest) {
    const { items, meta } = await keysetRows<StaffListRow>(read, page, {
      select: `x.id, x.lms_user_id AS "lmsUserId", NULLIF(${learnerNameSql('u')}, '') AS "displayName", u.email,
        u.photo_asset_id AS "photoAssetId", x.role, x.status, ${isoTime('x.created_at')} AS "createdAt"`,
      from: 'lms.lms_staff_members x LEFT JOIN lms.lms_users u ON u.id = x.lms_user_id',
      where: new Conditions(),
      key: 'x.id',
      desc: true,
    });
    // Each field written out: a rest and a spread per row cost list pages their share (bench/NOTES.md).
    const data = items.map((row: StaffListRow) => ({
      lmsUserId: row.lmsUserId,
      displayName: row.displayName,
      email: row.email,
      photoAssetId: row.photoAssetId,
      photo: row.photoAssetId ? { assetId: row.photoAssetId, url: null } : null,
      role: row.role,
      status: row.status,
      createdAt: row.createdAt,
    }));
    return { data, meta };
  }

  async function updateMember(
    actor: Actor,
    lmsUserId: string,
    patch: { role?: StaffRole; status?: 'active' | 'suspended' },
  ) {
    const member = await StaffMember.findOne({ where: { lmsUserId } });
    if (!member) throw notFound('That user is not staff.');
    // An admin cannot take away their own admin rights: someone must always be left to manage staff.
    if (lmsUserId === actor.user.id && ((patch.role && patch.role !== 'admin') || patch.status === 'suspended')) {
      throw forbidden('auth.out_of_scope', 'Admins cannot demote or suspend themselves.');
    }
    await sequelize.transaction(async (transaction) => {
      if (patch.role) await member.update({ role: patch.role }, { transaction });
      if (patch.status)
        await memberships.move(transaction, member, patch.status === 'suspended' ? 'suspend' : 'reinstate', {
          by: 'staff',
        });
    });
    return membershipView(member);
  }

  // ---- access grants and enrollments -------------------------------------------------------------

  async function grant(actor: Actor, body: EntitlementGrantBody) {
    const [course, learner] = await Promise.all([
      Course.findByPk(body.courseId),
      LmsUser.findByPk(body.learnerLmsUserId),
    ]);
    if (!course) throw notFound('No such course.');
    if (!learner) throw notFound('No such learner.');
    const validUntil = body.validUntil ? new Date(body.validUntil) : null;
    if (validUntil && validUntil.getTime() <= Date.now())
      throw validationFailed([{ field: 'body.validUntil', issue: 'must be in the future' }]);
    const request: GrantRequest = {
      courseId: course.id,
      learnerLmsUserId: learner.id,
      source: body.source,
      sponsorUserId: body.sponsorUserId ?? (body.source === 'sponsor' ? null : actor.user.userId),
      sponsorNote: body.sponsorNote ?? null,
      capApplicationId: body.capApplicationId ?? null,
      currency: course.currency,
      validUntil,
    };
    const outcome = await sequelize.transaction((transaction) => entitlements.grant(transaction, request));
    if (!outcome.granted)
      throw conflict('lms.entitlement.exists', 'The learner already holds an active entitlement to this course.');
    return entitlementView(outcome.entitlement);
  }

  /** Staff see every enrollment; an instructor only those of the courses they teach. */
  async function enrollments(
    actor: Actor,
    page: PageRequest,
    filters: { courseId?: string; learnerLmsUserId?: string; status?: EnrollmentStatus },
  ) {
    const where = new Conditions();
    if (filters.courseId) where.add('x.course_id = ?', filters.courseId);
    if (filters.learnerLmsUserId) where.add('x.learner_lms_user_id = ?', filters.learnerLmsUserId);
    if (filters.status) where.add('x.status = ?', filters.status);
    if (!actor.staffRole)
      where.add(
        'x.course_id IN (SELECT course_id FROM lms.lms_course_instructors WHERE lms_user_id = ?)',
        actor.user.id,
      );
    const { items, meta } = await keysetInstances(read, page, Enrollment, {
      from: 'lms.lms_enrollments x',
      where,
      key: 'x.id',
      desc: true,
    });
    return { data: await enrollmentViews(items), meta };
  }

  async function enrollmentViews(items: Enrollment[]) {
    const [courses, grants] = await Promise.all([
      Course.findAll({ where: { id: [...new Set(items.map((e) => e.courseId))] }, attributes: ['id', 'title'] }),
      Entitlement.findAll({
        where: { id: items.map((e) => e.entitlementId).filter((id): id is string => Boolean(id)) },
      }),
    ]);
    return items.map((e) => {
      const entitlement = grants.find((g) => g.id === e.entitlementId);
      return {
        id: e.id,
        courseId: e.courseId,
        courseTitle: courses.find((c) => c.id === e.courseId)?.title ?? '',
        learnerLmsUserId: e.learnerLmsUserId,
        status: e.status,
        percentComplete: e.percentComplete,
        ...(entitlement ? { entitlement: entitlementView(entitlement) } : {}),
        createdAt: e.createdAt.toISOString(),
        completedAt: e.completedAt?.toISOString() ?? null,
      };
    });
  }

  // ---- payments: every checkout attempt, of a course or a level offering (lms.lms_payments) ---------

  const paymentColumns = `p.id, p.kind, p.status, p.amount_minor_units AS "amountMinorUnits", p.currency, p.payment_id AS "paymentId",
    p.paid_at AS "paidAt", p.initiated_at AS "initiatedAt", ${learnerNameSql('u')} AS "learnerName",
    c.id AS "courseId", c.title AS "courseTitle", lo.id AS "levelOfferingId", lo.title AS "levelOfferingTitle"`;
  const paymentRows = `lms.lms_payments p JOIN lms.lms_users u ON u.id = p.learner_lms_user_id
    LEFT JOIN lms.lms_enrollments e ON e.id = p.enrollment_id LEFT JOIN lms.lms_courses c ON c.id = e.course_id
    LEFT JOIN lms.lms_level_enrollments le ON le.id = p.level_enrollment_id LEFT JOIN lms.lms_level_offerings lo ON lo.id = le.offering_id`;

  const paymentView = (row: PaymentRow) => ({
    id: row.id,
    kind: row.kind,
    learnerName: row.learnerName,
    course: row.courseId ? { id: row.courseId, title: row.courseTitle! } : null,
    levelOffering: row.levelOfferingId ? { id: row.levelOfferingId, title: row.levelOfferingTitle! } : null,
    amount: money(row.amountMinorUnits, row.currency),
    status: row.status,
    paidAt: row.paidAt?.toISOString() ?? null,
    initiatedAt: row.initiatedAt.toISOString(),
  });

  /** A paid checkout keeps its receipt when it is refunded (the receipt says so). */
  const paidStatuses = `('completed', 'refunding', 'refunded')`;
  const listItem = (row: PaymentRow) => ({
    ...paymentView(row),
    receiptAvailable: ['completed', 'refunding', 'refunded'].includes(row.status),
  });

  /** Revenue is what completed checkouts took (a refunded one no longer counts); failed ones count nowhere; grants are not checkouts. */
  async function paymentsSummary() {
    const [row] = await sequelize.query<{ total: string; pending: number; completed: number; currency: string | null }>(
      `SELECT coalesce(sum(amount_minor_units) FILTER (WHERE status = 'completed'), 0) AS total, count(*) FILTER (WHERE status = 'pending')::int AS pending,
              count(*) FILTER (WHERE status = 'completed')::int AS completed, min(currency) AS currency FROM lms.lms_payments`,
      { type: QueryTypes.SELECT },
    );
    return {
      totalRevenue: money(row!.total, row!.currency ?? 'NGN'),
      pendingCount: row!.pending,
      completedCount: row!.completed,
    };
  }

  /** One row per checkout attempt; `q` searches the learner's name; newest started first unless sorted by payment. */
  async function payments(
    page: PageRequest,
    filters: { q?: string; status?: PaymentRow['status']; sort?: 'paidAt' | 'initiatedAt'; order?: 'asc' | 'desc' },
  ) {
    const where = new Conditions();
    if (filters.status) where.add('p.status = ?', filters.status);
    if (filters.q?.trim()) where.add(`${learnerNameSql('u')} ILIKE ?`, containing(filters.q));
    const { items, meta } = await keysetRows<PaymentRow>(read, page, {
      select: paymentColumns,
      from: paymentRows,
      alias: 'p',
      where,
      // Not paid yet sorts as the earliest payment: last when the newest come first.
      key: filters.sort === 'paidAt' ? `coalesce(p.paid_at, '-infinity'::timestamptz)` : 'p.initiated_at',
      desc: filters.order !== 'asc',
    });
    return { data: items.map(listItem), meta };
  }

  /** One row of the payments list, by its id (404 none). */
  async function payment(id: string) {
    const [row] = await read<PaymentRow>(
      'lms.staff.payment',
      `SELECT ${paymentColumns} FROM ${paymentRows} WHERE p.id = $1`,
      [id],
    );
    if (!row) throw notFound('No checkout has this id.');
    return listItem(row);
  }

  /** A completed checkout's receipt, by its row id, its course entitlement's id or its level enrollment's id. */
  async function receipt(id: string) {
    const [row] = await read<PaymentRow>(
      'lms.staff.receipt',
      `SELECT ${paymentColumns} FROM ${paymentRows} WHERE p.status IN ${paidStatuses}
         AND (p.id = $1 OR p.level_enrollment_id = $1 OR p.payment_id = (SELECT payment_id FROM lms.lms_entitlements WHERE id = $1 AND source = 'self_pay'))`,
      [id],
    );
    if (!row) throw notFound('No completed checkout has this id.');
    return { ...paymentView(row), currency: row.currency, paymentId: row.paymentId };
  }

  // ---- dashboard ---------------------------------------------------------------------------------

  async function dashboard(year: number) {
    const from = new Date(Date.UTC(year, 0, 1));
    const to = new Date(Date.UTC(year + 1, 0, 1));
    const window = { replacements: { from, to }, type: QueryTypes.SELECT } as const;
    const [learners] = await sequelize.query<{ n: string }>(
      `SELECT count(*) AS n FROM "lms"."lms_onboardings" WHERE persona = 'learner' AND status = 'completed' AND completed_at >= :from AND completed_at < :to`,
      window,
    );
    const [courses] = await sequelize.query<{ n: string }>(
      `SELECT count(*) AS n FROM "lms"."lms_courses" WHERE status = 'published' AND published_at < :to`,
      window,
    );
    const [certified] = await sequelize.query<{ n: string }>(
      `SELECT count(DISTINCT learner_lms_user_id) AS n FROM "lms"."lms_enrollments" WHERE status = 'completed' AND completed_at >= :from AND completed_at < :to`,
      window,
    );
    const [active] = await sequelize.query<{ n: string }>(
      `SELECT count(*) AS n FROM "lms"."lms_enrollments" WHERE status = 'active' AND created_at < :to`,
      window,
    );
    const revenue = await sequelize.query<{ month: number; total: string; currency: string }>(
      `SELECT extract(month FROM created_at)::int AS month, sum(amount_minor_units)::text AS total, min(currency) AS currency
         FROM "lms"."lms_entitlements" WHERE source = 'self_pay' AND payment_id IS NOT NULL AND status <> 'revoked' AND created_at >= :from AND created_at < :to GROUP BY 1`,
      window,
    );
    const top = await sequelize.query<{ id: string; title: string; unit_id: string | null; n: string }>(
      `SELECT c.id, c.title, c.unit_id, count(*) AS n FROM "lms"."lms_enrollments" e JOIN "lms"."lms_courses" c ON c.id = e.course_id
        WHERE e.created_at >= :from AND e.created_at < :to GROUP BY c.id ORDER BY n DESC, c.title LIMIT 5`,
      window,
    );
    const gender = await sequelize.query<{ gender: string | null; n: string }>(
      `SELECT lower(data->'personalDetails'->>'gender') AS gender, count(*) AS n FROM "lms"."lms_onboardings"
        WHERE persona = 'learner' AND status = 'completed' AND completed_at >= :from AND completed_at < :to GROUP BY 1`,
      window,
    );
    const bucketOf = (g: string | null) =>
      (genders as readonly string[]).includes(g ?? '') && g !== 'unspecified' ? g! : g ? 'other' : 'unspecified';
    return {
      year,
      kpis: {
        totalLearners: Number(learners!.n),
        totalCourses: Number(courses!.n),
        certifiedLearners: Number(certified!.n),
        activeEnrollments: Number(active!.n),
      },
      revenueByMonth: Array.from({ length: 12 }, (_, i) => {
        const row = revenue.find((r) => r.month === i + 1);
        return { month: i + 1, amount: money(row?.total ?? 0, row?.currency ?? 'NGN') };
      }),
      topCourses: top.map((c) => ({ id: c.id, title: c.title, unitId: c.unit_id, enrollmentCount: Number(c.n) })),
      topLevels: [],
      genderDistribution: genders.map((g) => ({
        gender: g,
        count: gender.filter((r) => bucketOf(r.gender) === g).reduce((n, r) => n + Number(r.n), 0),
      })),
    };
  }

  // ---- settings ----------------------------------------------------------------------------------

  async function readSettings(): Promise<{ data: Settings; updatedAt: Date }> {
    const [row] = await sequelize.query<{ data: Settings; updated_at: Date }>(
      `SELECT data, updated_at FROM "lms"."lms_settings" WHERE id = 'platform'`,
      { type: QueryTypes.SELECT },
    );
    return row ? { data: row.data, updatedAt: row.updated_at } : { data: emptySettings, updatedAt: new Date(0) };
  }

  function settingsView({ data, updatedAt }: { data: Settings; updatedAt: Date }) {
    const document = (d: LegalDocument) => ({
      ...d,
      document: d.documentAssetId ? { assetId: d.documentAssetId, url: null } : null,
    });
    return {
      contact: data.contact,
      terms: document(data.terms),
      privacy: document(data.privacy),
      refund: document(data.refund),
      updatedAt: updatedAt.toISOString(),
    };
  }

  const settings = async () => settingsView(await readSettings());

  /** A merge patch; each legal section is typed text or a PDF asset, never both. */
  async function updateSettings(patch: {
    contact?: { email?: string | null; phone?: Settings['contact']['phone'] };
    terms?: Partial<LegalDocument>;
    privacy?: Partial<LegalDocument>;
    refund?: Partial<LegalDocument>;
  }) {
    const both = legalSections.filter((s) => patch[s]?.content && patch[s]?.documentAssetId);
    if (both.length)
      throw validationFailed(
        both.map((s) => ({ field: `body.${s}`, issue: 'is either content or documentAssetId, not both' })),
      );
    return sequelize.transaction(async (transaction) => {
      await sequelize.query(
        `INSERT INTO "lms"."lms_settings" (id, data, created_at, updated_at) VALUES ('platform', :data, now(), now()) ON CONFLICT DO NOTHING`,
        {
          replacements: { data: JSON.stringify(emptySettings) },
          transaction,
        },
      );
      const [row] = await sequelize.query<{ data: Settings }>(
        `SELECT data FROM "lms"."lms_settings" WHERE id = 'platform' FOR UPDATE`,
        { type: QueryTypes.SELECT, transaction },
      );
      const data = row!.data;
      if (patch.contact) data.contact = { ...data.contact, ...patch.contact };
      for (const section of legalSections) {
        const change = patch[section];
        if (!change) continue;
        if (change.documentAssetId)
          data[section] = { mode: 'pdf', content: null, documentAssetId: change.documentAssetId };
        else if (change.content !== undefined || change.documentAssetId === null)
          data[section] = { mode: 'text', content: change.content ?? null, documentAssetId: null };
      }
      const [saved] = await sequelize.query<{ updated_at: Date }>(
        `UPDATE "lms"."lms_settings" SET data = :data, updated_at = now() WHERE id = 'platform' RETURNING updated_at`,
        {
          replacements: { data: JSON.stringify(data) },
          type: QueryTypes.SELECT,
          transaction,
        },
      );
      return settingsView({ data, updatedAt: saved!.updated_at });
    });
  }

  return {
    listStaff,
    updateMember,
    grant,
    enrollments,
    enrollmentViews,
    paymentsSummary,
    payments,
    payment,
    receipt,
    dashboard,
    settings,
    updateSettings,
    displayNames,
  };
}

export function entitlementView(e: Entitlement) {
  return {
    id: e.id,
    courseId: e.courseId,
    learnerLmsUserId: e.learnerLmsUserId,
    source: e.source,
    status: e.status,
    sponsorUserId: e.sponsorUserId,
    sponsorNote: e.sponsorNote,
    paymentId: e.paymentId,
    capApplicationId: e.capApplicationId,
    amount: money(e.amountMinorUnits, e.currency),
    priceRevisionId: e.priceRevisionId,
    validFrom: e.validFrom?.toISOString() ?? null,
    validUntil: e.validUntil?.toISOString() ?? null,
  };
}

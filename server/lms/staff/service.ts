import { Op, QueryTypes, type Sequelize } from 'sequelize';
import { conflict, forbidden, notFound, validationFailed } from '../../platform/http/errors.ts';
import { keysetPage, type PageRequest } from '../../platform/http/pagination.ts';
import { money } from '../../platform/money.ts';
import type { Actor } from '../access/service.ts';
import { defineCourseModels } from '../courses/models.ts';
import type { Entitlements, GrantRequest } from '../enrollments/entitlements.ts';
import { defineEnrollmentModels, type Enrollment, type Entitlement, type EnrollmentStatus } from '../enrollments/models.ts';
import { defineUserModels, type LmsUser } from '../users/models.ts';
import { defineStaffModels, type StaffMember, type StaffRole } from './models.ts';

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
const emptySettings = { contact: { email: null, phone: null }, terms: emptyDocument, privacy: emptyDocument, refund: emptyDocument };
type LegalDocument = { mode: 'text' | 'pdf'; content: string | null; documentAssetId: string | null };
type Settings = { contact: { email: string | null; phone: { countryCode: string; number: string } | null }; terms: LegalDocument; privacy: LegalDocument; refund: LegalDocument };
const legalSections = ['terms', 'privacy', 'refund'] as const;
const genders = ['female', 'male', 'other', 'unspecified'] as const;

export type Staff = ReturnType<typeof createStaff>;

/** Staff work: memberships, access grants, enrollments across courses, payments, dashboard, settings. */
export function createStaff(sequelize: Sequelize, entitlements: Entitlements) {
  const { StaffMember } = defineStaffModels(sequelize);
  const { LmsUser } = defineUserModels(sequelize);
  const { Course } = defineCourseModels(sequelize);
  const { Enrollment, Entitlement } = defineEnrollmentModels(sequelize);

  // ---- memberships -------------------------------------------------------------------------------

  async function membershipView(member: StaffMember, user?: LmsUser | null) {
    const person = user ?? (await LmsUser.findByPk(member.lmsUserId));
    return {
      lmsUserId: member.lmsUserId,
      displayName: (await displayNames([member.lmsUserId])).get(member.lmsUserId) ?? null,
      email: person?.email ?? null,
      photoAssetId: person?.photoAssetId ?? null,
      photo: person?.photoAssetId ? { assetId: person.photoAssetId, url: null } : null,
      role: member.role,
      status: member.status,
      createdAt: member.createdAt.toISOString(),
    };
  }

  /** Names as people see them: first and last name from an onboarding, else the display name, else the address's local part. */
  async function displayNames(ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await sequelize.query<{ id: string; name: string | null }>(
      `SELECT u.id, COALESCE(
          (SELECT NULLIF(trim(concat_ws(' ', o.data->'personalDetails'->>'firstName', o.data->'personalDetails'->>'lastName')), '')
             FROM "lms"."lms_onboardings" o WHERE o.lms_user_id = u.id ORDER BY o.created_at LIMIT 1),
          u.display_name, split_part(u.email, '@', 1)) AS name
         FROM "lms"."lms_users" u WHERE u.id IN (:ids)`,
      { replacements: { ids }, type: QueryTypes.SELECT },
    );
    return new Map(rows.filter((r) => r.name).map((r) => [r.id, r.name!]));
  }

  async function listStaff(page: PageRequest) {
    const { items, meta } = await keysetPage(StaffMember, page);
    return { data: await Promise.all(items.map((m) => membershipView(m))), meta };
  }

  async function updateMember(actor: Actor, lmsUserId: string, patch: { role?: StaffRole; status?: 'active' | 'suspended' }) {
    const member = await StaffMember.findOne({ where: { lmsUserId } });
    if (!member) throw notFound('That user is not staff.');
    // An admin cannot take away their own admin rights: someone must always be left to manage staff.
    if (lmsUserId === actor.user.id && ((patch.role && patch.role !== 'admin') || patch.status === 'suspended')) {
      throw forbidden('auth.out_of_scope', 'Admins cannot demote or suspend themselves.');
    }
    member.set({ ...(patch.role ? { role: patch.role } : {}), ...(patch.status ? { status: patch.status } : {}) });
    await member.save();
    return membershipView(member);
  }

  // ---- access grants and enrollments -------------------------------------------------------------

  async function grant(actor: Actor, body: EntitlementGrantBody) {
    const [course, learner] = await Promise.all([Course.findByPk(body.courseId), LmsUser.findByPk(body.learnerLmsUserId)]);
    if (!course) throw notFound('No such course.');
    if (!learner) throw notFound('No such learner.');
    const validUntil = body.validUntil ? new Date(body.validUntil) : null;
    if (validUntil && validUntil.getTime() <= Date.now()) throw validationFailed([{ field: 'body.validUntil', issue: 'must be in the future' }]);
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
    if (!outcome.granted) throw conflict('lms.entitlement.exists', 'The learner already holds an active entitlement to this course.');
    return entitlementView(outcome.entitlement);
  }

  /** Staff see every enrollment; an instructor only those of the courses they teach. */
  async function enrollments(actor: Actor, page: PageRequest, filters: { courseId?: string; learnerLmsUserId?: string; status?: EnrollmentStatus }) {
    const where: Record<string | symbol, unknown> = {};
    if (filters.courseId) where.courseId = filters.courseId;
    if (filters.learnerLmsUserId) where.learnerLmsUserId = filters.learnerLmsUserId;
    if (filters.status) where.status = filters.status;
    if (!actor.staffRole) {
      where[Op.and] = [
        { courseId: { [Op.in]: sequelize.literal(`(SELECT course_id FROM "lms"."lms_course_instructors" WHERE lms_user_id = ${sequelize.escape(actor.user.id)})`) } },
      ];
    }
    const { items, meta } = await keysetPage(Enrollment, page, { where });
    return { data: await enrollmentViews(items), meta };
  }

  async function enrollmentViews(items: Enrollment[]) {
    const [courses, grants] = await Promise.all([
      Course.findAll({ where: { id: [...new Set(items.map((e) => e.courseId))] }, attributes: ['id', 'title'] }),
      Entitlement.findAll({ where: { id: items.map((e) => e.entitlementId).filter((id): id is string => Boolean(id)) } }),
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

  // ---- payments: the course checkouts the LMS knows of (self-paid entitlements) --------------------

  const checkoutWhere = { source: 'self_pay', paymentId: { [Op.ne]: null } };

  async function paymentsSummary() {
    const paid = await Entitlement.findAll({ where: checkoutWhere, attributes: ['amountMinorUnits', 'currency'] });
    const total = paid.reduce((sum, e) => sum + BigInt(e.amountMinorUnits), 0n);
    return { totalRevenue: money(total, paid[0]?.currency ?? 'NGN'), pendingCount: 0, completedCount: paid.length };
  }

  async function paymentRow(entitlement: Entitlement) {
    const [course, names] = await Promise.all([Course.findByPk(entitlement.courseId, { attributes: ['id', 'title'] }), displayNames([entitlement.learnerLmsUserId])]);
    return {
      id: entitlement.id,
      kind: 'course' as const,
      learnerName: names.get(entitlement.learnerLmsUserId) ?? '',
      course: course ? { id: course.id, title: course.title } : null,
      levelOffering: null,
      amount: money(entitlement.amountMinorUnits, entitlement.currency),
      status: 'completed' as const,
      paidAt: entitlement.validFrom?.toISOString() ?? null,
      initiatedAt: entitlement.createdAt.toISOString(),
    };
  }

  async function payments(page: PageRequest, filters: { q?: string; status?: string; order?: 'asc' | 'desc' }) {
    if (filters.status && filters.status !== 'completed') return { data: [], meta: { pagination: { nextCursor: null, hasMore: false, limit: page.limit } } };
    const { items, meta } = await keysetPage(Entitlement, page, { where: checkoutWhere, newest: filters.order !== 'asc' });
    const rows = await Promise.all(items.map(paymentRow));
    const q = filters.q?.trim().toLowerCase();
    const data = rows
      .filter((r) => !q || r.learnerName.toLowerCase().includes(q) || r.course?.title.toLowerCase().includes(q))
      .map((r) => ({ ...r, receiptAvailable: true }));
    return { data, meta };
  }

  async function receipt(id: string) {
    const entitlement = await Entitlement.findOne({ where: { id, ...checkoutWhere } });
    if (!entitlement) throw notFound('No completed course checkout with this id.');
    const row = await paymentRow(entitlement);
    return { ...row, currency: entitlement.currency, paymentId: entitlement.paymentId! };
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
    const [courses] = await sequelize.query<{ n: string }>(`SELECT count(*) AS n FROM "lms"."lms_courses" WHERE status = 'published' AND published_at < :to`, window);
    const [certified] = await sequelize.query<{ n: string }>(
      `SELECT count(DISTINCT learner_lms_user_id) AS n FROM "lms"."lms_enrollments" WHERE status = 'completed' AND completed_at >= :from AND completed_at < :to`,
      window,
    );
    const [active] = await sequelize.query<{ n: string }>(`SELECT count(*) AS n FROM "lms"."lms_enrollments" WHERE status = 'active' AND created_at < :to`, window);
    const revenue = await sequelize.query<{ month: number; total: string; currency: string }>(
      `SELECT extract(month FROM created_at)::int AS month, sum(amount_minor_units)::text AS total, min(currency) AS currency
         FROM "lms"."lms_entitlements" WHERE source = 'self_pay' AND payment_id IS NOT NULL AND created_at >= :from AND created_at < :to GROUP BY 1`,
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
    const bucketOf = (g: string | null) => ((genders as readonly string[]).includes(g ?? '') && g !== 'unspecified' ? g! : g ? 'other' : 'unspecified');
    return {
      year,
      kpis: { totalLearners: Number(learners!.n), totalCourses: Number(courses!.n), certifiedLearners: Number(certified!.n), activeEnrollments: Number(active!.n) },
      revenueByMonth: Array.from({ length: 12 }, (_, i) => {
        const row = revenue.find((r) => r.month === i + 1);
        return { month: i + 1, amount: money(row?.total ?? 0, row?.currency ?? 'NGN') };
      }),
      topCourses: top.map((c) => ({ id: c.id, title: c.title, unitId: c.unit_id, enrollmentCount: Number(c.n) })),
      topLevels: [],
      genderDistribution: genders.map((g) => ({ gender: g, count: gender.filter((r) => bucketOf(r.gender) === g).reduce((n, r) => n + Number(r.n), 0) })),
    };
  }

  // ---- settings ----------------------------------------------------------------------------------

  async function readSettings(): Promise<{ data: Settings; updatedAt: Date }> {
    const [row] = await sequelize.query<{ data: Settings; updated_at: Date }>(`SELECT data, updated_at FROM "lms"."lms_settings" WHERE id = 'platform'`, { type: QueryTypes.SELECT });
    return row ? { data: row.data, updatedAt: row.updated_at } : { data: emptySettings, updatedAt: new Date(0) };
  }

  function settingsView({ data, updatedAt }: { data: Settings; updatedAt: Date }) {
    const document = (d: LegalDocument) => ({ ...d, document: d.documentAssetId ? { assetId: d.documentAssetId, url: null } : null });
    return { contact: data.contact, terms: document(data.terms), privacy: document(data.privacy), refund: document(data.refund), updatedAt: updatedAt.toISOString() };
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
    if (both.length) throw validationFailed(both.map((s) => ({ field: `body.${s}`, issue: 'is either content or documentAssetId, not both' })));
    return sequelize.transaction(async (transaction) => {
      await sequelize.query(`INSERT INTO "lms"."lms_settings" (id, data, created_at, updated_at) VALUES ('platform', :data, now(), now()) ON CONFLICT DO NOTHING`, {
        replacements: { data: JSON.stringify(emptySettings) },
        transaction,
      });
      const [row] = await sequelize.query<{ data: Settings }>(`SELECT data FROM "lms"."lms_settings" WHERE id = 'platform' FOR UPDATE`, { type: QueryTypes.SELECT, transaction });
      const data = row!.data;
      if (patch.contact) data.contact = { ...data.contact, ...patch.contact };
      for (const section of legalSections) {
        const change = patch[section];
        if (!change) continue;
        if (change.documentAssetId) data[section] = { mode: 'pdf', content: null, documentAssetId: change.documentAssetId };
        else if (change.content !== undefined || change.documentAssetId === null) data[section] = { mode: 'text', content: change.content ?? null, documentAssetId: null };
      }
      const [saved] = await sequelize.query<{ updated_at: Date }>(`UPDATE "lms"."lms_settings" SET data = :data, updated_at = now() WHERE id = 'platform' RETURNING updated_at`, {
        replacements: { data: JSON.stringify(data) },
        type: QueryTypes.SELECT,
        transaction,
      });
      return settingsView({ data, updatedAt: saved!.updated_at });
    });
  }

  return { listStaff, updateMember, grant, enrollments, enrollmentViews, paymentsSummary, payments, receipt, dashboard, settings, updateSettings, displayNames };
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

import { Op, QueryTypes, type Transaction, type WhereOptions } from 'sequelize';
import { notFound } from '../../platform/http/errors.ts';
import { keysetPage, pageRequest } from '../../platform/http/pagination.ts';
import { newId } from '../../platform/ids.ts';
import { createModeration, type BulkAction } from '../moderation/bulk.ts';
import type { ModerationAction } from '../moderation/lifecycle.ts';
import type { Centre, CentreStaff } from '../centres/models.ts';
import type { CentreService } from '../centres/service.ts';
import { staffOf, type StaffService } from '../staff/service.ts';
import type { CentreStatus, JsonObject } from '../vocabulary.ts';
import type { AssetUrls } from '../orchestrator.ts';
import type { PassportPhotos } from '../onboarding/passport-photos.ts';
import { containing } from '../../platform/db/like.ts';

export interface NewCentre {
  name: string;
  registrationNo: string;
  address?: JsonObject;
  superAdmin: { name: string; email: string };
}

/** A centre as the admins see it, with the super admin it was founded with. */
function adminCentreOf(centre: Centre, founder: CentreStaff | undefined, logo: string | null, photo: string | null) {
  return {
    id: centre.id,
    name: centre.name,
    registrationNo: centre.registrationNo,
    status: centre.status,
    logoAssetId: centre.logoAssetId,
    logo,
    address: centre.address,
    createdAt: centre.createdAt.toISOString(),
    superAdmin: founder ? { userId: founder.userId, name: founder.name, email: founder.email, photo } : null,
  };
}

/**
 * The admins' side of centres: creating approved centres with their first super admin, the list, the
 * summary and the detail, and their moderation (moderation/lifecycle.ts), one centre at a time or in
 * bulk, where one id that cannot change stops them all.
 */
export function createAdminCentres(centres: CentreService, staff: StaffService, assetUrls: AssetUrls, photos: PassportPhotos) {
  const { Centre, CentreStaff } = centres.models;

  /** The first super admin of each centre, by centre id. */
  async function foundersOf(centreIds: string[], transaction?: Transaction): Promise<Map<string, CentreStaff>> {
    const rows = await CentreStaff.findAll({
      where: { centreId: { [Op.in]: centreIds }, role: 'super_admin' },
      order: [['createdAt', 'ASC'], ['id', 'ASC']],
      transaction,
    });
    const founders = new Map<string, CentreStaff>();
    for (const row of rows) if (!founders.has(row.centreId)) founders.set(row.centreId, row);
    return founders;
  }

  async function present(centre: Centre, transaction?: Transaction) {
    return (await presentAll([centre], transaction))[0]!;
  }

  const moderation = createModeration<Centre>({
    noun: 'centre',
    Model: Centre,
    label: (centre) => centre.name,
    // Anyone but its super admins on its staff. (Applications, retained assessors and job postings
    // count too once they exist.)
    async usedBy(centre, transaction) {
      const members = await CentreStaff.count({ where: { centreId: centre.id, role: { [Op.ne]: 'super_admin' } }, transaction });
      if (members > 0) return `it has ${members} staff member(s) besides its super admins`;
      // Applications (drafts included), the money around them, and its dealings with assessors stay with their centre.
      const [row] = await CentreStaff.sequelize!.query<{ n: number }>(
        `SELECT (SELECT count(*) FROM cap.applications WHERE centre_id = $1) + (SELECT count(*) FROM cap.centre_prices WHERE centre_id = $1) + (SELECT count(*) FROM cap.wallet_entries WHERE centre_id = $1)
              + (SELECT count(*) FROM cap.retained_requests WHERE centre_id = $1) + (SELECT count(*) FROM cap.job_postings WHERE centre_id = $1) + (SELECT count(*) FROM cap.application_assessors WHERE centre_id = $1) AS n`,
        { type: QueryTypes.SELECT, bind: [centre.id], transaction },
      );
      return Number(row!.n) > 0 ? 'it has applications, prices, wallet entries, retained requests, job postings or assignments' : undefined;
    },
    async remove(centre, transaction) {
      await CentreStaff.destroy({ where: { centreId: centre.id }, transaction });
      await centre.destroy({ transaction });
    },
  });

  async function presentAll(rows: Centre[], transaction?: Transaction) {
    const [founders, urlOf] = await Promise.all([foundersOf(rows.map((centre) => centre.id), transaction), assetUrls(rows.map((centre) => centre.logoAssetId))]);
    const photoOf = await photos.ofUsers([...founders.values()].map((founder) => founder.userId));
    return rows.map((centre) => {
      const founder = founders.get(centre.id);
      return adminCentreOf(centre, founder, urlOf(centre.logoAssetId), founder ? photoOf(founder.userId) : null);
    });
  }

  return {
    /**
     * An approved centre and the invitation of its super admin (ProvisionAccount mails a new account
     * its password), all or nothing.
     */
    async create(adminId: string, input: NewCentre) {
      const id = newId();
      const name = input.name.trim();
      await staff.enrol({ id, name }, { ...input.superAdmin, role: 'super_admin' }, (transaction) =>
        centres.create({ id, name, registrationNo: input.registrationNo.trim(), address: input.address ?? null, status: 'approved', createdBy: adminId }, transaction),
      );
      return present((await Centre.findByPk(id))!);
    },

    async list(query: { q?: string; status?: CentreStatus; cursor?: string; limit?: number }) {
      const where: WhereOptions = {};
      if (query.q) {
        const like = containing(query.q);
        Object.assign(where, { [Op.or]: [{ name: { [Op.iLike]: like } }, { registrationNo: { [Op.iLike]: like } }] });
      }
      if (query.status) Object.assign(where, { status: query.status });
      const { items, meta } = await keysetPage(Centre, pageRequest(query as Record<string, unknown>), { where });
      return { items: await presentAll(items), meta };
    },

    summary: () => moderation.summary(),

    /** The centre with its staff, retained assessors and applications, read-only. */
    async detail(id: string) {
      const centre = await Centre.findByPk(id);
      if (!centre) throw notFound(`No centre has the id ${id}.`);
      const members = await CentreStaff.findAll({ where: { centreId: id }, order: [['createdAt', 'ASC'], ['id', 'ASC']] });
      const applications = await CentreStaff.sequelize!.query<{ id: string; type: 'RPL' | 'NSQ'; status: string; stage: string; candidate: string; trade_id: string; trade_name: string; submitted_at: Date | null; created_at: Date; total: number }>(
        `SELECT a.id, a.type, a.status, a.current_stage_key AS stage, t.id AS trade_id, t.name AS trade_name, a.submitted_at, a.created_at,
                concat_ws(' ', a.draft #>> '{personalInformation,personalDetails,firstName}', a.draft #>> '{personalInformation,personalDetails,lastName}') AS candidate,
                count(*) OVER ()::int AS total
           FROM cap.applications a JOIN cap.trades t ON t.id = a.trade_id WHERE a.centre_id = $1 ORDER BY a.id DESC LIMIT 100`,
        { type: QueryTypes.SELECT, bind: [id] },
      );
      const assessors = await CentreStaff.sequelize!.query<{ assessor_id: string; name: string; email: string; preferred_role: string; responded_at: Date | null }>(
        `SELECT r.assessor_id, r.preferred_role, r.responded_at, u.email,
                concat_ws(' ', o.data #>> '{personalDetails,firstName}', o.data #>> '{personalDetails,lastName}') AS name
           FROM cap.retained_requests r JOIN cap.assessor_profiles p ON p.id = r.assessor_id JOIN cap.users u ON u.user_id = p.user_id
           LEFT JOIN cap.onboardings o ON o.user_id = p.user_id AND o.persona = 'assessor'
          WHERE r.centre_id = $1 AND r.status = 'approved' ORDER BY r.responded_at, r.id`,
        { type: QueryTypes.SELECT, bind: [id] },
      );
      return {
        ...(await present(centre)),
        staff: members.map(staffOf),
        assessors: assessors.map((a) => ({ assessorId: a.assessor_id, name: a.name || null, email: a.email, preferredRole: a.preferred_role, retainedSince: a.responded_at ? a.responded_at.toISOString() : null })),
        applicationCount: applications[0]?.total ?? 0,
        applications: applications.map((a) => ({
          id: a.id, type: a.type, status: a.status, currentStageKey: a.stage, candidateName: a.candidate, trade: { id: a.trade_id, name: a.trade_name },
          submittedAt: a.submitted_at ? a.submitted_at.toISOString() : null, createdAt: a.created_at.toISOString(),
        })),
      };
    },

    act: async (id: string, action: ModerationAction) => present(await moderation.one(id, action)),
    delete: async (id: string) => {
      await moderation.one(id, 'delete');
      return { deleted: true as const };
    },
    bulk: async (ids: string[], action: BulkAction) => presentAll(await moderation.all(ids, action)),
  };
}

export type AdminCentres = ReturnType<typeof createAdminCentres>;

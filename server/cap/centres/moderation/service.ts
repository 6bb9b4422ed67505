import { Op, type Transaction } from 'sequelize';
import { notFound } from '../../../platform/http/errors.ts';
import { Conditions, keysetInstances } from '../../../platform/db/keyset.ts';
import { preparedReads } from '../../../platform/db/prepared.ts';
import { pageRequest } from '../../../platform/http/pagination.ts';
import { newId } from '../../../platform/ids.ts';
import { type BulkAction, createModeration, type ModerationAction, type PassportPhotos } from '../../people/index.ts';
import type { Centre, CentreStaff } from '../models.ts';
import type { CentreService } from '../service.ts';
import { staffOf, type StaffService } from '../staff/service.ts';
import type { AssetUrls } from '../../../contracts/orchestrator-client.ts';
import { containing } from '../../../platform/db/like.ts';
import type { JsonObject } from '../../../platform/http/merge-patch.ts';
import type { CentreStatus } from '../vocabulary.ts';

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
/** What the modules above keep of a centre (its applications and money, its assessors and jobs), for its moderation. */
export interface CentreDealings {
  /** Whether the centre has applications (drafts included), prices, wallet entries, retained requests, job postings or assignments. */
  inUse(centreId: string, transaction: Transaction): Promise<boolean>;
  /** Its newest 100 applications, and how many it has. */
  applicationsOf(centreId: string): Promise<{ total: number; items: object[] }>;
  /** The assessors it retains, longest retained first. */
  retainedAssessorsOf(centreId: string): Promise<object[]>;
}

export function createAdminCentres(
  centres: CentreService,
  staff: StaffService,
  assetUrls: AssetUrls,
  photos: PassportPhotos,
  dealings: CentreDealings,
) {
  const { Centre, CentreStaff } = centres.models;
  const read = preparedReads(Centre.sequelize!);

  /** The first super admin of each centre, by centre id. */
  async function foundersOf(centreIds: string[], transaction?: Transaction): Promise<Map<string, CentreStaff>> {
    const rows = await CentreStaff.findAll({
      where: { centreId: { [Op.in]: centreIds }, role: 'super_admin' },
      order: [
        ['createdAt', 'ASC'],
        ['id', 'ASC'],
      ],
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
    // Anyone but its super admins on its staff, or anything the other modules keep of it.
    async usedBy(centre, transaction) {
      const members = await CentreStaff.count({
        where: { centreId: centre.id, role: { [Op.ne]: 'super_admin' } },
        transaction,
      });
      if (members > 0) return `it has ${members} staff member(s) besides its super admins`;
      // Applications (drafts included), the money around them, and its dealings with assessors stay with their centre.
      return (await dealings.inUse(centre.id, transaction))
        ? 'it has applications, prices, wallet entries, retained requests, job postings or assignments'
        : undefined;
    },
    async remove(centre, transaction) {
      await CentreStaff.destroy({ where: { centreId: centre.id }, transaction });
      await centre.destroy({ transaction });
    },
  });

  async function presentAll(rows: Centre[], transaction?: Transaction) {
    const [founders, urlOf] = await Promise.all([
      foundersOf(
        rows.map((centre) => centre.id),
        transaction,
      ),
      assetUrls(rows.map((centre) => centre.logoAssetId)),
    ]);
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
        centres.register(
          { id, name, registrationNo: input.registrationNo.trim(), address: input.address ?? null, createdBy: adminId },
          transaction,
        ),
      );
      return present((await Centre.findByPk(id))!);
    },

    async list(query: { q?: string; status?: CentreStatus; cursor?: string; limit?: number }) {
      const where = new Conditions();
      if (query.q) where.add('(x.name ILIKE ? OR x.registration_no ILIKE ?)', containing(query.q));
      if (query.status) where.add('x.status = ?', query.status);
      const { items, meta } = await keysetInstances(read, pageRequest(query as Record<string, unknown>), Centre, {
        from: 'cap.centres x',
        where,
        key: 'x.id',
        desc: true,
      });
      return { items: await presentAll(items), meta };
    },

    summary: () => moderation.summary(),

    /** The centre with its staff, retained assessors and applications, read-only. */
    async detail(id: string) {
      const centre = await Centre.findByPk(id);
      if (!centre) throw notFound(`No centre has the id ${id}.`);
      const members = await CentreStaff.findAll({
        where: { centreId: id },
        order: [
          ['createdAt', 'ASC'],
          ['id', 'ASC'],
        ],
      });
      const [applications, assessors] = await Promise.all([
        dealings.applicationsOf(id),
        dealings.retainedAssessorsOf(id),
      ]);
      return {
        ...(await present(centre)),
        staff: members.map(staffOf),
        assessors,
        applicationCount: applications.total,
        applications: applications.items,
      };
    },

    act: async (id: string, action: ModerationAction) => present(await moderation.one(id, action)),
    /** The approval alone, answering nothing (the provider states' "approved centre"). */
    approve: async (id: string) => void (await moderation.one(id, 'approve')),
    delete: async (id: string) => {
      await moderation.one(id, 'delete');
      return { deleted: true as const };
    },
    bulk: async (ids: string[], action: BulkAction) => presentAll(await moderation.all(ids, action)),
  };
}

export type AdminCentres = ReturnType<typeof createAdminCentres>;

import { Op, type Transaction } from 'sequelize';
import { notFound } from '../../../platform/http/errors.ts';
import { Conditions, keysetRows } from '../../../platform/db/keyset.ts';
import { isoTime } from '../../../platform/db/iso-time.ts';
import { preparedReads } from '../../../platform/db/prepared.ts';
import { pageRequest } from '../../../platform/http/pagination.ts';
import { newId } from '../../../platform/ids.ts';
import { type BulkAction, createModeration, type ModerationAction, peopleSql } from '../../people/index.ts';
import type { Centre } from '../models.ts';
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

/** A centre's founder (its first super admin), `photo` their photo's asset id. */
interface Founder {
  userId: string;
  name: string | null;
  email: string;
  photo: string | null;
}

/** A centre as the admins see it, with its founder; `logo` and the founder's photo as asset ids. */
interface AdminCentreRow {
  id: string;
  name: string;
  registrationNo: string;
  status: CentreStatus;
  logoAssetId: string | null;
  address: JsonObject | null;
  createdAt: string;
  superAdmin: Founder | null;
}

/** The founder of the centre `centreId` (SQL expression) as a Founder (JSON), or null. */
const founderSql = (centreId: string) =>
  `(SELECT json_build_object('userId', s.user_id, 'name', s.name, 'email', s.email, 'photo', ${peopleSql.photoAssetId('s.user_id')})
      FROM cap.centre_staff s WHERE s.centre_id = ${centreId} AND s.role = 'super_admin' ORDER BY s.created_at, s.id LIMIT 1)`;

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
  dealings: CentreDealings,
) {
  const { Centre, CentreStaff } = centres.models;
  const read = preparedReads(Centre.sequelize!);

  const founders = (ids: string[]) =>
    read<{ id: string; founder: Founder | null }>(
      'cap.centres.founders',
      `SELECT c AS id, ${founderSql('c')} AS founder FROM unnest($1::text[]) c`,
      [ids],
    );

  /** The admins' centres with the URLs of their logos and their founders' photos. */
  async function views(rows: AdminCentreRow[]) {
    const urlOf = await assetUrls(rows.flatMap((row) => [row.logoAssetId, row.superAdmin?.photo]));
    return rows.map(({ id, name, registrationNo, status, logoAssetId, address, createdAt, superAdmin }) => ({
      id,
      name,
      registrationNo,
      status,
      logoAssetId,
      logo: urlOf(logoAssetId),
      address,
      createdAt,
      superAdmin: superAdmin && { ...superAdmin, photo: urlOf(superAdmin.photo) },
    }));
  }

  async function present(centre: Centre) {
    return (await presentAll([centre]))[0]!;
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

  async function presentAll(centres: Centre[]) {
    const founderOf = new Map(
      centres.length ? (await founders(centres.map((c) => c.id))).map((row) => [row.id, row.founder]) : [],
    );
    return views(
      centres.map((centre) => ({
        id: centre.id,
        name: centre.name,
        registrationNo: centre.registrationNo,
        status: centre.status,
        logoAssetId: centre.logoAssetId,
        address: centre.address,
        createdAt: centre.createdAt.toISOString(),
        superAdmin: founderOf.get(centre.id) ?? null,
      })),
    );
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
      // One statement: each centre with its founder (and the founder's photo asset).
      const { items, meta } = await keysetRows<AdminCentreRow>(read, pageRequest(query as Record<string, unknown>), {
        select: `x.id, x.name, x.registration_no AS "registrationNo", x.status, x.logo_asset_id AS "logoAssetId", x.address,
          ${isoTime('x.created_at')} AS "createdAt", ${founderSql('x.id')} AS "superAdmin"`,
        from: 'cap.centres x',
        where,
        key: 'x.id',
        desc: true,
      });
      return { items: await views(items), meta };
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

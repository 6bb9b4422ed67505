import { col, fn, Op, UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import { AppError, conflict, forbidden, notFound } from '../../../platform/http/errors.ts';
import { newId } from '../../../platform/ids.ts';
import type { Centre, CentreStaff } from '../models.ts';
import type { CentreService } from '../service.ts';
import type { CentreContext, MembershipKind, People, ProvisionMember } from '../../people/index.ts';
import { managesStaff, staffSorts, type StaffSort } from './rules.ts';
import { Conditions, keysetRows } from '../../../platform/db/keyset.ts';
import { pageRequest } from '../../../platform/http/pagination.ts';
import { containing } from '../../../platform/db/like.ts';
import { isoTime } from '../../../platform/db/iso-time.ts';
import { preparedReads } from '../../../platform/db/prepared.ts';
import type { CentreRole, CentreStaffStatus } from '../vocabulary.ts';

export interface NewStaff {
  name: string;
  email: string;
  role: CentreRole;
}

export interface StaffQuery {
  status?: CentreStaffStatus;
  q?: string;
  sort?: StaffSort;
  order?: 'asc' | 'desc';
  cursor?: string;
  limit?: number;
}

/** A staff row's fields: a model's, or a list page's (`createdAt` already as the wire writes it). */
type StaffRow = Pick<CentreStaff, 'id' | 'email' | 'name' | 'role' | 'status'> & { createdAt: Date | string };

/** A staff row as the real client reads it (CentreStaff). */
export function staffOf(row: StaffRow) {
  return {
    id: row.id,
    email: row.email,
    ...(row.name ? { name: row.name } : {}),
    role: row.role,
    status: row.status,
    createdAt: typeof row.createdAt === 'string' ? row.createdAt : row.createdAt.toISOString(),
  };
}

const alreadyStaff = () => conflict('centre.staff_exists', 'This person is already staff at this centre.');
/** What each sort orders by; nameless rows sort as an empty name. */
const sortKeys: Record<StaffSort, string> = {
  createdAt: 'x.created_at',
  name: "lower(coalesce(x.name, ''))",
  email: 'x.email',
};

/**
 * Centre staff: adding people (their account comes from the Orchestrator's ProvisionAccount), the
 * staff list, and their status. Every added member is `pending`, and the answer is the same whether
 * or not the address had an account. A new account is let in by its first CAP call (after changing
 * the mailed password); someone who already had an account is invited, and the membership waits for
 * them to accept it. Only approved centres manage staff.
 */
export function createStaffService(
  sequelize: Sequelize,
  centres: CentreService,
  onboarding: Pick<People['onboardings'], 'completeAsStaff'>,
  provisionMember: ProvisionMember,
  /** What the staff member handles at the centre (the applications module). */
  workloadOf: (centreId: string, userId: string) => Promise<{ assigned: number; ongoing: number; completed: number }>,
) {
  const { Centre, CentreStaff } = centres.models;
  const read = preparedReads(sequelize);

  async function mustManage(context: CentreContext, transaction?: Transaction): Promise<Centre> {
    if (!managesStaff[context.role]) {
      throw forbidden(
        'centre.role_forbidden',
        'Only a super admin of the centre can add staff or change their status.',
      );
    }
    const centre = (await Centre.findByPk(context.centreId, {
      transaction,
      ...(transaction ? { lock: transaction.LOCK.UPDATE } : {}),
    }))!;
    if (centre.status !== 'approved') {
      throw forbidden(
        'centre.not_approved',
        'The centre is not approved yet: staff can be added once a platform admin approves it.',
      );
    }
    return centre;
  }

  /** A staff row of the caller's centre: 404 when there is none, 403 when it is another centre's. */
  function inCentre<T extends CentreStaff | null>(row: T, id: string, context: CentreContext): NonNullable<T> {
    if (!row) throw notFound(`No staff member has the id ${id}.`);
    if (row.centreId !== context.centreId)
      throw forbidden('auth.out_of_scope', `Staff member ${id} belongs to another centre.`);
    return row;
  }

  /**
   * Adds a person to a centre, all or nothing, in one transaction: `prepare` (creating the centre, for
   * the admins) and the duplicate check first, so that a refusal makes no account; then their
   * Orchestrator account (get or create by email: a new one is mailed its password, an existing one an
   * invitation), their CapUser and the pending staff row. A failed provisioning rolls everything back.
   */
  async function enrol(
    centre: { id: string; name: string },
    person: NewStaff,
    prepare?: (transaction: Transaction) => Promise<unknown>,
  ) {
    const email = person.email.trim().toLowerCase();
    const id = newId();
    try {
      return await sequelize.transaction(async (transaction) => {
        await prepare?.(transaction);
        if ((await CentreStaff.count({ where: { centreId: centre.id, email }, transaction })) > 0) throw alreadyStaff();
        const member = await provisionMember(transaction, person, { name: centre.name, correlationId: id });
        const row = (await centres.staff.create(
          transaction,
          member.letIn ? 'admit' : 'invite',
          {
            id,
            centreId: centre.id,
            userId: member.userId,
            name: person.name.trim(),
            email,
            role: person.role,
            requiresAcceptance: member.invited,
          },
          { by: 'admin' },
        ))!;
        if (member.letIn) await onboarding.completeAsStaff(member.userId, centre.id, transaction);
        return row;
      });
    } catch (err) {
      if (err instanceof UniqueConstraintError) throw alreadyStaff();
      throw err;
    }
  }

  /** One page of the centre's staff rows, filtered and sorted as asked: prepared statements, no model instances. */
  async function rowsPage(context: CentreContext, query: StaffQuery) {
    const sort = query.sort ?? 'createdAt';
    const where = new Conditions().add('x.centre_id = ?', context.centreId);
    if (query.status) where.add('x.status = ?', query.status);
    if (query.q) where.add('(x.name ILIKE ? OR x.email ILIKE ?)', containing(query.q));
    return keysetRows<StaffRow>(read, pageRequest(query as Record<string, unknown>), {
      select: `x.id, x.email, x.name, x.role, x.status, ${isoTime('x.created_at')} AS "createdAt"`,
      from: 'cap.centre_staff x',
      where,
      key: sortKeys[sort],
      desc: (query.order ?? staffSorts[sort]) === 'desc',
    });
  }

  const membershipKind: MembershipKind<CentreStaff> = {
    kind: 'centre',
    Model: CentreStaff,
    async organisationOf(row, transaction) {
      const centre = (await Centre.findByPk(row.centreId, { transaction }))!;
      return { id: centre.id, name: centre.name };
    },
    // The completed centre onboarding the web client needs, for someone who has none of their own.
    onActive: (row, transaction) => onboarding.completeAsStaff(row.userId, row.centreId, transaction),
  };

  return {
    enrol,
    /** Centre staff memberships, as invitations and first calls handle them. */
    membershipKind: membershipKind as unknown as MembershipKind,

    async add(context: CentreContext, person: NewStaff) {
      const centre = await mustManage(context);
      return staffOf(await enrol(centre, person));
    },

    async list(context: CentreContext, query: StaffQuery) {
      const { items, meta } = await rowsPage(context, query);
      return { items: items.map(staffOf), meta };
    },

    async get(context: CentreContext, id: string) {
      const row = inCentre(await CentreStaff.findByPk(id), id, context);
      return { ...staffOf(row), workload: await workloadOf(context.centreId, row.userId) };
    },

    /** A staff member of the caller's centre (404, or 403 for another centre's), for what they handle. */
    member: async (context: CentreContext, id: string) => inCentre(await CentreStaff.findByPk(id), id, context),

    async summary(context: CentreContext) {
      const counts = { total: 0, active: 0, pending: 0, inactive: 0 };
      const rows = (await CentreStaff.findAll({
        where: { centreId: context.centreId },
        attributes: ['status', [fn('count', col('id')), 'count']],
        group: ['status'],
        raw: true,
      })) as unknown as Array<{ status: CentreStaffStatus; count: string }>;
      for (const { status, count } of rows) {
        counts[status] = Number(count);
        counts.total += Number(count);
      }
      return counts;
    },

    /**
     * Bulk activate or deactivate, all or nothing. Nobody deactivates themselves, and a centre always
     * keeps an active super admin: changes to one centre's staff run one at a time (the centre row is
     * locked), so two super admins deactivating each other at once cannot both succeed.
     */
    async setStatus(
      context: CentreContext,
      callerId: string,
      change: { ids: string[]; status: 'active' | 'inactive' },
    ) {
      const ids = [...new Set(change.ids)];
      return sequelize.transaction(async (transaction) => {
        await mustManage(context, transaction);
        const found = await CentreStaff.findAll({ where: { id: { [Op.in]: ids } }, transaction });
        // Every bad id is named: another centre's make it 403, else unknown ones 404.
        const unknown = ids.flatMap((id, i) =>
          found.some((row) => row.id === id) ? [] : [{ field: `ids[${i}]`, issue: `no staff member has the id ${id}` }],
        );
        const foreign = ids.flatMap((id, i) =>
          found.some((row) => row.id === id && row.centreId !== context.centreId)
            ? [{ field: `ids[${i}]`, issue: `staff member ${id} belongs to another centre` }]
            : [],
        );
        if (foreign.length)
          throw new AppError(
            403,
            'auth.out_of_scope',
            `Nothing was changed: ${foreign.length} of them belong to another centre.`,
            [...foreign, ...unknown],
          );
        if (unknown.length)
          throw new AppError(
            404,
            'http.not_found',
            `Nothing was changed: ${unknown.length} of them are no staff member.`,
            unknown,
          );
        const rows = ids.map((id) => found.find((row) => row.id === id)!);
        if (change.status === 'inactive' && rows.some((row) => row.userId === callerId)) {
          throw conflict(
            'centre.self_deactivation',
            'You cannot deactivate yourself: ask another super admin of the centre.',
          );
        }
        for (const row of rows) {
          const { changed } = await centres.staff.move(
            transaction,
            row,
            change.status === 'active' ? 'activate' : 'deactivate',
            { by: 'admin', facts: row },
          );
          if (changed && change.status === 'active')
            await onboarding.completeAsStaff(row.userId, row.centreId, transaction);
        }
        const superAdmins = await CentreStaff.count({
          where: { centreId: context.centreId, role: 'super_admin', status: 'active' },
          transaction,
        });
        if (superAdmins === 0) {
          throw conflict(
            'centre.last_super_admin',
            'The centre would be left without an active super admin: keep at least one.',
          );
        }
        return rows.map(staffOf);
      });
    },
  };
}

export type StaffService = ReturnType<typeof createStaffService>;

import { col, fn, Op, UniqueConstraintError, where as compare, type Sequelize, type Transaction, type WhereOptions } from 'sequelize';
import { conflict, forbidden, notFound, validationFailed } from '../../platform/http/errors.ts';
import { newId } from '../../platform/ids.ts';
import { pageOf, pageRequest } from '../../platform/http/pagination.ts';
import type { CentreStaff } from '../centres/models.ts';
import type { CentreService } from '../centres/service.ts';
import type { CentreContext } from '../context/service.ts';
import type { OnboardingService } from '../onboarding/service.ts';
import { upstreamFailure, type IdentityClient, type ProvisionAccountResponse } from '../orchestrator.ts';
import type { UserService } from '../users/service.ts';
import type { CentreRole, CentreStaffStatus } from '../vocabulary.ts';
import { managesStaff, staffSorts, type StaffSort } from './rules.ts';

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

/** A staff row as the real client reads it (CentreStaff). */
export function staffOf(row: CentreStaff) {
  return {
    id: row.id,
    email: row.email,
    ...(row.name ? { name: row.name } : {}),
    role: row.role,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
  };
}

const alreadyStaff = () => conflict('centre.staff_exists', 'This person is already staff at this centre.');
const escapeLike = (text: string) => text.replace(/[\\%_]/g, '\\$&');

/** What each sort orders by; nameless rows sort as an empty name. */
const sortKeys: Record<StaffSort, ReturnType<typeof col> | ReturnType<typeof fn>> = {
  createdAt: col('created_at'),
  name: fn('lower', fn('coalesce', col('name'), '')),
  email: col('email'),
};

/**
 * Centre staff: adding people (their account comes from the Orchestrator's ProvisionAccount), the
 * staff list, and their status. A new member is `pending` until their first CAP call, which makes
 * them `active`; someone who already uses CAP is `active` at once.
 */
export function createStaffService(
  sequelize: Sequelize,
  users: UserService,
  centres: CentreService,
  onboarding: OnboardingService,
  orchestrator: IdentityClient,
) {
  const { Centre, CentreStaff } = centres.models;
  const { CapUser } = users.models;

  function mustManage(context: CentreContext): void {
    if (!managesStaff[context.role]) {
      throw forbidden('centre.role_forbidden', 'Only a super admin of the centre can add staff or change their status.');
    }
  }

  /** A staff row of the caller's centre: 404 when there is none, 403 when it is another centre's. */
  function inCentre<T extends CentreStaff | null>(row: T, id: string, context: CentreContext): NonNullable<T> {
    if (!row) throw notFound(`No staff member has the id ${id}.`);
    if (row.centreId !== context.centreId) throw forbidden('auth.out_of_scope', `Staff member ${id} belongs to another centre.`);
    return row;
  }

  /**
   * Adds a person to a centre: their Orchestrator account first (get or create by email, which mails
   * a new account its password), then, in one transaction, `prepare` (creating the centre, for the
   * admins), their CapUser and the staff row. A failed provisioning leaves nothing behind.
   */
  async function enrol(centre: { id: string; name: string }, person: NewStaff, prepare?: (transaction: Transaction) => Promise<unknown>) {
    const email = person.email.trim().toLowerCase();
    if ((await CentreStaff.count({ where: { centreId: centre.id, email } })) > 0) throw alreadyStaff();
    const id = newId();
    let account: ProvisionAccountResponse;
    try {
      account = await orchestrator.provisionAccount({
        email,
        intents: ['cap'],
        correlation_id: id,
        display_name: person.name.trim(),
        centre_name: centre.name,
        role: person.role,
      });
    } catch (err) {
      upstreamFailure(err, { unavailable: 'accounts.unavailable', failed: 'accounts.upstream_error' }, 'Creating the account');
    }
    try {
      return await sequelize.transaction(async (transaction) => {
        await prepare?.(transaction);
        await users.provision({ userId: account.user_id, email }, transaction);
        // The lock orders this against the person's first call (admitFirstCall): one of the two sees the other.
        const user = (await CapUser.findByPk(account.user_id, { transaction, lock: transaction.LOCK.UPDATE }))!;
        const status: CentreStaffStatus = user.firstSeenAt ? 'active' : 'pending';
        const row = await CentreStaff.create(
          { id, centreId: centre.id, userId: user.userId, name: person.name.trim(), email, role: person.role, status },
          { transaction },
        );
        if (status === 'active') await onboarding.completeAsStaff(user.userId, centre.id, transaction);
        return row;
      });
    } catch (err) {
      if (err instanceof UniqueConstraintError) throw alreadyStaff();
      throw err;
    }
  }

  return {
    enrol,

    async add(context: CentreContext, person: NewStaff) {
      mustManage(context);
      const centre = (await Centre.findByPk(context.centreId))!;
      return staffOf(await enrol(centre, person));
    },

    /** The user's first authenticated CAP call: their pending memberships become active, with the onboarding that lets them in. */
    async admitFirstCall(userId: string): Promise<void> {
      await sequelize.transaction(async (transaction) => {
        if (!(await users.markFirstSeen(userId, transaction))) return;
        const pending = await CentreStaff.findAll({ where: { userId, status: 'pending' }, order: [['createdAt', 'ASC']], transaction });
        for (const row of pending) {
          await row.update({ status: 'active' }, { transaction });
          await onboarding.completeAsStaff(userId, row.centreId, transaction);
        }
      });
    },

    async list(context: CentreContext, query: StaffQuery) {
      const page = pageRequest(query as Record<string, unknown>);
      const sort = query.sort ?? 'createdAt';
      const direction = query.order ?? staffSorts[sort];
      const key = sortKeys[sort];
      const filters: WhereOptions[] = [{ centreId: context.centreId }];
      if (query.status) filters.push({ status: query.status });
      if (query.q) {
        const like = `%${escapeLike(query.q.trim())}%`;
        filters.push({ [Op.or]: [{ name: { [Op.iLike]: like } }, { email: { [Op.iLike]: like } }] });
      }
      if (page.cursor) {
        // The cursor is the last row sent: continue after its sort value, then after its id among equals.
        const last = await CentreStaff.findOne({
          where: { id: page.cursor, centreId: context.centreId },
          attributes: ['id', [key, 'sortValue']],
        });
        if (!last) throw validationFailed([{ field: 'query.cursor', issue: 'is not a cursor this API issued' }]);
        const value = last.get('sortValue');
        const beyond = direction === 'asc' ? Op.gt : Op.lt;
        filters.push({ [Op.or]: [compare(key, beyond, value), { [Op.and]: [compare(key, Op.eq, value), { id: { [beyond]: last.id } }] }] });
      }
      const rows = await CentreStaff.findAll({
        where: { [Op.and]: filters },
        order: [
          [key, direction.toUpperCase()],
          ['id', direction.toUpperCase()],
        ],
        limit: page.limit + 1,
      });
      const { items, meta } = pageOf(rows, page.limit);
      return { items: items.map(staffOf), meta };
    },

    async get(context: CentreContext, id: string) {
      const row = inCentre(await CentreStaff.findByPk(id), id, context);
      // Workload counts applications, which do not exist yet.
      return { ...staffOf(row), workload: { assigned: 0, ongoing: 0, completed: 0 } };
    },

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
    async setStatus(context: CentreContext, callerId: string, change: { ids: string[]; status: 'active' | 'inactive' }) {
      mustManage(context);
      const ids = [...new Set(change.ids)];
      return sequelize.transaction(async (transaction) => {
        await Centre.findByPk(context.centreId, { transaction, lock: transaction.LOCK.UPDATE });
        const found = await CentreStaff.findAll({ where: { id: { [Op.in]: ids } }, transaction });
        const rows = ids.map((id) => inCentre(found.find((row) => row.id === id) ?? null, id, context));
        if (change.status === 'inactive' && rows.some((row) => row.userId === callerId)) {
          throw conflict('centre.self_deactivation', 'You cannot deactivate yourself: ask another super admin of the centre.');
        }
        for (const row of rows) {
          if (row.status === change.status) continue;
          await row.update({ status: change.status }, { transaction });
          if (change.status === 'active') await onboarding.completeAsStaff(row.userId, row.centreId, transaction);
        }
        const superAdmins = await CentreStaff.count({ where: { centreId: context.centreId, role: 'super_admin', status: 'active' }, transaction });
        if (superAdmins === 0) {
          throw conflict('centre.last_super_admin', 'The centre would be left without an active super admin: keep at least one.');
        }
        return rows.map(staffOf);
      });
    },
  };
}

export type StaffService = ReturnType<typeof createStaffService>;

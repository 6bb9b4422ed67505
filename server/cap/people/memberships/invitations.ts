import {
  DataTypes,
  type Model,
  type ModelAttributes,
  type ModelStatic,
  type Sequelize,
  type Transaction,
} from 'sequelize';
import { instancesOf } from '../../../platform/db/prepared.ts';
import { notFound } from '../../../platform/http/errors.ts';
import { newId } from '../../../platform/ids.ts';
import type { UserService } from '../service.ts';
import { membershipWriter } from './lifecycle.ts';

/** The columns every membership table shares (centre staff, awarding-body members). */
export interface MemberRow extends Model {
  id: string;
  userId: string;
  email: string;
  role: string;
  status: string;
  requiresAcceptance: boolean;
  createdAt: Date;
}

/** The columns of a membership table, with the organisation's key (`centreId`, `awardingBodyId`). */
export function memberAttributes(organisationKey: string): ModelAttributes {
  return {
    id: { type: DataTypes.STRING(26), primaryKey: true, defaultValue: () => newId() },
    [organisationKey]: { type: DataTypes.STRING(26), allowNull: false },
    userId: { type: DataTypes.STRING(26), allowNull: false },
    name: { type: DataTypes.STRING(200), allowNull: true },
    email: { type: DataTypes.STRING(320), allowNull: false },
    role: { type: DataTypes.STRING(16), allowNull: false },
    status: { type: DataTypes.STRING(16), allowNull: false },
    requiresAcceptance: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
    createdAt: DataTypes.DATE,
    updatedAt: DataTypes.DATE,
  };
}

/** One kind of organisation people belong to, as the invitations see it. */
export interface MembershipKind<Row extends MemberRow = MemberRow> {
  kind: 'centre' | 'awarding_body';
  Model: ModelStatic<Row>;
  organisationOf(row: Row, transaction?: Transaction): Promise<{ id: string; name: string }>;
  /** What becoming active brings besides the status (for a centre: the onboarding the web client needs). */
  onActive?(row: Row, transaction: Transaction): Promise<void>;
}

/**
 * Memberships that wait for their person, whatever the organisation: a new account's memberships are
 * let in by its first CAP call; someone who already had an account was invited, and answers here. The
 * kinds are the organisations' modules' own (centres, awarding bodies): each hands its membership table
 * to this mechanism, read when a call needs them (`memberships()`), so they may be made after it.
 */
export function createInvitations(sequelize: Sequelize, users: UserService, memberships: () => MembershipKind[]) {
  const waiting = { status: 'pending', requiresAcceptance: true };

  async function present(kind: MembershipKind, row: MemberRow, transaction?: Transaction) {
    const organisation = await kind.organisationOf(row, transaction);
    return {
      id: row.id,
      kind: kind.kind,
      organisationId: organisation.id,
      organisationName: organisation.name,
      role: row.role,
      invitedAt: row.createdAt.toISOString(),
    };
  }

  /** The caller's invitation with this id, of whichever kind, locked; 404 when there is none. */
  async function invitationOf(userId: string, id: string, transaction: Transaction) {
    for (const kind of memberships()) {
      const row = await kind.Model.findOne({
        where: { id, userId, ...waiting },
        transaction,
        lock: transaction.LOCK.UPDATE,
      });
      if (row) return { kind, row };
    }
    throw notFound(`You have no pending invitation with the id ${id}.`);
  }

  async function activate(kind: MembershipKind, row: MemberRow, transaction: Transaction) {
    await membershipWriter(kind.Model).move(transaction, row, 'accept', {
      by: 'member',
      changes: { requiresAcceptance: false },
    });
    await kind.onActive?.(row, transaction);
  }

  return {
    /** The user's first authenticated CAP call: their pending memberships that were no invitation become active. */
    async firstCall(userId: string): Promise<void> {
      await sequelize.transaction(async (transaction) => {
        if (!(await users.markFirstSeen(userId, transaction))) return;
        for (const kind of memberships()) {
          const pending = await instancesOf(
            kind.Model,
            `x.user_id = $1 AND x.status = 'pending' AND NOT x.requires_acceptance`,
            [userId],
            { transaction, then: 'ORDER BY x.created_at ASC' },
          );
          for (const row of pending) await activate(kind, row, transaction);
        }
      });
    },

    async list(userId: string) {
      const all = [];
      for (const kind of memberships()) {
        const rows = await kind.Model.findAll({
          where: { userId, ...waiting },
          order: [
            ['createdAt', 'ASC'],
            ['id', 'ASC'],
          ],
        });
        for (const row of rows) all.push(await present(kind, row));
      }
      return all.sort((a, b) => a.invitedAt.localeCompare(b.invitedAt));
    },

    async accept(userId: string, id: string) {
      return sequelize.transaction(async (transaction) => {
        const { kind, row } = await invitationOf(userId, id, transaction);
        await activate(kind, row, transaction);
        return { ...(await present(kind, row, transaction)), status: 'active' as const };
      });
    },

    /** Declining removes the membership: the organisation may invite the person again later. */
    async decline(userId: string, id: string) {
      await sequelize.transaction(async (transaction) =>
        (await invitationOf(userId, id, transaction)).row.destroy({ transaction }),
      );
      return { declined: true as const };
    },
  };
}

export type Invitations = ReturnType<typeof createInvitations>;

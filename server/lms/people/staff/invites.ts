import { Op, type Sequelize, type Transaction } from 'sequelize';
import { conflict } from '../../../platform/http/errors.ts';
import { Conditions, keysetInstances } from '../../../platform/db/keyset.ts';
import { preparedReads } from '../../../platform/db/prepared.ts';
import type { PageRequest } from '../../../platform/http/pagination.ts';
import type { ServiceEvents } from '../../../platform/events/types.ts';
import { newId } from '../../../platform/ids.ts';
import { lifecycleWriter, modelStore } from '../../../platform/lifecycle.ts';
import type { LmsPersona } from '../onboarding/rules.ts';
import type { LmsUser } from '../users/models.ts';
import {
  defineStaffModels,
  inviteLifecycle,
  membershipLifecycle,
  type Invite,
  type InviteKind,
  type StaffRole,
} from './models.ts';

export type Invites = ReturnType<typeof createInvites>;

const roleNames: Record<StaffRole, string> = {
  admin: 'an admin',
  content_manager: 'a content manager',
  support: 'a support',
};

/**
 * Instructor and staff invites. Only staff invite (the routes check the capability); the invited
 * address's account accepts by starting that persona's onboarding. A staff invite carries the role the
 * membership gets on acceptance. With `events`, the invited address is told by mail
 * (`notification.requested`, in the invite's transaction); an operator's invite (no events) is not.
 */
export function createInvites(sequelize: Sequelize, events?: ServiceEvents) {
  const { Invite, StaffMember } = defineStaffModels(sequelize);
  const read = preparedReads(sequelize);
  const onboardingTable = '"lms"."lms_onboardings"';
  const invites = lifecycleWriter(inviteLifecycle, { store: modelStore(Invite) });
  const memberships = lifecycleWriter(membershipLifecycle, { store: modelStore(StaffMember) });

  /** Whether the address already belongs to an instructor (completed onboarding) or a staff member. */
  async function alreadyIs(kind: InviteKind, email: string, transaction: Transaction): Promise<boolean> {
    if (kind === 'staff') {
      const [rows] = await sequelize.query(
        `SELECT 1 FROM "lms"."lms_staff_members" s JOIN "lms"."lms_users" u ON u.id = s.lms_user_id WHERE lower(u.email) = $1`,
        { bind: [email], transaction },
      );
      return rows.length > 0;
    }
    const [rows] = await sequelize.query(
      `SELECT 1 FROM ${onboardingTable} o JOIN "lms"."lms_users" u ON u.id = o.lms_user_id
        WHERE lower(u.email) = $1 AND o.persona = 'instructor' AND o.status = 'completed'`,
      { bind: [email], transaction },
    );
    return rows.length > 0;
  }

  async function create(
    kind: InviteKind,
    rawEmail: string,
    invitedBy: string | null,
    staffRole: StaffRole | null = null,
  ) {
    const email = rawEmail.trim().toLowerCase();
    const duplicate = () =>
      conflict('lms.invite.duplicate', `There is already a pending ${kind} invite or a ${kind} for ${email}.`);
    return sequelize.transaction(async (transaction) => {
      if (await alreadyIs(kind, email, transaction)) throw duplicate();
      const id = newId();
      await invites.create(
        transaction,
        'send',
        { id, kind, email, staffRole, invitedBy, acceptedBy: null, acceptedAt: null },
        { by: invitedBy ? 'staff' : 'operator', ignoreDuplicates: true },
      );
      // The partial unique index keeps one pending invite per kind and address; a lost race inserts nothing.
      const stored = await Invite.findByPk(id, { transaction });
      if (!stored) throw duplicate();
      const as = kind === 'staff' ? `${roleNames[staffRole ?? 'support']} staff member` : 'an instructor';
      await events?.publish(transaction, 'notification.requested', {
        to: email,
        template: `lms.invite.${kind}`,
        category: 'system',
        title: `You are invited to the LMS as ${as}`,
        description: `Sign in to the LMS with this address (or register with it) and start the ${kind} onboarding to accept the invitation.`,
        metadata: { inviteId: stored.id, kind },
        channels: ['email'],
      });
      return view(stored);
    });
  }

  async function list(kind: InviteKind, page: PageRequest) {
    const { items, meta } = await keysetInstances(read, page, Invite, {
      from: 'lms.lms_invites x',
      where: new Conditions().add('x.kind = ?', kind),
      key: 'x.id',
      desc: true,
    });
    return { data: items.map(view), meta };
  }

  /** Accepts the pending invite for `persona` sent to the user's address; a staff invite makes them staff. */
  async function accept(user: LmsUser, persona: LmsPersona, transaction: Transaction): Promise<boolean> {
    if (persona === 'learner' || !user.email) return false;
    const invite = await Invite.findOne({
      where: { kind: persona, status: 'pending', email: { [Op.eq]: user.email.toLowerCase() } },
      transaction,
      lock: transaction.LOCK.UPDATE,
    });
    if (!invite) return false;
    await invites.move(transaction, invite, 'accept', {
      by: 'invitee',
      changes: { acceptedBy: user.id, acceptedAt: new Date() },
    });
    if (persona === 'staff') {
      // A membership of an earlier invite takes this invite's role and is active again.
      const role = invite.staffRole ?? 'support';
      await memberships.create(
        transaction,
        'join',
        { id: newId(), lmsUserId: user.id, role },
        { by: 'invitee', ignoreDuplicates: true },
      );
      const member = (await StaffMember.findOne({
        where: { lmsUserId: user.id },
        transaction,
        lock: transaction.LOCK.UPDATE,
      }))!;
      if (member.role !== role) await member.update({ role }, { transaction });
      await memberships.move(transaction, member, 'reinstate', { by: 'invitee' });
    }
    return true;
  }

  /** `invited` while an instructor invite is pending or accepted and the onboarding is not completed. */
  async function instructorInvited(user: Pick<LmsUser, 'email'>): Promise<boolean> {
    if (!user.email) return false;
    const invite = await Invite.findOne({
      where: { kind: 'instructor', email: user.email.toLowerCase(), status: ['pending', 'accepted'] },
    });
    return Boolean(invite);
  }

  return { create, list, accept, instructorInvited };
}

export function view(invite: Invite) {
  return {
    id: invite.id,
    kind: invite.kind,
    email: invite.email,
    ...(invite.staffRole ? { staffRole: invite.staffRole } : {}),
    status: invite.status,
    createdAt: invite.createdAt.toISOString(),
    acceptedAt: invite.acceptedAt?.toISOString() ?? null,
  };
}

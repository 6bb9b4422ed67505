import { defineLifecycle } from '../../../platform/lifecycle.ts';
import {
  DataTypes,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
} from 'sequelize';
import { id, reference, timestamps } from '../../../platform/db/columns.ts';

export const staffRoles = ['admin', 'content_manager', 'support'] as const;
export type StaffRole = (typeof staffRoles)[number];
export type InviteKind = 'instructor' | 'staff';

/**
 * An invite, as data: sent `pending` by staff (or an operator), `accepted` when the invited address's
 * account starts that persona's onboarding. Revoking and expiry are not offered yet.
 */
export const inviteLifecycle = defineLifecycle({
  subject: 'invite',
  statuses: ['pending', 'accepted', 'revoked', 'expired'],
  movers: ['staff', 'operator', 'invitee'],
  moves: {
    send: { from: [null], to: 'pending', by: ['staff', 'operator'] },
    accept: { from: ['pending'], to: 'accepted', by: ['invitee'] },
  },
});
export type InviteStatus = (typeof inviteLifecycle.statuses)[number];

/**
 * A staff membership, as data: `active` when a staff invite is accepted; staff managers suspend and
 * reinstate it (accepting a new staff invite reinstates it too). A repeat changes nothing.
 */
export const membershipLifecycle = defineLifecycle({
  subject: 'staff membership',
  statuses: ['active', 'suspended'],
  movers: ['staff', 'invitee'],
  moves: {
    join: { from: [null], to: 'active', by: ['invitee'] },
    suspend: { from: ['active'], to: 'suspended', by: ['staff'] },
    reinstate: { from: ['suspended'], to: 'active', by: ['staff', 'invitee'] },
  },
  idempotent: true,
});

/** An invitation of an email address to become an instructor or staff (with a role). */
export interface Invite extends Model<InferAttributes<Invite>, InferCreationAttributes<Invite>> {
  id: string;
  kind: InviteKind;
  /** Lower case: an invite matches the account with that address whatever its case. */
  email: string;
  staffRole: StaffRole | null;
  status: InviteStatus;
  invitedBy: string | null;
  acceptedBy: string | null;
  acceptedAt: Date | null;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

/** A staff member: an LMS user with a staff role, active or suspended. */
export interface StaffMember extends Model<InferAttributes<StaffMember>, InferCreationAttributes<StaffMember>> {
  id: string;
  lmsUserId: string;
  role: StaffRole;
  status: (typeof membershipLifecycle.statuses)[number];
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

const defined = new WeakMap<Sequelize, ReturnType<typeof define>>();

/** The staff models of the LMS, defined once per Sequelize instance. */
export function defineStaffModels(sequelize: Sequelize) {
  let models = defined.get(sequelize);
  if (!models) defined.set(sequelize, (models = define(sequelize)));
  return models;
}

function define(sequelize: Sequelize) {
  const Invite = sequelize.define<Invite>(
    'LmsInvite',
    {
      id: id(),
      kind: { type: DataTypes.STRING(16), allowNull: false },
      email: { type: DataTypes.STRING(320), allowNull: false },
      staffRole: { type: DataTypes.STRING(24), allowNull: true },
      status: { type: DataTypes.STRING(16), allowNull: false },
      invitedBy: reference(true),
      acceptedBy: reference(true),
      acceptedAt: { type: DataTypes.DATE, allowNull: true },
      ...timestamps(),
    },
    { tableName: 'lms_invites' },
  );
  const StaffMember = sequelize.define<StaffMember>(
    'LmsStaffMember',
    {
      id: id(),
      lmsUserId: reference(),
      role: { type: DataTypes.STRING(24), allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false },
      ...timestamps(),
    },
    { tableName: 'lms_staff_members' },
  );
  return { Invite: Invite as ModelStatic<Invite>, StaffMember: StaffMember as ModelStatic<StaffMember> };
}

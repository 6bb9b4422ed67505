import {
  DataTypes,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
} from 'sequelize';
import type { JsonObject } from '../../platform/http/merge-patch.ts';
import { defineLifecycle } from '../../platform/lifecycle.ts';
import type { Persona, UserStatus, OnboardingStatus, ModerationStatus } from './vocabulary.ts';
import type { CentreRole, CentreStaffStatus, CentreStatus } from '../centres/index.ts';

/**
 * A CAP user's standing, as data: `active` when provisioned (the user.created event or their first
 * call), `deactivated` when the Orchestrator deactivates the account, written even before the user was
 * provisioned so that a late user.created cannot bring the account back. A repeat changes nothing.
 */
export const userLifecycle = defineLifecycle({
  subject: 'user',
  statuses: ['active', 'deactivated'],
  movers: ['orchestrator'],
  moves: {
    provision: { from: [null], to: 'active', by: ['orchestrator'] },
    deactivate: { from: [null, 'active'], to: 'deactivated', by: ['orchestrator'] },
  },
  idempotent: true,
});

/** A person as CAP knows them, keyed by the Orchestrator user id (CAP never mints one). */
export interface CapUser extends Model<InferAttributes<CapUser>, InferCreationAttributes<CapUser>> {
  userId: string;
  email: string;
  status: CreationOptional<UserStatus>;
  /** True once an identity check has verified the user; a later failed check does not undo it. */
  identityVerified: CreationOptional<boolean>;
  /** The adapter that answered the verifying check (or the latest check while none verified). */
  identityProvider: CreationOptional<string | null>;
  /** The provider's opaque reference of that check. */
  identityProviderReference: CreationOptional<string | null>;
  identityVerifiedAt: CreationOptional<Date | null>;
  /** The user's first authenticated CAP call; null until then. */
  firstSeenAt: CreationOptional<Date | null>;
  /** `personalDetails`, `contactInformation`, `residentialAddress` as PATCH /me/profile stores them. */
  profile: CreationOptional<JsonObject>;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

/** The caller as handlers read it: the row's attributes, no model instance. */
export type CapUserRecord = InferAttributes<CapUser>;

/**
 * What the caller holds on CAP, read with their user row in the one statement of every authenticated
 * call: GET /me and the acting context are both made from it.
 */
export interface Standing {
  onboardings: Array<{ persona: Persona; status: OnboardingStatus }>;
  /** Active and pending staff memberships, oldest first, with their centre's name and status. */
  centres: Array<{
    centreId: string;
    name: string;
    role: CentreRole;
    status: CentreStaffStatus;
    centreStatus: CentreStatus;
  }>;
  /** The oldest awarding body membership, whatever its status. */
  awardingBody: { awardingBodyId: string; name: string; role: 'admin' | 'staff'; status: 'pending' | 'active' } | null;
  /** Any active awarding body membership. */
  awardingBodyActive: boolean;
  /** The assessor profile's moderation status, or null without one. */
  assessorStatus: ModerationStatus | null;
  /** The platform roles granted to the user (the admin operations' permissions). */
  platformRoles: string[];
}

/** An authenticated caller: their CapUser and their standing. */
export interface Caller {
  user: CapUserRecord;
  standing: Standing;
}

export function defineUserModels(sequelize: Sequelize) {
  const CapUser: ModelStatic<CapUser> = sequelize.define<CapUser>(
    'CapUser',
    {
      userId: { type: DataTypes.STRING(26), primaryKey: true },
      email: { type: DataTypes.STRING(320), allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'active' },
      identityVerified: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      identityProvider: { type: DataTypes.STRING(32), allowNull: true },
      identityProviderReference: { type: DataTypes.STRING(128), allowNull: true },
      identityVerifiedAt: { type: DataTypes.DATE, allowNull: true },
      firstSeenAt: { type: DataTypes.DATE, allowNull: true },
      profile: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
      createdAt: DataTypes.DATE,
      updatedAt: DataTypes.DATE,
    },
    { tableName: 'users' },
  );
  return { CapUser };
}

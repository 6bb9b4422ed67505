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
import { id, timestamps } from '../../../platform/db/columns.ts';

/**
 * An LMS user's account, as data: `active` when its Orchestrator account arrives (`user.created`, or
 * its first call), `deactivated` when that account is deleted, for good: a deletion that arrives first
 * creates it deactivated, so it cannot come back active. A repeat changes nothing.
 */
export const lmsUserLifecycle = defineLifecycle({
  subject: 'LMS user',
  statuses: ['active', 'deactivated'],
  movers: ['orchestrator'],
  moves: {
    provision: { from: [null], to: 'active', by: ['orchestrator'] },
    deactivate: [
      { from: [null], to: 'deactivated', by: ['orchestrator'] },
      { from: ['active'], to: 'deactivated', by: ['orchestrator'] },
    ],
  },
  idempotent: true,
});
export type LmsUserStatus = (typeof lmsUserLifecycle.statuses)[number];

/**
 * A learner's standing in the LMS alone (the Orchestrator account is untouched), as data: staff
 * suspend and reinstate a learner; a repeat changes nothing. A new user starts `active` (the column's
 * default).
 */
export const learnerStandingLifecycle = defineLifecycle({
  subject: 'learner',
  statuses: ['active', 'suspended'],
  movers: ['staff'],
  moves: {
    suspend: { from: ['active'], to: 'suspended', by: ['staff'] },
    reinstate: { from: ['suspended'], to: 'active', by: ['staff'] },
  },
  idempotent: true,
});

/** An Orchestrator account as the LMS knows it; `userId` is the Orchestrator user id. */
export interface LmsUser extends Model<InferAttributes<LmsUser>, InferCreationAttributes<LmsUser>> {
  id: string;
  userId: string;
  email: string | null;
  displayName: string | null;
  photoAssetId: string | null;
  status: LmsUserStatus;
  /** Staff may suspend a learner in the LMS only; the Orchestrator account is untouched. */
  learnerStatus: CreationOptional<(typeof learnerStandingLifecycle.statuses)[number]>;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

/** An LMS user's columns as a plain (frozen when kept) record: what the caller's actor holds. */
export type LmsUserRecord = Readonly<InferAttributes<LmsUser>>;

export function defineUserModels(sequelize: Sequelize) {
  const LmsUser = sequelize.define<LmsUser>(
    'LmsUser',
    {
      id: id(),
      userId: { type: DataTypes.STRING(64), allowNull: false, unique: true },
      email: { type: DataTypes.STRING(320), allowNull: true },
      displayName: { type: DataTypes.STRING(120), allowNull: true },
      photoAssetId: { type: DataTypes.STRING(100), allowNull: true },
      status: { type: DataTypes.STRING(16), allowNull: false },
      learnerStatus: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'active' },
      ...timestamps(),
    },
    { tableName: 'lms_users' },
  );
  return { LmsUser: LmsUser as ModelStatic<LmsUser> };
}

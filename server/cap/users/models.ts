import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type ModelStatic, type Sequelize } from 'sequelize';
import type { JsonObject, UserStatus } from '../vocabulary.ts';

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

import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type ModelStatic, type Sequelize } from 'sequelize';
import type { JsonObject, UserStatus } from '../vocabulary.ts';

/** A person as CAP knows them, keyed by the Orchestrator user id (CAP never mints one). */
export interface CapUser extends Model<InferAttributes<CapUser>, InferCreationAttributes<CapUser>> {
  userId: string;
  email: string;
  status: CreationOptional<UserStatus>;
  /** Set by identity verification (a later issue); false until then. */
  identityVerified: CreationOptional<boolean>;
  /** `personalDetails`, `contactInformation`, `residentialAddress` as PATCH /me/profile stores them. */
  profile: CreationOptional<JsonObject>;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

export function defineUserModels(sequelize: Sequelize) {
  const CapUser: ModelStatic<CapUser> = sequelize.define<CapUser>(
    'CapUser',
    {
      userId: { type: DataTypes.STRING(26), primaryKey: true },
      email: { type: DataTypes.STRING(320), allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'active' },
      identityVerified: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      profile: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
      createdAt: DataTypes.DATE,
      updatedAt: DataTypes.DATE,
    },
    { tableName: 'users' },
  );
  return { CapUser };
}

import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type ModelStatic, type Sequelize } from 'sequelize';

export type LmsUserStatus = 'active' | 'deactivated';

/** An Orchestrator account as the LMS knows it; `userId` is the Orchestrator user id. */
export interface LmsUser extends Model<InferAttributes<LmsUser>, InferCreationAttributes<LmsUser>> {
  id: string;
  userId: string;
  email: string | null;
  displayName: string | null;
  photoAssetId: string | null;
  status: LmsUserStatus;
  /** Staff may suspend a learner in the LMS only; the Orchestrator account is untouched. */
  learnerStatus: CreationOptional<'active' | 'suspended'>;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

export function defineUserModels(sequelize: Sequelize) {
  const LmsUser = sequelize.define<LmsUser>(
    'LmsUser',
    {
      id: { type: DataTypes.STRING(26), primaryKey: true },
      userId: { type: DataTypes.STRING(64), allowNull: false, unique: true },
      email: { type: DataTypes.STRING(320), allowNull: true },
      displayName: { type: DataTypes.STRING(120), allowNull: true },
      photoAssetId: { type: DataTypes.STRING(100), allowNull: true },
      status: { type: DataTypes.STRING(16), allowNull: false },
      learnerStatus: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'active' },
      createdAt: DataTypes.DATE,
      updatedAt: DataTypes.DATE,
    },
    { tableName: 'lms_users' },
  );
  return { LmsUser: LmsUser as ModelStatic<LmsUser> };
}

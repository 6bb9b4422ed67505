import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type ModelStatic, type Sequelize } from 'sequelize';
import type { ModerationStatus } from '../vocabulary.ts';

/** An assessor as the platform knows them: one per user, moderated by platform admins. */
export interface AssessorProfile extends Model<InferAttributes<AssessorProfile>, InferCreationAttributes<AssessorProfile>> {
  id: string;
  userId: string;
  status: CreationOptional<ModerationStatus>;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

export function defineAssessorModels(sequelize: Sequelize) {
  const AssessorProfile: ModelStatic<AssessorProfile> = sequelize.define<AssessorProfile>(
    'AssessorProfile',
    {
      id: { type: DataTypes.STRING(26), primaryKey: true },
      userId: { type: DataTypes.STRING(26), allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'pending' },
      createdAt: DataTypes.DATE,
      updatedAt: DataTypes.DATE,
    },
    { tableName: 'assessor_profiles' },
  );
  return { AssessorProfile };
}

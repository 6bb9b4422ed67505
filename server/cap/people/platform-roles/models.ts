import {
  DataTypes,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
} from 'sequelize';

/** One platform role held by one user (platform admins are CAP users with grants, not a persona). */
export interface PlatformRoleGrant extends Model<
  InferAttributes<PlatformRoleGrant>,
  InferCreationAttributes<PlatformRoleGrant>
> {
  userId: string;
  role: string;
  createdAt: CreationOptional<Date>;
}

export function defineAdminModels(sequelize: Sequelize) {
  const PlatformRoleGrant: ModelStatic<PlatformRoleGrant> = sequelize.define<PlatformRoleGrant>(
    'PlatformRoleGrant',
    {
      userId: { type: DataTypes.STRING(26), primaryKey: true },
      role: { type: DataTypes.STRING(32), primaryKey: true },
      createdAt: DataTypes.DATE,
    },
    { tableName: 'platform_role_grants', updatedAt: false },
  );
  return { PlatformRoleGrant };
}

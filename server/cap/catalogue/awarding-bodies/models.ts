import { memberAttributes } from '../../people/index.ts';
import {
  DataTypes,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
} from 'sequelize';

export interface AwardingBody extends Model<InferAttributes<AwardingBody>, InferCreationAttributes<AwardingBody>> {
  id: string;
  name: string;
  registrationNo: string;
  logoAssetId: string | null;
  /** The platform admin who made it. */
  createdBy: string;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

export type AwardingBodyRole = 'admin' | 'staff';

/** A person of an awarding body: pending until let in (a new account) or until they accept (an invitation). */
export interface AwardingBodyMember extends Model<
  InferAttributes<AwardingBodyMember>,
  InferCreationAttributes<AwardingBodyMember>
> {
  id: string;
  awardingBodyId: string;
  userId: string;
  name: string | null;
  email: string;
  role: AwardingBodyRole;
  status: 'pending' | 'active';
  requiresAcceptance: CreationOptional<boolean>;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

export function defineAwardingBodyModels(sequelize: Sequelize) {
  const AwardingBody: ModelStatic<AwardingBody> = sequelize.define<AwardingBody>(
    'AwardingBody',
    {
      id: { type: DataTypes.STRING(26), primaryKey: true },
      name: { type: DataTypes.STRING(200), allowNull: false },
      registrationNo: { type: DataTypes.STRING(100), allowNull: false },
      logoAssetId: { type: DataTypes.STRING(64), allowNull: true },
      createdBy: { type: DataTypes.STRING(26), allowNull: false },
      createdAt: DataTypes.DATE,
      updatedAt: DataTypes.DATE,
    },
    { tableName: 'awarding_bodies' },
  );
  const AwardingBodyMember: ModelStatic<AwardingBodyMember> = sequelize.define<AwardingBodyMember>(
    'AwardingBodyMember',
    memberAttributes('awardingBodyId'),
    { tableName: 'awarding_body_members' },
  );
  return { AwardingBody, AwardingBodyMember };
}

import {
  DataTypes,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type NonAttribute,
  type Sequelize,
} from 'sequelize';
import { newId } from '../../platform/ids.ts';
import { memberAttributes } from '../people/index.ts';
import type { JsonObject } from '../../platform/http/merge-patch.ts';
import type { CentreRole, CentreStaffStatus, CentreStatus } from './vocabulary.ts';

/** An assessment centre. Created `pending` by the owner's onboarding; approval is the admins' (later issue). */
export interface Centre extends Model<InferAttributes<Centre>, InferCreationAttributes<Centre>> {
  id: CreationOptional<string>;
  name: string;
  registrationNo: string;
  status: CreationOptional<CentreStatus>;
  logoAssetId: CreationOptional<string | null>;
  /** `{country, state, lga?, address}` */
  address: CreationOptional<JsonObject | null>;
  /** `{emailAddress, phoneNumber: {countryCode, number}}` */
  supportContact: CreationOptional<JsonObject | null>;
  /** `{bank, accountNo, nameOfAccount?}` */
  accountDetails: CreationOptional<JsonObject | null>;
  createdBy: CreationOptional<string | null>;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

/**
 * A user's membership of a centre. Only an `active` row lets the user act for the centre; a `pending`
 * one waits for the person's first CAP call.
 */
export interface CentreStaff extends Model<InferAttributes<CentreStaff>, InferCreationAttributes<CentreStaff>> {
  id: CreationOptional<string>;
  centreId: string;
  userId: string;
  /** As given when the person was added (the owner's name from their onboarding). */
  name: string | null;
  /** Lower-cased; unique within the centre. */
  email: string;
  role: CentreRole;
  status: CentreStaffStatus;
  /** An invitation of someone who already had an account: pending until they accept it. */
  requiresAcceptance: CreationOptional<boolean>;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
  centre?: NonAttribute<Centre>;
}

export function defineCentreModels(sequelize: Sequelize) {
  const Centre: ModelStatic<Centre> = sequelize.define<Centre>(
    'Centre',
    {
      id: { type: DataTypes.STRING(26), primaryKey: true, defaultValue: () => newId() },
      name: { type: DataTypes.STRING(200), allowNull: false },
      registrationNo: { type: DataTypes.STRING(100), allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'pending' },
      logoAssetId: { type: DataTypes.STRING(64), allowNull: true },
      address: { type: DataTypes.JSONB, allowNull: true },
      supportContact: { type: DataTypes.JSONB, allowNull: true },
      accountDetails: { type: DataTypes.JSONB, allowNull: true },
      createdBy: { type: DataTypes.STRING(26), allowNull: true },
      createdAt: DataTypes.DATE,
      updatedAt: DataTypes.DATE,
    },
    { tableName: 'centres' },
  );
  const CentreStaff: ModelStatic<CentreStaff> = sequelize.define<CentreStaff>(
    'CentreStaff',
    memberAttributes('centreId'),
    { tableName: 'centre_staff' },
  );
  CentreStaff.belongsTo(Centre, { as: 'centre', foreignKey: 'centreId' });
  return { Centre, CentreStaff };
}

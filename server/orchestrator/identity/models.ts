import {
  DataTypes,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
} from 'sequelize';
import type { IdentityOutcome } from './provider.ts';
import { id, reference } from '../../platform/db/columns.ts';

/** One identity check of a user. Holds a keyed hash of the document number, never the number. */
export interface IdentityCheckRow extends Model<
  InferAttributes<IdentityCheckRow>,
  InferCreationAttributes<IdentityCheckRow>
> {
  id: string;
  userId: string;
  documentType: string;
  numberHmac: string;
  outcome: IdentityOutcome;
  provider: string;
  providerReference: string;
  verifiedAt: Date | null;
  createdAt: Date;
}

export function defineIdentityModels(sequelize: Sequelize): { IdentityCheck: ModelStatic<IdentityCheckRow> } {
  const IdentityCheck = sequelize.define<IdentityCheckRow>(
    'IdentityCheck',
    {
      id: id(),
      userId: reference(),
      documentType: { type: DataTypes.STRING(16), allowNull: false },
      numberHmac: { type: DataTypes.STRING(64), allowNull: false },
      outcome: { type: DataTypes.STRING(16), allowNull: false },
      provider: { type: DataTypes.STRING(32), allowNull: false },
      providerReference: { type: DataTypes.STRING(128), allowNull: false },
      verifiedAt: { type: DataTypes.DATE, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'identity_checks', updatedAt: false },
  );
  return { IdentityCheck };
}

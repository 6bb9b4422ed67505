import {
  DataTypes,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
} from 'sequelize';
import { id, timestamps } from '../../platform/db/columns.ts';

/** A signing key of the sandbox Google issuer (development mode only). The id is the JWK `kid`. */
export interface SandboxKeyRow extends Model<InferAttributes<SandboxKeyRow>, InferCreationAttributes<SandboxKeyRow>> {
  id: string;
  privateKeyPem: string;
  publicJwk: Record<string, unknown>;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

export function defineGoogleModels(sequelize: Sequelize): { SandboxKey: ModelStatic<SandboxKeyRow> } {
  const SandboxKey = sequelize.define<SandboxKeyRow>(
    'GoogleSandboxKey',
    {
      id: id(),
      privateKeyPem: { type: DataTypes.TEXT, allowNull: false },
      publicJwk: { type: DataTypes.JSONB, allowNull: false },
      ...timestamps(),
    },
    { tableName: 'google_sandbox_keys' },
  );
  return { SandboxKey };
}

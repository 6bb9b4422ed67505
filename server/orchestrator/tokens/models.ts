import {
  DataTypes,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
} from 'sequelize';
import type { JWK } from 'jose';

/** A key pair that signs (active) or once signed (retired) access tokens; `kid` is the JWK thumbprint. */
export interface SigningKeyRow extends Model<InferAttributes<SigningKeyRow>, InferCreationAttributes<SigningKeyRow>> {
  kid: string;
  privateKeyPem: string;
  publicJwk: JWK;
  active: boolean;
  retiredAt: Date | null;
  createdAt: CreationOptional<Date>;
}

export function defineSigningKey(sequelize: Sequelize): ModelStatic<SigningKeyRow> {
  return sequelize.define<SigningKeyRow>(
    'SigningKey',
    {
      kid: { type: DataTypes.STRING(64), primaryKey: true },
      privateKeyPem: { type: DataTypes.TEXT, allowNull: false },
      publicJwk: { type: DataTypes.JSONB, allowNull: false },
      active: { type: DataTypes.BOOLEAN, allowNull: false },
      retiredAt: { type: DataTypes.DATE, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'signing_keys', updatedAt: false },
  );
}

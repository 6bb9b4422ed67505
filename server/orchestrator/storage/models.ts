import {
  DataTypes,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
} from 'sequelize';
import type { AssetStatus, Purpose } from './policy.ts';
import { id, reference, timestamps } from '../../platform/db/columns.ts';

/** A stored file, owned by the user who uploaded it. */
export interface AssetRow extends Model<InferAttributes<AssetRow>, InferCreationAttributes<AssetRow>> {
  id: string;
  ownerUserId: string;
  purpose: Purpose;
  status: AssetStatus;
  fileName: string;
  /** What the client said the file is; informational only. */
  declaredMimeType: string | null;
  /** What the bytes are (sniffed); null until they arrive. */
  mimeType: string | null;
  sizeBytes: number | null;
  backend: string;
  objectKey: string;
  uploadExpiresAt: Date | null;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

export function defineStorageModels(sequelize: Sequelize): { Asset: ModelStatic<AssetRow> } {
  const Asset = sequelize.define<AssetRow>(
    'StorageAsset',
    {
      id: id(),
      ownerUserId: reference(),
      purpose: { type: DataTypes.STRING(32), allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false },
      fileName: { type: DataTypes.STRING(255), allowNull: false },
      declaredMimeType: { type: DataTypes.STRING(255), allowNull: true },
      mimeType: { type: DataTypes.STRING(255), allowNull: true },
      sizeBytes: {
        type: DataTypes.BIGINT,
        allowNull: true,
        get() {
          const v = this.getDataValue('sizeBytes');
          return v === null ? null : Number(v);
        },
      },
      backend: { type: DataTypes.STRING(16), allowNull: false },
      objectKey: { type: DataTypes.STRING(100), allowNull: false },
      uploadExpiresAt: { type: DataTypes.DATE, allowNull: true },
      ...timestamps(),
    },
    { tableName: 'storage_assets' },
  );
  return { Asset };
}

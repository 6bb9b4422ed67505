import { DataTypes, type QueryInterface } from 'sequelize';

const assets = { tableName: 'storage_assets', schema: 'ol' };

/** Stored files (their bytes live in the storage backend, under `object_key`). */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.createTable(assets, {
    id: { type: DataTypes.STRING(26), primaryKey: true, allowNull: false },
    owner_user_id: {
      type: DataTypes.STRING(26),
      allowNull: false,
      references: { model: { tableName: 'users', schema: 'ol' }, key: 'id' },
      onDelete: 'CASCADE',
    },
    purpose: { type: DataTypes.STRING(32), allowNull: false },
    status: { type: DataTypes.STRING(16), allowNull: false },
    file_name: { type: DataTypes.STRING(255), allowNull: false },
    declared_mime_type: { type: DataTypes.STRING(255), allowNull: true },
    mime_type: { type: DataTypes.STRING(255), allowNull: true },
    size_bytes: { type: DataTypes.BIGINT, allowNull: true },
    backend: { type: DataTypes.STRING(16), allowNull: false },
    object_key: { type: DataTypes.STRING(100), allowNull: false },
    upload_expires_at: { type: DataTypes.DATE, allowNull: true },
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false },
  });
  await q.addIndex(assets, ['owner_user_id', 'id'], { name: 'storage_assets_owner' });
  await q.addConstraint(assets, {
    type: 'check',
    name: 'storage_assets_status_check',
    fields: ['status'],
    where: { status: ['pending', 'uploaded', 'ready'] },
  });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.dropTable(assets);
}

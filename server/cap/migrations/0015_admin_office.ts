import { DataTypes, type QueryInterface } from 'sequelize';

const schema = 'cap';
const downloads = { tableName: 'downloadable_templates', schema };
const workflows = { tableName: 'workflow_template_versions', schema };

/**
 * The admin office: the downloadable templates admins keep (storage assets by key;
 * `third_party_report` is the one the public third-party report template serves), and versioned
 * workflow templates per application type.
 */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.createTable(downloads, {
    key: { type: DataTypes.STRING(48), primaryKey: true, allowNull: false },
    asset_id: { type: DataTypes.STRING(26), allowNull: false },
    updated_by: { type: DataTypes.STRING(26), allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false },
  });
  await q.createTable(workflows, {
    id: { type: DataTypes.STRING(26), primaryKey: true, allowNull: false },
    application_type: { type: DataTypes.STRING(8), allowNull: false },
    version: { type: DataTypes.INTEGER, allowNull: false },
    // [{stageKey, label, durationDays, guidance}], the type's stages in lifecycle order.
    stages: { type: DataTypes.JSONB, allowNull: false },
    published_by: { type: DataTypes.STRING(26), allowNull: false },
    published_at: { type: DataTypes.DATE, allowNull: false },
  });
  await q.addIndex(workflows, ['application_type', 'version'], {
    name: 'workflow_template_versions_number',
    unique: true,
  });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.dropTable(workflows);
  await q.dropTable(downloads);
}

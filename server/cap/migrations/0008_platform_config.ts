import { DataTypes, type QueryInterface } from 'sequelize';

const schema = 'cap';
const configs = { tableName: 'platform_config_versions', schema };
const policies = { tableName: 'policy_versions', schema };

/**
 * Versioned platform settings and documents, published by platform admins; the newest version is the
 * one the platform applies. Version 1 of the config: application price floors of NGN 25,000 (RPL) and
 * NGN 15,000 (NSQ), and a platform fee of 10%.
 */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.createTable(configs, {
    version: { type: DataTypes.INTEGER, primaryKey: true, allowNull: false },
    // {RPL: Money, NSQ: Money}: the least a centre may charge for an application of each type.
    floors: { type: DataTypes.JSONB, allowNull: false },
    // The platform's share of each application payment, in basis points (1% = 100).
    fee_basis_points: { type: DataTypes.INTEGER, allowNull: false },
    published_by: { type: DataTypes.STRING(26), allowNull: true },
    published_at: { type: DataTypes.DATE, allowNull: false },
  });
  await q.bulkInsert(configs, [
    {
      version: 1,
      floors: JSON.stringify({
        RPL: { amountMinorUnits: '2500000', currency: 'NGN' },
        NSQ: { amountMinorUnits: '1500000', currency: 'NGN' },
      }),
      fee_basis_points: 1000,
      published_by: null,
      published_at: new Date(),
    },
  ]);
  await q.createTable(policies, {
    id: { type: DataTypes.STRING(26), primaryKey: true, allowNull: false },
    // terms, privacy, pricing
    kind: { type: DataTypes.STRING(32), allowNull: false },
    version: { type: DataTypes.INTEGER, allowNull: false },
    title: { type: DataTypes.STRING(200), allowNull: false },
    body: { type: DataTypes.TEXT, allowNull: false },
    published_by: { type: DataTypes.STRING(26), allowNull: false },
    published_at: { type: DataTypes.DATE, allowNull: false },
  });
  await q.addIndex(policies, ['kind', 'version'], { unique: true, name: 'policy_versions_kind_version' });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.dropTable(policies);
  await q.dropTable(configs);
}

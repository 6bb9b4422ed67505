import { DataTypes, type QueryInterface } from 'sequelize';

const payments = { tableName: 'application_payments', schema: 'cap' };

/** A completed payment's receipt document, stored in the Orchestrator (made when first read). */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.addColumn(payments, 'receipt_asset_id', { type: DataTypes.STRING(26), allowNull: true });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.removeColumn(payments, 'receipt_asset_id');
}

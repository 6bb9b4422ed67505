import { DataTypes, type QueryInterface } from 'sequelize';

const payments = { tableName: 'application_payments', schema: 'cap' };

/**
 * Application payments move through the kernel's lifecycle writer (payments/lifecycle.ts), which stamps
 * created_at / updated_at; a refunded payment says when the Orchestrator reported the refund.
 */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.addColumn(payments, 'created_at', {
    type: DataTypes.DATE,
    allowNull: false,
    defaultValue: q.sequelize.fn('now'),
  });
  await q.addColumn(payments, 'updated_at', {
    type: DataTypes.DATE,
    allowNull: false,
    defaultValue: q.sequelize.fn('now'),
  });
  await q.addColumn(payments, 'refunded_at', { type: DataTypes.DATE, allowNull: true });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  for (const column of ['refunded_at', 'updated_at', 'created_at']) await q.removeColumn(payments, column);
}

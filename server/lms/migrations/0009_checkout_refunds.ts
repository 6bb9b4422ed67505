import { DataTypes, type QueryInterface } from 'sequelize';

const payments = { tableName: 'lms_payments', schema: 'lms' };

/** A checkout attempt may be refunded: `refunding` (asked of the Orchestrator), then `refunded` with its time. */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.removeConstraint(payments, 'lms_payments_status_check');
  await q.addConstraint(payments, {
    type: 'check',
    fields: ['status'],
    where: { status: ['pending', 'completed', 'failed', 'refunding', 'refunded'] },
    name: 'lms_payments_status_check',
  });
  await q.addColumn(payments, 'refunded_at', { type: DataTypes.DATE, allowNull: true });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.removeColumn(payments, 'refunded_at');
  await q.removeConstraint(payments, 'lms_payments_status_check');
  await q.addConstraint(payments, {
    type: 'check',
    fields: ['status'],
    where: { status: ['pending', 'completed', 'failed'] },
    name: 'lms_payments_status_check',
  });
}

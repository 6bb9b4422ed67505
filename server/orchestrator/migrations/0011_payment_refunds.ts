import { DataTypes, type QueryInterface } from 'sequelize';

const payments = { tableName: 'payments', schema: 'ol' };
const sandboxTransactions = { tableName: 'sandbox_transactions', schema: 'ol' };

/** Statuses of the two lifecycles before and after refunds (payments/lifecycle.ts, sandbox/models.ts). */
const statuses = {
  payments: {
    before: ['initiated', 'pending', 'succeeded', 'failed', 'abandoned'],
    after: ['initiated', 'pending', 'succeeded', 'failed', 'abandoned', 'refunding', 'refunded'],
  },
  sandbox: {
    before: ['pending', 'success', 'failed', 'abandoned'],
    after: ['pending', 'success', 'failed', 'abandoned', 'refunded'],
  },
};

async function checks(q: QueryInterface, which: 'before' | 'after'): Promise<void> {
  await q.removeConstraint(payments, 'payments_status_check');
  await q.addConstraint(payments, {
    type: 'check',
    name: 'payments_status_check',
    fields: ['status'],
    where: { status: statuses.payments[which] },
  });
  await q.removeConstraint(sandboxTransactions, 'sandbox_transactions_status_check');
  await q.addConstraint(sandboxTransactions, {
    type: 'check',
    name: 'sandbox_transactions_status_check',
    fields: ['status'],
    where: { status: statuses.sandbox[which] },
  });
}

/** Refunds are moves of the payment lifecycle (refunding, refunded); a refunded payment says when. */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await checks(q, 'after');
  await q.addColumn(payments, 'refunded_at', { type: DataTypes.DATE, allowNull: true });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.removeColumn(payments, 'refunded_at');
  await checks(q, 'before');
}

import { DataTypes, type QueryInterface } from 'sequelize';

const schema = 'ol';
const payments = { tableName: 'payments', schema };
const statusChanges = { tableName: 'payment_status_changes', schema };
const webhookEvents = { tableName: 'payment_webhook_events', schema };
const sandboxTransactions = { tableName: 'sandbox_transactions', schema };
const sandboxWebhooks = { tableName: 'sandbox_webhook_deliveries', schema };

const id = { type: DataTypes.STRING(26), primaryKey: true, allowNull: false };

/**
 * Payments (their lifecycle as rows: the payment, its status history, the provider webhooks it
 * received) and the sandbox payment provider's own records (its transactions and the webhooks it
 * owes the Orchestrator, delivered by a worker that survives restarts).
 */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.createTable(payments, {
    id,
    // Shared with the provider: the checkout, its webhooks and verify-by-reference name it.
    reference: { type: DataTypes.STRING(64), allowNull: false },
    // Chosen by the caller of InitiatePayment; the same key answers the same payment.
    idempotency_key: { type: DataTypes.STRING(200), allowNull: false },
    provider: { type: DataTypes.STRING(32), allowNull: false },
    payer_user_id: {
      type: DataTypes.STRING(26),
      allowNull: false,
      references: { model: { tableName: 'users', schema }, key: 'id' },
    },
    purpose: { type: DataTypes.STRING(32), allowNull: false },
    purpose_reference_id: { type: DataTypes.STRING(100), allowNull: false },
    amount_minor: { type: DataTypes.BIGINT, allowNull: false },
    currency: { type: DataTypes.STRING(3), allowNull: false },
    beneficiary_centre_id: { type: DataTypes.STRING(100), allowNull: true },
    return_url: { type: DataTypes.TEXT, allowNull: true },
    checkout_url: { type: DataTypes.TEXT, allowNull: true },
    status: { type: DataTypes.STRING(16), allowNull: false },
    failure_reason: { type: DataTypes.TEXT, allowNull: true },
    provider_transaction_id: { type: DataTypes.STRING(100), allowNull: true },
    completed_at: { type: DataTypes.DATE, allowNull: true },
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false },
  });
  await q.addIndex(payments, ['reference'], { unique: true, name: 'payments_reference_unique' });
  await q.addIndex(payments, ['idempotency_key'], { unique: true, name: 'payments_idempotency_key_unique' });
  await q.addIndex(payments, ['payer_user_id', 'id'], { name: 'payments_payer' });
  await q.addIndex(payments, ['purpose', 'purpose_reference_id'], { name: 'payments_purpose_reference' });
  await q.addConstraint(payments, {
    type: 'check',
    name: 'payments_status_check',
    fields: ['status'],
    where: { status: ['initiated', 'pending', 'succeeded', 'failed', 'abandoned'] },
  });
  await q.addConstraint(payments, {
    type: 'check',
    name: 'payments_purpose_check',
    fields: ['purpose'],
    where: { purpose: ['cap_application', 'lms_enrollment'] },
  });
  await q.sequelize.query(`ALTER TABLE ol.payments ADD CONSTRAINT payments_amount_positive CHECK (amount_minor > 0)`);

  await q.createTable(statusChanges, {
    id,
    payment_id: {
      type: DataTypes.STRING(26),
      allowNull: false,
      references: { model: payments, key: 'id' },
      onDelete: 'CASCADE',
    },
    // Null for the row that records the payment's creation.
    from_status: { type: DataTypes.STRING(16), allowNull: true },
    to_status: { type: DataTypes.STRING(16), allowNull: false },
    actor: { type: DataTypes.STRING(16), allowNull: false },
    // initiate, checkout_created, webhook, verify
    cause: { type: DataTypes.STRING(32), allowNull: false },
    detail: { type: DataTypes.JSONB, allowNull: true },
    created_at: { type: DataTypes.DATE, allowNull: false },
  });
  await q.addIndex(statusChanges, ['payment_id', 'id'], { name: 'payment_status_changes_payment' });

  // Every signed webhook the Orchestrator accepted, once per provider event: a redelivery finds its row and has no effect.
  await q.createTable(webhookEvents, {
    provider: { type: DataTypes.STRING(32), allowNull: false, primaryKey: true },
    event_id: { type: DataTypes.STRING(100), allowNull: false, primaryKey: true },
    event_type: { type: DataTypes.STRING(64), allowNull: false },
    reference: { type: DataTypes.STRING(64), allowNull: false },
    // applied, no_change, unknown_reference, refused
    effect: { type: DataTypes.STRING(32), allowNull: false },
    received_at: { type: DataTypes.DATE, allowNull: false },
  });
  await q.addIndex(webhookEvents, ['reference'], { name: 'payment_webhook_events_reference' });

  // --- The sandbox provider's side (what a real processor keeps on its own servers) ---
  await q.createTable(sandboxTransactions, {
    reference: { type: DataTypes.STRING(64), allowNull: false, primaryKey: true },
    // The provider's own transaction id.
    id: { type: DataTypes.STRING(26), allowNull: false, unique: true },
    amount_minor: { type: DataTypes.BIGINT, allowNull: false },
    currency: { type: DataTypes.STRING(3), allowNull: false },
    description: { type: DataTypes.STRING(300), allowNull: false },
    customer_email: { type: DataTypes.STRING(254), allowNull: true },
    return_url: { type: DataTypes.TEXT, allowNull: true },
    metadata: { type: DataTypes.JSONB, allowNull: false },
    // pending, success, failed, abandoned
    status: { type: DataTypes.STRING(16), allowNull: false },
    gateway_response: { type: DataTypes.STRING(200), allowNull: true },
    card_last4: { type: DataTypes.STRING(4), allowNull: true },
    card_brand: { type: DataTypes.STRING(16), allowNull: true },
    paid_at: { type: DataTypes.DATE, allowNull: true },
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false },
  });
  await q.addConstraint(sandboxTransactions, {
    type: 'check',
    name: 'sandbox_transactions_status_check',
    fields: ['status'],
    where: { status: ['pending', 'success', 'failed', 'abandoned'] },
  });

  await q.createTable(sandboxWebhooks, {
    // The event id, repeated in the body: every attempt sends the same bytes.
    id,
    reference: {
      type: DataTypes.STRING(64),
      allowNull: false,
      references: { model: sandboxTransactions, key: 'reference' },
      onDelete: 'CASCADE',
    },
    event: { type: DataTypes.STRING(64), allowNull: false },
    body: { type: DataTypes.TEXT, allowNull: false },
    // pending (to send, or being sent under a lease until next_attempt_at), delivered, failed (gave up)
    status: { type: DataTypes.STRING(16), allowNull: false },
    attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    next_attempt_at: { type: DataTypes.DATE, allowNull: false },
    last_status_code: { type: DataTypes.INTEGER, allowNull: true },
    last_error: { type: DataTypes.TEXT, allowNull: true },
    delivered_at: { type: DataTypes.DATE, allowNull: true },
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false },
  });
  await q.addIndex(sandboxWebhooks, ['status', 'next_attempt_at'], { name: 'sandbox_webhook_deliveries_due' });
  await q.addIndex(sandboxWebhooks, ['reference'], { name: 'sandbox_webhook_deliveries_reference' });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.dropTable(sandboxWebhooks);
  await q.dropTable(sandboxTransactions);
  await q.dropTable(webhookEvents);
  await q.dropTable(statusChanges);
  await q.dropTable(payments);
}

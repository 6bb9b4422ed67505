import { defineLifecycle } from '../../../platform/lifecycle.ts';
import {
  DataTypes,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type Sequelize,
} from 'sequelize';
import { id, reference } from '../../../platform/db/columns.ts';

export const sandboxStatuses = ['pending', 'success', 'failed', 'abandoned', 'refunded'] as const;
export type SandboxStatus = (typeof sandboxStatuses)[number];

/**
 * A sandbox transaction, as data: opened `pending` for the merchant's checkout, then closed once by the
 * payer on the checkout page (paid, declined or cancelled). Closing moves are named by their outcome.
 */
export const sandboxTransactionLifecycle = defineLifecycle({
  subject: 'sandbox transaction',
  statuses: sandboxStatuses,
  movers: ['merchant', 'payer'],
  moves: {
    open: { from: [null], to: 'pending', by: ['merchant'] },
    success: { from: ['pending'], to: 'success', by: ['payer'] },
    failed: { from: ['pending'], to: 'failed', by: ['payer'] },
    abandoned: { from: ['pending'], to: 'abandoned', by: ['payer'] },
    // The merchant refunds a paid transaction in full (the sandbox settles refunds at once).
    refunded: { from: ['success'], to: 'refunded', by: ['merchant'] },
  },
});

/**
 * A webhook the sandbox owes, as data: `pending` until an attempt is acknowledged (`delivered`); a
 * failed attempt keeps it pending for the next one, until the sender gives up (`failed`). Moves are
 * named by the status they lead to.
 */
export const webhookDeliveryLifecycle = defineLifecycle({
  subject: 'sandbox webhook',
  statuses: ['pending', 'delivered', 'failed'],
  movers: ['sandbox'],
  moves: {
    pending: [
      { from: [null], to: 'pending', by: ['sandbox'] },
      { from: ['pending'], to: 'pending', by: ['sandbox'] },
    ],
    delivered: { from: ['pending'], to: 'delivered', by: ['sandbox'] },
    failed: { from: ['pending'], to: 'failed', by: ['sandbox'] },
  },
});

/** A transaction on the sandbox processor, keyed by the merchant's reference. `amountMinor` is BIGINT, read as a string. */
export interface SandboxTransactionRow extends Model<
  InferAttributes<SandboxTransactionRow>,
  InferCreationAttributes<SandboxTransactionRow>
> {
  reference: string;
  id: string;
  amountMinor: string;
  currency: string;
  description: string;
  customerEmail: string | null;
  returnUrl: string | null;
  metadata: Record<string, string>;
  status: SandboxStatus;
  gatewayResponse: string | null;
  cardLast4: string | null;
  cardBrand: string | null;
  paidAt: Date | null;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

/** A webhook the sandbox owes the merchant; the worker in webhooks.ts sends it until it is acknowledged. */
export interface SandboxWebhookRow extends Model<
  InferAttributes<SandboxWebhookRow>,
  InferCreationAttributes<SandboxWebhookRow>
> {
  id: string;
  reference: string;
  event: string;
  body: string;
  status: (typeof webhookDeliveryLifecycle.statuses)[number];
  attempts: CreationOptional<number>;
  nextAttemptAt: Date;
  lastStatusCode: number | null;
  lastError: string | null;
  deliveredAt: Date | null;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

export function defineSandboxModels(sequelize: Sequelize) {
  const SandboxTransaction = sequelize.define<SandboxTransactionRow>(
    'SandboxTransaction',
    {
      reference: { type: DataTypes.STRING(64), primaryKey: true },
      id: reference(),
      amountMinor: { type: DataTypes.BIGINT, allowNull: false },
      currency: { type: DataTypes.STRING(3), allowNull: false },
      description: { type: DataTypes.STRING(300), allowNull: false },
      customerEmail: { type: DataTypes.STRING(254), allowNull: true },
      returnUrl: { type: DataTypes.TEXT, allowNull: true },
      metadata: { type: DataTypes.JSONB, allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false },
      gatewayResponse: { type: DataTypes.STRING(200), allowNull: true },
      cardLast4: { type: DataTypes.STRING(4), allowNull: true },
      cardBrand: { type: DataTypes.STRING(16), allowNull: true },
      paidAt: { type: DataTypes.DATE, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false },
      updatedAt: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'sandbox_transactions' },
  );
  const SandboxWebhook = sequelize.define<SandboxWebhookRow>(
    'SandboxWebhook',
    {
      id: id(),
      reference: { type: DataTypes.STRING(64), allowNull: false },
      event: { type: DataTypes.STRING(64), allowNull: false },
      body: { type: DataTypes.TEXT, allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false },
      attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      nextAttemptAt: { type: DataTypes.DATE, allowNull: false },
      lastStatusCode: { type: DataTypes.INTEGER, allowNull: true },
      lastError: { type: DataTypes.TEXT, allowNull: true },
      deliveredAt: { type: DataTypes.DATE, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false },
      updatedAt: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'sandbox_webhook_deliveries' },
  );
  return { SandboxTransaction, SandboxWebhook };
}

import {
  DataTypes,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
} from 'sequelize';
import type { PaymentActor, PaymentStatus } from './lifecycle.ts';
import { id, reference } from '../../platform/db/columns.ts';

export const paymentPurposes = ['cap_application', 'lms_enrollment'] as const;
export type PaymentPurpose = (typeof paymentPurposes)[number];

/** A payment the Orchestrator runs with its provider. `amountMinor` is BIGINT, read as a string. */
export interface PaymentRow extends Model<InferAttributes<PaymentRow>, InferCreationAttributes<PaymentRow>> {
  id: string;
  reference: string;
  idempotencyKey: string;
  provider: string;
  payerUserId: string;
  purpose: PaymentPurpose;
  purposeReferenceId: string;
  amountMinor: string;
  currency: string;
  beneficiaryCentreId: string | null;
  returnUrl: string | null;
  checkoutUrl: string | null;
  status: PaymentStatus;
  failureReason: string | null;
  providerTransactionId: string | null;
  completedAt: Date | null;
  /** When the provider reported the refund (null until then). */
  refundedAt: CreationOptional<Date | null>;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

/** One row per status a payment took, written by the lifecycle's transition in the same transaction. */
export interface PaymentStatusChangeRow extends Model<
  InferAttributes<PaymentStatusChangeRow>,
  InferCreationAttributes<PaymentStatusChangeRow>
> {
  id: string;
  paymentId: string;
  fromStatus: PaymentStatus | null;
  toStatus: PaymentStatus;
  actor: PaymentActor;
  cause: 'initiate' | 'checkout_created' | 'webhook' | 'verify' | 'refund_requested';
  detail: Record<string, unknown> | null;
  createdAt: Date;
}

export function definePaymentModels(sequelize: Sequelize) {
  const Payment = sequelize.define<PaymentRow>(
    'Payment',
    {
      id: id(),
      reference: { type: DataTypes.STRING(64), allowNull: false },
      idempotencyKey: { type: DataTypes.STRING(200), allowNull: false },
      provider: { type: DataTypes.STRING(32), allowNull: false },
      payerUserId: reference(),
      purpose: { type: DataTypes.STRING(32), allowNull: false },
      purposeReferenceId: { type: DataTypes.STRING(100), allowNull: false },
      amountMinor: { type: DataTypes.BIGINT, allowNull: false },
      currency: { type: DataTypes.STRING(3), allowNull: false },
      beneficiaryCentreId: { type: DataTypes.STRING(100), allowNull: true },
      returnUrl: { type: DataTypes.TEXT, allowNull: true },
      checkoutUrl: { type: DataTypes.TEXT, allowNull: true },
      status: { type: DataTypes.STRING(16), allowNull: false },
      failureReason: { type: DataTypes.TEXT, allowNull: true },
      providerTransactionId: { type: DataTypes.STRING(100), allowNull: true },
      completedAt: { type: DataTypes.DATE, allowNull: true },
      refundedAt: { type: DataTypes.DATE, allowNull: true, defaultValue: null },
      createdAt: { type: DataTypes.DATE, allowNull: false },
      updatedAt: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'payments' },
  );
  const PaymentStatusChange = sequelize.define<PaymentStatusChangeRow>(
    'PaymentStatusChange',
    {
      id: id(),
      paymentId: reference(),
      fromStatus: { type: DataTypes.STRING(16), allowNull: true },
      toStatus: { type: DataTypes.STRING(16), allowNull: false },
      actor: { type: DataTypes.STRING(16), allowNull: false },
      cause: { type: DataTypes.STRING(32), allowNull: false },
      detail: { type: DataTypes.JSONB, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'payment_status_changes', updatedAt: false },
  );
  return { Payment, PaymentStatusChange };
}

export type PaymentModels = ReturnType<typeof definePaymentModels>;

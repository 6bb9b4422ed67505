import type { Money } from '../platform/money.ts';
import { paymentCompletedPurposes } from './payment-completed.ts';

// The data of `payment.refunded`, the Orchestrator's event when the provider has given a payment back to
// its payer in full (pinned by the message pact in pacts/cap-ol.json). Shared by its producer (the
// Orchestrator) and its consumer (CAP closes the payment and debits the centre's wallet).

export interface PaymentRefundedData {
  paymentId: string;
  reference: string;
  purpose: (typeof paymentCompletedPurposes)[number];
  purposeReferenceId: string;
  payerUserId: string;
  /** What was given back, gross, in minor units: the whole payment. */
  amount: Money;
  beneficiaryCentreId: string | null;
  provider: string;
  /** When the provider refunded it (ISO 8601). */
  refundedAt: string;
}

const text = (value: unknown) => typeof value === 'string' && value !== '';

/** Reads `payment.refunded` data as a consumer must; throws naming each field that breaks the contract. */
export function readPaymentRefunded(data: Record<string, unknown>): PaymentRefundedData {
  const amount = data.amount as Partial<Money> | undefined;
  const problems = [
    !text(data.paymentId) && 'paymentId',
    !text(data.reference) && 'reference',
    !(paymentCompletedPurposes as readonly unknown[]).includes(data.purpose) && 'purpose',
    !text(data.purposeReferenceId) && 'purposeReferenceId',
    !text(data.payerUserId) && 'payerUserId',
    !(amount && typeof amount.amountMinorUnits === 'string' && /^[1-9][0-9]*$/.test(amount.amountMinorUnits)) &&
      'amount.amountMinorUnits',
    !(amount && typeof amount.currency === 'string' && /^[A-Z]{3}$/.test(amount.currency)) && 'amount.currency',
    !(data.beneficiaryCentreId === null || text(data.beneficiaryCentreId)) && 'beneficiaryCentreId',
    !text(data.provider) && 'provider',
    !(typeof data.refundedAt === 'string' && !Number.isNaN(Date.parse(data.refundedAt))) && 'refundedAt',
  ].filter((problem): problem is string => typeof problem === 'string');
  if (problems.length > 0) throw new Error(`payment.refunded data is not valid: ${problems.join(', ')}`);
  return data as unknown as PaymentRefundedData;
}

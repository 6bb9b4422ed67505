import { paymentEventProblems, type PaymentCompletedData } from './payment-completed.ts';

// The data of `payment.refunded`, the Orchestrator's event when the provider has given a payment back to
// its payer in full (pinned by the message pact in pacts/cap-ol.json). Shared by its producer (the
// Orchestrator) and its consumer (CAP closes the payment and debits the centre's wallet). The fields of
// `payment.completed`, `amount` being the whole payment given back, with `refundedAt` for `completedAt`.

export type PaymentRefundedData = Omit<PaymentCompletedData, 'completedAt'> & {
  /** When the provider refunded it (ISO 8601). */
  refundedAt: string;
};

/** Reads `payment.refunded` data as a consumer must; throws naming each field that breaks the contract. */
export function readPaymentRefunded(data: Record<string, unknown>): PaymentRefundedData {
  const problems = paymentEventProblems(data, 'refundedAt');
  if (problems.length > 0) throw new Error(`payment.refunded data is not valid: ${problems.join(', ')}`);
  return data as unknown as PaymentRefundedData;
}

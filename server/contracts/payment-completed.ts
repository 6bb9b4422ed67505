import type { Money } from '../platform/money.ts';

// The data of `payment.completed`, the Orchestrator's event when a payment succeeds (pinned by the
// message pacts in pacts/cap-ol.json and pacts/lms-ol.json). Shared by its producer (the Orchestrator)
// and its consumers (CAP unlocks the application and credits the centre; the LMS grants the enrollment).

export const paymentCompletedPurposes = ['cap_application', 'lms_enrollment'] as const;

export interface PaymentCompletedData {
  paymentId: string;
  /** The reference shared with the payment provider (verify-by-reference takes it). */
  reference: string;
  /** `cap_application`: purposeReferenceId is the CAP application id; `lms_enrollment`: the LMS enrollment id. */
  purpose: (typeof paymentCompletedPurposes)[number];
  purposeReferenceId: string;
  payerUserId: string;
  /** What was paid, gross, in minor units. */
  amount: Money;
  /** The CAP centre the money is for, or null. */
  beneficiaryCentreId: string | null;
  /** The payment provider that took it, e.g. `sandbox`. */
  provider: string;
  /** When the provider took the money (ISO 8601). */
  completedAt: string;
}

const text = (value: unknown) => typeof value === 'string' && value !== '';

/**
 * The fields of a payment event's data (`payment.completed`, `payment.refunded`) that break the
 * contract; `at` names the event's own time field.
 */
export function paymentEventProblems(data: Record<string, unknown>, at: 'completedAt' | 'refundedAt'): string[] {
  const amount = data.amount as Partial<Money> | undefined;
  return [
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
    !(typeof data[at] === 'string' && !Number.isNaN(Date.parse(data[at] as string))) && at,
  ].filter((problem): problem is string => typeof problem === 'string');
}

/**
 * Reads `payment.completed` data as a consumer must before acting on it. Throws an Error naming each
 * field that breaks the contract (an event that fails here is a producer bug: the bus retries it and
 * then dead-letters it).
 */
export function readPaymentCompleted(data: Record<string, unknown>): PaymentCompletedData {
  const problems = paymentEventProblems(data, 'completedAt');
  if (problems.length > 0) throw new Error(`payment.completed data is not valid: ${problems.join(', ')}`);
  return data as unknown as PaymentCompletedData;
}

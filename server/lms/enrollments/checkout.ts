import { QueryTypes, UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import type { PaymentCompletedData } from '../../contracts/payment-completed.ts';
import { newId } from '../../platform/ids.ts';
import { money, type Money } from '../../platform/money.ts';
import { paymentFailure, type PaymentsClient } from '../orchestrator.ts';

/** What a checkout pays for: a course enrollment or a level enrollment. */
export type CheckoutKind = 'course' | 'level';

/** One checkout attempt (`lms.lms_payments`): one Orchestrator payment. */
export interface CheckoutAttempt {
  id: string;
  kind: CheckoutKind;
  /** The course enrollment or level enrollment paid for. */
  targetId: string;
  learnerLmsUserId: string;
  paymentId: string;
  status: 'pending' | 'completed' | 'failed';
}

export interface CheckoutResult {
  paymentId: string;
  checkoutUrl: string;
  amount: Money;
}

const targetColumn: Record<CheckoutKind, string> = { course: 'enrollment_id', level: 'level_enrollment_id' };
const idempotencyPrefix: Record<CheckoutKind, string> = { course: 'lms:enrollment', level: 'lms:level-enrollment' };

export type Checkouts = ReturnType<typeof createCheckouts>;

/**
 * Checkout attempts, whatever they pay for: each asks the Orchestrator for one payment (gRPC
 * InitiatePayment, purpose `lms_enrollment`, the enrollment as the reference) for an amount the LMS
 * fixed. A pending attempt is answered again, so a repeated or concurrent checkout never charges
 * twice; after a failure the next checkout is a new attempt with a new idempotency key.
 */
export function createCheckouts(sequelize: Sequelize, payments: PaymentsClient) {
  const select = <T extends object>(sql: string, bind: unknown[], transaction?: Transaction) => sequelize.query<T>(sql, { type: QueryTypes.SELECT, bind, transaction });
  const attemptColumns = `id, kind, coalesce(enrollment_id, level_enrollment_id) AS "targetId", learner_lms_user_id AS "learnerLmsUserId", payment_id AS "paymentId", status`;

  return {
    async start(kind: CheckoutKind, target: { id: string; learnerLmsUserId: string; payerUserId: string }, amount: Money): Promise<CheckoutResult> {
      const column = targetColumn[kind];
      const attempts = await select<{ attempt: number; status: string; payment_id: string; checkout_url: string; amount_minor_units: string; currency: string }>(
        `SELECT attempt, status, payment_id, checkout_url, amount_minor_units, currency FROM lms.lms_payments WHERE ${column} = $1 ORDER BY attempt DESC`,
        [target.id],
      );
      const pending = attempts.find((row) => row.status === 'pending');
      if (pending) return { paymentId: pending.payment_id, checkoutUrl: pending.checkout_url, amount: money(pending.amount_minor_units, pending.currency) };
      const attempt = (attempts[0]?.attempt ?? 0) + 1;
      let started;
      try {
        started = await payments.initiatePayment({
          payer_user_id: target.payerUserId,
          purpose: 'PAYMENT_PURPOSE_LMS_ENROLLMENT',
          purpose_reference_id: target.id,
          amount_minor: amount.amountMinorUnits,
          currency: amount.currency,
          beneficiary_centre_id: '',
          idempotency_key: `${idempotencyPrefix[kind]}:${target.id}:${attempt}`,
          return_url: '',
        });
      } catch (err) {
        paymentFailure(err);
      }
      try {
        await sequelize.query(
          `INSERT INTO lms.lms_payments (id, kind, ${column}, learner_lms_user_id, attempt, payment_id, reference, checkout_url, amount_minor_units, currency, status, initiated_at, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'pending', now(), now(), now())`,
          { bind: [newId(), kind, target.id, target.learnerLmsUserId, attempt, started.payment_id, started.reference, started.checkout_url, amount.amountMinorUnits, amount.currency] },
        );
      } catch (err) {
        // A concurrent checkout of the same attempt got the same payment (same idempotency key) and kept it.
        if (!(err instanceof UniqueConstraintError)) throw err;
      }
      return { paymentId: started.payment_id, checkoutUrl: started.checkout_url, amount };
    },

    /** `payment.completed`: the attempt it pays, marked completed (locked for the delivery's transaction), or undefined when the LMS did not start it. */
    async settle(data: PaymentCompletedData, transaction: Transaction): Promise<CheckoutAttempt | undefined> {
      const [row] = await select<CheckoutAttempt>(`SELECT ${attemptColumns} FROM lms.lms_payments WHERE payment_id = $1 FOR UPDATE`, [data.paymentId], transaction);
      if (row && row.status !== 'completed') {
        await sequelize.query(`UPDATE lms.lms_payments SET status = 'completed', paid_at = $2, updated_at = now() WHERE id = $1`, { bind: [row.id, new Date(data.completedAt)], transaction });
      }
      return row;
    },

    /** `payment.failed`: the attempt is closed, so the next checkout starts a new payment. */
    async fail(paymentId: string, transaction: Transaction): Promise<void> {
      await sequelize.query(`UPDATE lms.lms_payments SET status = 'failed', updated_at = now() WHERE payment_id = $1 AND status = 'pending'`, { bind: [paymentId], transaction });
    },
  };
}

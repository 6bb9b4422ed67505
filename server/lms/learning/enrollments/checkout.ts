import { QueryTypes, UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import type { PaymentCompletedData } from '../../../contracts/payment-completed.ts';
import { newId } from '../../../platform/ids.ts';
import { defineLifecycle, lifecycleWriter, tableStore } from '../../../platform/lifecycle.ts';
import { money, type Money } from '../../../platform/money.ts';
import { paymentFailure, type PaymentsClient } from '../../orchestrator.ts';

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

/**
 * A checkout attempt, as data: `pending` once the Orchestrator opened its payment, then `completed` by
 * `payment.completed` or `failed` by `payment.failed` (the next checkout is a new attempt). A repeated
 * outcome changes nothing.
 */
export const checkoutLifecycle = defineLifecycle({
  subject: 'checkout attempt',
  statuses: ['pending', 'completed', 'failed'],
  movers: ['learner', 'orchestrator'],
  moves: {
    start: { from: [null], to: 'pending', by: ['learner'] },
    complete: { from: ['pending', 'failed'], to: 'completed', by: ['orchestrator'] },
    fail: { from: ['pending'], to: 'failed', by: ['orchestrator'] },
  },
  idempotent: true,
});

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
  const select = <T extends object>(sql: string, bind: unknown[], transaction?: Transaction) =>
    sequelize.query<T>(sql, { type: QueryTypes.SELECT, bind, transaction });
  const attempts = lifecycleWriter(checkoutLifecycle, {
    store: tableStore<CheckoutAttempt>(sequelize, 'lms.lms_payments'),
  });
  const attemptColumns = `id, kind, coalesce(enrollment_id, level_enrollment_id) AS "targetId", learner_lms_user_id AS "learnerLmsUserId", payment_id AS "paymentId", status`;

  return {
    async start(
      kind: CheckoutKind,
      target: { id: string; learnerLmsUserId: string; payerUserId: string },
      amount: Money,
    ): Promise<CheckoutResult> {
      const column = targetColumn[kind];
      const earlier = await select<{
        attempt: number;
        status: string;
        payment_id: string;
        checkout_url: string;
        amount_minor_units: string;
        currency: string;
      }>(
        `SELECT attempt, status, payment_id, checkout_url, amount_minor_units, currency FROM lms.lms_payments WHERE ${column} = $1 ORDER BY attempt DESC`,
        [target.id],
      );
      const pending = earlier.find((row) => row.status === 'pending');
      if (pending)
        return {
          paymentId: pending.payment_id,
          checkoutUrl: pending.checkout_url,
          amount: money(pending.amount_minor_units, pending.currency),
        };
      const attempt = (earlier[0]?.attempt ?? 0) + 1;
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
        await sequelize.transaction((transaction) =>
          attempts.create(
            transaction,
            'start',
            {
              id: newId(),
              kind,
              [column]: target.id,
              learner_lms_user_id: target.learnerLmsUserId,
              attempt,
              payment_id: started.payment_id,
              reference: started.reference,
              checkout_url: started.checkout_url,
              amount_minor_units: amount.amountMinorUnits,
              currency: amount.currency,
              initiated_at: new Date(),
            },
            { by: 'learner' },
          ),
        );
      } catch (err) {
        // A concurrent checkout of the same attempt got the same payment (same idempotency key) and kept it.
        if (!(err instanceof UniqueConstraintError)) throw err;
      }
      return { paymentId: started.payment_id, checkoutUrl: started.checkout_url, amount };
    },

    /** `payment.completed`: the attempt it pays, marked completed (locked for the delivery's transaction), or undefined when the LMS did not start it. */
    async settle(data: PaymentCompletedData, transaction: Transaction): Promise<CheckoutAttempt | undefined> {
      const [row] = await select<CheckoutAttempt>(
        `SELECT ${attemptColumns} FROM lms.lms_payments WHERE payment_id = $1 FOR UPDATE`,
        [data.paymentId],
        transaction,
      );
      if (row && row.status !== 'completed')
        await attempts.move(transaction, row, 'complete', {
          by: 'orchestrator',
          changes: { paid_at: new Date(data.completedAt) },
        });
      return row;
    },

    /** `payment.failed`: the attempt is closed, so the next checkout starts a new payment. */
    async fail(paymentId: string, transaction: Transaction): Promise<void> {
      const [row] = await select<CheckoutAttempt>(
        `SELECT ${attemptColumns} FROM lms.lms_payments WHERE payment_id = $1 FOR UPDATE`,
        [paymentId],
        transaction,
      );
      if (row?.status === 'pending') await attempts.move(transaction, row, 'fail', { by: 'orchestrator' });
    },
  };
}

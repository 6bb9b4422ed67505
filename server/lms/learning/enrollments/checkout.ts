import { QueryTypes, UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import type { PaymentCompletedData } from '../../../contracts/payment-completed.ts';
import type { PaymentRefundedData } from '../../../contracts/payment-refunded.ts';
import { conflict, notFound } from '../../../platform/http/errors.ts';
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
  status: (typeof checkoutLifecycle.statuses)[number];
}

export interface CheckoutResult {
  paymentId: string;
  checkoutUrl: string;
  amount: Money;
}

/**
 * A checkout attempt, as data: `pending` once the Orchestrator opened its payment, then `completed` by
 * `payment.completed` or `failed` by `payment.failed` (the next checkout is a new attempt). Staff refund
 * a completed one (`refunding` while the Orchestrator's provider gives the money back), and
 * `payment.refunded` makes it `refunded`, also for a refund made at the Orchestrator itself. A repeated
 * outcome changes nothing.
 */
export const checkoutLifecycle = defineLifecycle({
  subject: 'checkout attempt',
  statuses: ['pending', 'completed', 'failed', 'refunding', 'refunded'],
  movers: ['learner', 'staff', 'orchestrator'],
  moves: {
    start: { from: [null], to: 'pending', by: ['learner'] },
    complete: { from: ['pending', 'failed'], to: 'completed', by: ['orchestrator'] },
    fail: { from: ['pending'], to: 'failed', by: ['orchestrator'] },
    refund: { from: ['completed'], to: 'refunding', by: ['staff'] },
    refunded: { from: ['completed', 'refunding'], to: 'refunded', by: ['orchestrator'] },
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
    store: tableStore<CheckoutAttempt>('lms.lms_payments'),
    // A refund is the one move a person asks for; any other refused move is a bug.
    refuse: (refusal, row) =>
      refusal.action === 'refund'
        ? conflict(
            'lms.payment.not_refundable',
            `This checkout is ${row!.status}: only a completed checkout took money to give back.`,
          )
        : new Error(`the checkout attempt lifecycle refused ${refusal.action}: ${refusal.reason}`),
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

    /**
     * Staff refund a completed checkout in full: the attempt becomes `refunding` and the Orchestrator's
     * RefundPayment is asked in the same transaction, so when it cannot be reached nothing changes
     * (503/502). Asking again while it is refunding asks the Orchestrator again (it refunds once);
     * a refunded one is answered as it is. Pending and failed checkouts took no money: 409.
     */
    async refund(attemptId: string, reason: string): Promise<void> {
      await sequelize.transaction(async (transaction) => {
        const [row] = await select<CheckoutAttempt>(
          `SELECT ${attemptColumns} FROM lms.lms_payments WHERE id = $1 FOR UPDATE`,
          [attemptId],
          transaction,
        );
        if (!row) throw notFound('No checkout has this id.');
        if (row.status === 'refunded') return;
        await attempts.move(transaction, row, 'refund', { by: 'staff' });
        try {
          await payments.refundPayment({ payment_id: row.paymentId, reason });
        } catch (err) {
          paymentFailure(err);
        }
      });
    },

    /**
     * `payment.refunded`: the attempt it refunds, marked refunded (locked for the delivery's transaction),
     * with `changed` false when it already was; undefined when the LMS did not take that payment.
     */
    async refunded(
      data: PaymentRefundedData,
      transaction: Transaction,
    ): Promise<{ attempt: CheckoutAttempt; changed: boolean } | undefined> {
      const [row] = await select<CheckoutAttempt>(
        `SELECT ${attemptColumns} FROM lms.lms_payments WHERE payment_id = $1 FOR UPDATE`,
        [data.paymentId],
        transaction,
      );
      if (!row || (row.status !== 'completed' && row.status !== 'refunding' && row.status !== 'refunded'))
        return undefined;
      const applied = await attempts.move(transaction, row, 'refunded', {
        by: 'orchestrator',
        changes: { refunded_at: new Date(data.refundedAt) },
      });
      return { attempt: row, changed: applied.changed };
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

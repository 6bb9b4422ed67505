/**
 * The Orchestrator's payments: InitiatePayment (idempotent on the caller's key), the provider's
 * webhooks (each event once), and verify-by-reference for the payer. Every status change goes through
 * the lifecycle's writer (lifecycle.ts, server/platform/lifecycle.ts), which writes the status, its
 * history row and its events in the caller's transaction, under a lock on the payment row: concurrent
 * webhooks and verifies of one payment take turns, and only the first can move it.
 */
import { UniqueConstraintError, QueryTypes, type Transaction } from 'sequelize';
import type { PaymentCompletedData } from '../../contracts/payment-completed.ts';
import type { EventType } from '../../platform/events/types.ts';
import { AppError, conflict, notFound } from '../../platform/http/errors.ts';
import { newId } from '../../platform/ids.ts';
import { money, type Money } from '../../platform/money.ts';
import type { ServiceDeps } from '../../platform/service.ts';
import type { UserStatus } from '../accounts/models.ts';
import { lifecycleWriter, modelStore } from '../../platform/lifecycle.ts';
import {
  settledStatuses,
  paymentLifecycle,
  refusalCodes,
  type PaymentActor,
  type PaymentStatus,
  type ProviderReport,
} from './lifecycle.ts';
import { definePaymentModels, type PaymentPurpose, type PaymentRow, type PaymentStatusChangeRow } from './models.ts';
import type { PaymentProvider, ProviderOutcome } from './provider.ts';

export interface PaymentsDeps extends Pick<ServiceDeps, 'logger' | 'sequelize' | 'events'> {
  provider: PaymentProvider;
  /** The payer's account: its status and address, or null for an unknown id. */
  payerAccount(userId: string): Promise<{ status: UserStatus; email: string } | null>;
}

/** A validated InitiatePayment request. */
export interface InitiateInput {
  payerUserId: string;
  purpose: PaymentPurpose;
  purposeReferenceId: string;
  amountMinor: bigint;
  currency: string;
  beneficiaryCentreId: string | null;
  idempotencyKey: string;
  returnUrl: string | null;
}

export interface InitiatedPayment {
  paymentId: string;
  reference: string;
  checkoutUrl: string;
}

/** A payment as verify-by-reference shows it to its payer. */
export interface PaymentView {
  paymentId: string;
  reference: string;
  status: PaymentStatus;
  purpose: PaymentPurpose;
  purposeReferenceId: string;
  amount: Money;
  beneficiaryCentreId: string | null;
  provider: string;
  checkoutUrl: string | null;
  failureReason: string | null;
  createdAt: string;
  completedAt: string | null;
}

/** What a webhook did: a first delivery's effect, or nothing for a redelivery. */
export type WebhookEffect = 'applied' | 'no_change' | 'unknown_reference' | 'ignored' | 'refused';

type Cause = PaymentStatusChangeRow['cause'];

/** The fields of a request that must match when its idempotency key is used again. */
const fingerprint: Array<{
  field: string;
  of(p: {
    payerUserId: string;
    purpose: string;
    purposeReferenceId: string;
    amountMinor: string;
    currency: string;
    beneficiaryCentreId: string | null;
  }): string;
}> = [
  { field: 'payer_user_id', of: (p) => p.payerUserId },
  { field: 'purpose', of: (p) => p.purpose },
  { field: 'purpose_reference_id', of: (p) => p.purposeReferenceId },
  { field: 'amount_minor', of: (p) => p.amountMinor },
  { field: 'currency', of: (p) => p.currency },
  { field: 'beneficiary_centre_id', of: (p) => p.beneficiaryCentreId ?? '' },
];

const purposeDescriptions: Record<PaymentPurpose, string> = {
  cap_application: 'CAP application fee',
  lms_enrollment: 'LMS course enrollment',
};

function paymentCompletedData(payment: PaymentRow): PaymentCompletedData {
  return {
    paymentId: payment.id,
    reference: payment.reference,
    purpose: payment.purpose,
    purposeReferenceId: payment.purposeReferenceId,
    payerUserId: payment.payerUserId,
    amount: money(payment.amountMinor, payment.currency),
    beneficiaryCentreId: payment.beneficiaryCentreId,
    provider: payment.provider,
    completedAt: payment.completedAt!.toISOString(),
  };
}

/** The data of each event a transition may emit, built from the payment as it is after the move. */
const eventData: Partial<Record<EventType, (payment: PaymentRow) => Record<string, unknown>>> = {
  'payment.completed': (payment) => ({ ...paymentCompletedData(payment) }),
  'payment.refunded': (payment) => ({
    paymentId: payment.id,
    reference: payment.reference,
    purpose: payment.purpose,
    purposeReferenceId: payment.purposeReferenceId,
    payerUserId: payment.payerUserId,
    amount: money(payment.amountMinor, payment.currency),
    beneficiaryCentreId: payment.beneficiaryCentreId,
    provider: payment.provider,
    refundedAt: payment.refundedAt!.toISOString(),
  }),
  // A payment that will not complete (declined, or given up): its purpose may start another.
  'payment.failed': (payment) => ({
    paymentId: payment.id,
    reference: payment.reference,
    purpose: payment.purpose,
    purposeReferenceId: payment.purposeReferenceId,
    payerUserId: payment.payerUserId,
    status: payment.status,
    failureReason: payment.failureReason,
  }),
};

export type Payments = ReturnType<typeof createPayments>;

export function createPayments(deps: PaymentsDeps) {
  const { logger, sequelize, events, provider } = deps;
  const { Payment, PaymentStatusChange } = definePaymentModels(sequelize);

  const payments = lifecycleWriter<
    typeof paymentLifecycle,
    PaymentRow,
    { cause: Cause; detail?: Record<string, unknown> }
  >(paymentLifecycle, {
    store: modelStore(Payment),
    events,
    eventData: (type, payment) => {
      const build = eventData[type];
      if (!build) throw new Error(`the payment lifecycle emits ${type}, which has no data builder`);
      return build(payment);
    },
    history: (transaction, { subject, from, to, by, note }) =>
      PaymentStatusChange.create(
        {
          id: newId(),
          paymentId: subject.id,
          fromStatus: from,
          toStatus: to,
          actor: by,
          cause: note!.cause,
          detail: note!.detail ?? null,
          createdAt: new Date(),
        },
        { transaction },
      ),
    refuse: (refused, payment) =>
      conflict(refusalCodes[refused.kind], `Payment ${payment!.reference}: ${refused.reason}.`),
  });

  /**
   * The one way a payment's status changes: the lifecycle's writer checks the table (the move, who
   * makes it, its guards), then writes the status, the history row and the move's events in
   * `transaction`. The payment must be locked in that transaction. Refused moves throw a 409 with the
   * table's code.
   */
  async function transition(
    payment: PaymentRow,
    to: PaymentStatus,
    context: {
      actor: PaymentActor;
      cause: Cause;
      report?: ProviderReport;
      changes?: Partial<PaymentRow>;
      detail?: Record<string, unknown>;
    },
    transaction: Transaction,
  ): Promise<void> {
    const { from } = await payments.move(transaction, payment, to, {
      by: context.actor,
      facts: {
        payment: { amountMinor: BigInt(payment.amountMinor), currency: payment.currency },
        report: context.report,
      },
      changes: context.changes,
      note: { cause: context.cause, detail: context.detail },
    });
    logger.info(
      { paymentId: payment.id, reference: payment.reference, from, to, cause: context.cause },
      'payment status changed',
    );
  }

  /**
   * Applies a provider's final outcome to a locked payment, once: the same outcome again, or any
   * outcome for a payment that is already final, changes nothing. A success for another amount is
   * refused (logged, no change).
   */
  async function settle(
    payment: PaymentRow,
    outcome: Exclude<ProviderOutcome, { status: 'pending' }>,
    cause: 'webhook' | 'verify',
    transaction: Transaction,
    detail: Record<string, unknown> = {},
  ): Promise<WebhookEffect> {
    const refund = outcome.status === 'refunded';
    // A charge outcome moves a pending payment only; a refund a succeeded or refunding one.
    if (refund ? !['succeeded', 'refunding'].includes(payment.status) : settledStatuses.includes(payment.status)) {
      if (payment.status !== outcome.status) {
        logger.warn(
          { paymentId: payment.id, status: payment.status, reported: outcome.status, cause },
          'provider reported another outcome for a final payment; kept',
        );
      }
      return 'no_change';
    }
    if (payment.status === 'initiated') {
      // The checkout is being opened right now; the provider retries (webhook) or the payer verifies again.
      throw conflict('payment.not_ready', `Payment ${payment.reference} is still being opened; try again shortly.`);
    }
    try {
      await transition(
        payment,
        outcome.status,
        {
          actor: 'provider',
          cause,
          report: { amountMinor: outcome.amountMinor, currency: outcome.currency },
          changes: refund
            ? { refundedAt: outcome.occurredAt }
            : {
                providerTransactionId: outcome.providerTransactionId,
                failureReason: outcome.status === 'succeeded' ? null : outcome.message || null,
                completedAt: outcome.status === 'succeeded' ? outcome.occurredAt : null,
              },
          detail: { ...detail, providerMessage: outcome.message },
        },
        transaction,
      );
      return 'applied';
    } catch (err) {
      if (err instanceof AppError && err.code === 'payment.guard_failed') {
        logger.error(
          {
            paymentId: payment.id,
            reported: { amountMinor: outcome.amountMinor.toString(), currency: outcome.currency },
            cause,
          },
          'provider outcome refused by the payment lifecycle',
        );
        return 'refused';
      }
      throw err;
    }
  }

  function view(payment: PaymentRow): PaymentView {
    return {
      paymentId: payment.id,
      reference: payment.reference,
      status: payment.status,
      purpose: payment.purpose,
      purposeReferenceId: payment.purposeReferenceId,
      amount: money(payment.amountMinor, payment.currency),
      beneficiaryCentreId: payment.beneficiaryCentreId,
      provider: payment.provider,
      checkoutUrl: payment.checkoutUrl,
      failureReason: payment.failureReason,
      createdAt: payment.createdAt.toISOString(),
      completedAt: payment.completedAt?.toISOString() ?? null,
    };
  }

  /** The payment of this idempotency key: created now, or the one an earlier call created (which must ask for the same). */
  async function findOrCreate(input: InitiateInput): Promise<PaymentRow> {
    const id = newId();
    try {
      await sequelize.transaction(async (transaction) => {
        await payments.create(
          transaction,
          'initiated',
          {
            id,
            reference: `PAY-${id}`,
            idempotencyKey: input.idempotencyKey,
            provider: provider.name,
            payerUserId: input.payerUserId,
            purpose: input.purpose,
            purposeReferenceId: input.purposeReferenceId,
            amountMinor: input.amountMinor.toString(),
            currency: input.currency,
            beneficiaryCentreId: input.beneficiaryCentreId,
            returnUrl: input.returnUrl,
            checkoutUrl: null,
            failureReason: null,
            providerTransactionId: null,
            completedAt: null,
          },
          { by: 'orchestrator', note: { cause: 'initiate' } },
        );
      });
    } catch (err) {
      // A concurrent or earlier call with this key won: answer its payment.
      if (!(err instanceof UniqueConstraintError)) throw err;
    }
    const payment = (await Payment.findOne({ where: { idempotencyKey: input.idempotencyKey } }))!;
    const asked = { ...input, amountMinor: input.amountMinor.toString() };
    const differ = fingerprint.filter((f) => f.of(payment) !== f.of(asked)).map((f) => f.field);
    if (differ.length > 0) {
      throw conflict(
        'payment.idempotency_key_reused',
        `idempotency_key was already used for another payment (${differ.join(', ')} ${differ.length === 1 ? 'differs' : 'differ'}); use a new key for a new payment`,
      );
    }
    return payment;
  }

  /** Opens the provider's checkout for an initiated payment and moves it to pending (a concurrent call may have done it). */
  async function openCheckout(payment: PaymentRow, customerEmail: string): Promise<PaymentRow> {
    let checkout;
    try {
      checkout = await provider.createCheckout({
        reference: payment.reference,
        amountMinor: BigInt(payment.amountMinor),
        currency: payment.currency,
        description: purposeDescriptions[payment.purpose],
        customerEmail,
        returnUrl: payment.returnUrl,
        metadata: { paymentId: payment.id, purpose: payment.purpose, purposeReferenceId: payment.purposeReferenceId },
      });
    } catch (err) {
      logger.error({ err, paymentId: payment.id }, 'the payment provider did not open a checkout');
      throw new AppError(
        502,
        'payment.provider_unavailable',
        'The payment provider could not open a checkout; call again with the same idempotency key.',
      );
    }
    return sequelize.transaction(async (transaction) => {
      const locked = (await Payment.findByPk(payment.id, { transaction, lock: transaction.LOCK.UPDATE }))!;
      if (locked.status !== 'initiated') return locked;
      await transition(
        locked,
        'pending',
        {
          actor: 'orchestrator',
          cause: 'checkout_created',
          changes: { checkoutUrl: checkout.checkoutUrl, providerTransactionId: checkout.providerTransactionId },
        },
        transaction,
      );
      return locked;
    });
  }

  return {
    /** InitiatePayment: the same idempotency key answers the same payment; another request under that key is refused. */
    async initiate(input: InitiateInput): Promise<InitiatedPayment> {
      const payer = await deps.payerAccount(input.payerUserId);
      if (!payer) throw new AppError(404, 'payment.payer_unknown', 'payer_user_id names no Orchestrator account');
      if (payer.status !== 'active')
        throw conflict(
          'payment.payer_inactive',
          `the payer's account is ${payer.status}; only an active account can pay`,
        );
      if (!provider.currencies.includes(input.currency)) {
        throw new AppError(
          422,
          'payment.currency_unsupported',
          `currency ${input.currency} is not taken by the payment provider (${provider.currencies.join(', ')})`,
        );
      }
      let payment = await findOrCreate(input);
      if (payment.status === 'initiated') payment = await openCheckout(payment, payer.email);
      return { paymentId: payment.id, reference: payment.reference, checkoutUrl: payment.checkoutUrl! };
    },

    /**
     * RefundPayment: a succeeded payment is refunded in full through the provider. The payment moves to
     * `refunding` (its own transaction), then the provider is asked; the provider's refund webhook moves
     * it to `refunded` and publishes `payment.refunded`. A payment already refunding asks the provider
     * again (it changes nothing there twice); one already refunded answers as it is.
     */
    async refund(paymentId: string, reason: string): Promise<{ paymentId: string; status: PaymentStatus }> {
      const payment = await sequelize.transaction(async (transaction) => {
        const locked = await Payment.findByPk(paymentId, { transaction, lock: transaction.LOCK.UPDATE });
        if (!locked) throw new AppError(404, 'payment.not_found', 'payment_id names no payment');
        if (locked.status === 'succeeded') {
          await transition(
            locked,
            'refunding',
            { actor: 'orchestrator', cause: 'refund_requested', detail: { reason } },
            transaction,
          );
        } else if (locked.status !== 'refunding' && locked.status !== 'refunded') {
          throw conflict(
            'payment.not_refundable',
            `Payment ${locked.reference} is ${locked.status}: only a succeeded payment is refunded.`,
          );
        }
        return locked;
      });
      if (payment.status === 'refunding') {
        try {
          await provider.refund({
            reference: payment.reference,
            amountMinor: BigInt(payment.amountMinor),
            currency: payment.currency,
            reason,
          });
        } catch (err) {
          logger.error({ err, paymentId }, 'the payment provider did not take a refund');
          throw new AppError(
            502,
            'payment.provider_unavailable',
            'The payment provider could not refund now; call again (the refund is asked for once).',
          );
        }
      }
      return { paymentId: payment.id, status: payment.status };
    },

    /**
     * A signed webhook. Its event is recorded once (provider, event id): the first delivery settles the
     * payment, a redelivery or replay finds the record and changes nothing.
     */
    async receiveWebhook(
      notice: ReturnType<PaymentProvider['readWebhook']>,
    ): Promise<{ duplicate: boolean; effect: WebhookEffect | 'duplicate' }> {
      const result = await sequelize.transaction(async (transaction) => {
        const recorded = await sequelize.query(
          `INSERT INTO ol.payment_webhook_events (provider, event_id, event_type, reference, effect, received_at)
           VALUES ($1, $2, $3, $4, 'received', now()) ON CONFLICT DO NOTHING RETURNING event_id`,
          {
            bind: [provider.name, notice.eventId, notice.eventType, notice.reference],
            type: QueryTypes.SELECT,
            transaction,
          },
        );
        if (recorded.length === 0) return { duplicate: true, effect: 'duplicate' as const };
        const payment = await Payment.findOne({
          where: { reference: notice.reference },
          transaction,
          lock: transaction.LOCK.UPDATE,
        });
        let effect: WebhookEffect;
        if (!payment) effect = 'unknown_reference';
        else if (!notice.outcome) effect = 'ignored';
        else effect = await settle(payment, notice.outcome, 'webhook', transaction, { eventId: notice.eventId });
        await sequelize.query(
          `UPDATE ol.payment_webhook_events SET effect = $3 WHERE provider = $1 AND event_id = $2`,
          {
            bind: [provider.name, notice.eventId, effect],
            transaction,
          },
        );
        return { duplicate: false, effect };
      });
      const fields = {
        provider: provider.name,
        eventId: notice.eventId,
        eventType: notice.eventType,
        reference: notice.reference,
        effect: result.effect,
      };
      if (result.effect === 'unknown_reference')
        logger.warn(fields, 'payment webhook for a reference the Orchestrator does not know');
      else logger.info(fields, 'payment webhook received');
      return result;
    },

    /**
     * Verify-by-reference for the payer (anyone else gets a 404). A payment still pending is checked
     * with the provider, and an outcome the webhook has not brought yet is applied, as the webhook would.
     */
    async verify(reference: string, userId: string): Promise<PaymentView> {
      const payment = await Payment.findOne({ where: { reference, payerUserId: userId } });
      if (!payment) throw notFound('No payment of yours has this reference.');
      if (payment.status !== 'pending') return view(payment);
      let outcome: ProviderOutcome | null = null;
      try {
        outcome = await provider.lookup(reference);
      } catch (err) {
        logger.warn({ err, reference }, 'the payment provider could not be asked about a pending payment');
      }
      if (!outcome || outcome.status === 'pending') return view(payment);
      const settled = outcome;
      const updated = await sequelize.transaction(async (transaction) => {
        const locked = (await Payment.findByPk(payment.id, { transaction, lock: transaction.LOCK.UPDATE }))!;
        await settle(locked, settled, 'verify', transaction);
        return locked;
      });
      return view(updated);
    },
  };
}

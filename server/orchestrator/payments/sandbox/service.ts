/**
 * The sandbox card processor that ships with the platform (PAYMENT_PROVIDER=sandbox). It behaves like
 * a hosted-checkout processor: a merchant opens a transaction by reference and sends the payer to its
 * checkout page; the payer pays with a test card (or declines, or cancels); the processor then POSTs a
 * webhook signed with the merchant's secret key (HMAC-SHA512 of the raw body in `X-Sandbox-Signature`),
 * retrying until acknowledged, and answers lookups by reference. It keeps its own tables
 * (`ol.sandbox_*`): the Orchestrator's payments code reaches it only through the PaymentProvider
 * interface and its own pages.
 */
import { UniqueConstraintError } from 'sequelize';
import type { PlatformConfig } from '../../../platform/config.ts';
import { conflict, notFound, unprocessable } from '../../../platform/http/errors.ts';
import { newId } from '../../../platform/ids.ts';
import type { DatabaseWatch } from '../../../platform/db/watch.ts';
import { lifecycleWriter, modelStore } from '../../../platform/lifecycle.ts';
import type { Logger } from '../../../platform/logger.ts';
import { money, type Money } from '../../../platform/money.ts';
import type { Peers } from '../../../platform/service.ts';
import type { Sequelize, Transaction } from 'sequelize';
import type { Checkout, CheckoutRequest, PaymentProvider, ProviderOutcome, WebhookNotice } from '../provider.ts';
import { declineMessage, defaultCard, expiryValid, normaliseCardNumber, passesLuhn, testCards } from './cards.ts';
import {
  defineSandboxModels,
  sandboxTransactionLifecycle,
  webhookDeliveryLifecycle,
  type SandboxStatus,
  type SandboxTransactionRow,
  type SandboxWebhookRow,
} from './models.ts';
import { signatureHeader, signatureMatches } from './signature.ts';
import { createWebhookSender } from './webhooks.ts';

export const sandboxCurrencies = ['NGN', 'USD', 'GHS', 'KES', 'ZAR'] as const;
export const sandboxMerchantName = 'CAP Platform';

export interface SandboxDeps {
  config: PlatformConfig;
  logger: Logger;
  sequelize: Sequelize;
  peers: Peers;
  database?: DatabaseWatch;
}

/** A sandbox transaction as its JSON API and checkout page show it. */
export interface SandboxTransactionView {
  reference: string;
  transactionId: string;
  status: SandboxStatus;
  amount: Money;
  description: string;
  merchantName: string;
  /** Masked: `ad***@example.test`. */
  customerEmail: string | null;
  gatewayResponse: string | null;
  card: { brand: string; last4: string } | null;
  paidAt: string | null;
  createdAt: string;
  /** Where the checkout sends the payer now that the transaction is closed (the return URL with `reference` and `status`), else null. */
  redirectUrl: string | null;
  /** The webhook this transaction's outcome owes the merchant, once there is one. */
  webhook: {
    status: 'pending' | 'delivered' | 'failed';
    attempts: number;
    lastStatusCode: number | null;
    deliveredAt: string | null;
  } | null;
}

/** The body of a sandbox webhook (exact bytes are signed; `amount` is minor units in a string). */
export interface SandboxWebhookBody {
  id: string;
  event: 'charge.success' | 'charge.failed' | 'refund.processed';
  createdAt: string;
  data: {
    id: string;
    reference: string;
    status: 'success' | 'failed' | 'refunded';
    amount: string;
    currency: string;
    gatewayResponse: string;
    paidAt: string | null;
    channel: 'card';
    card: { brand: string; last4: string } | null;
    customer: { email: string | null };
    metadata: Record<string, string>;
  };
}

export interface CardInput {
  cardNumber?: string;
  expiry?: string;
  cvv?: string;
}

export type SandboxPayments = ReturnType<typeof createSandboxPayments>;

const maskEmail = (email: string | null) => (email ? email.replace(/^(.{1,2})[^@]*@/, '$1***@') : null);

export function createSandboxPayments(deps: SandboxDeps) {
  const { config, logger, sequelize } = deps;
  const { SandboxTransaction, SandboxWebhook } = defineSandboxModels(sequelize);
  const transactions = lifecycleWriter(sandboxTransactionLifecycle, {
    store: modelStore(SandboxTransaction),
    refuse: (_refusal, row) =>
      conflict(
        'payment.sandbox_transaction_closed',
        `This transaction is already closed (${row!.status}); start a new payment to pay again.`,
      ),
  });
  const webhooks = lifecycleWriter(webhookDeliveryLifecycle, { store: modelStore(SandboxWebhook) });
  const enabled = config.paymentProvider === 'sandbox';
  const olUrl = () => deps.peers.url('ol');
  const webhookUrl = () => config.paymentWebhookUrl || `${olUrl()}/payments/webhook`;
  const sender = createWebhookSender({
    sequelize,
    logger: logger.child({ component: 'sandbox-webhooks' }),
    secretKey: config.paymentSecretKey,
    url: webhookUrl,
    database: deps.database,
  });

  function requireEnabled(): void {
    if (!enabled) throw notFound('The sandbox payment provider is not in use (PAYMENT_PROVIDER).');
  }

  async function find(reference: string): Promise<SandboxTransactionRow> {
    requireEnabled();
    const row = await SandboxTransaction.findByPk(reference);
    if (!row) throw notFound('No sandbox transaction has this reference.');
    return row;
  }

  function redirectUrl(row: SandboxTransactionRow): string | null {
    if (!row.returnUrl || row.status === 'pending') return null;
    const url = new URL(row.returnUrl);
    url.searchParams.set('reference', row.reference);
    url.searchParams.set('status', row.status);
    return url.toString();
  }

  function view(row: SandboxTransactionRow, webhook: SandboxWebhookRow | null): SandboxTransactionView {
    return {
      reference: row.reference,
      transactionId: row.id,
      status: row.status,
      amount: money(row.amountMinor, row.currency),
      description: row.description,
      merchantName: sandboxMerchantName,
      customerEmail: maskEmail(row.customerEmail),
      gatewayResponse: row.gatewayResponse,
      card: row.cardLast4 && row.cardBrand ? { brand: row.cardBrand, last4: row.cardLast4 } : null,
      paidAt: row.paidAt?.toISOString() ?? null,
      createdAt: row.createdAt.toISOString(),
      redirectUrl: redirectUrl(row),
      webhook: webhook
        ? {
            status: webhook.status,
            attempts: webhook.attempts,
            lastStatusCode: webhook.lastStatusCode,
            deliveredAt: webhook.deliveredAt?.toISOString() ?? null,
          }
        : null,
    };
  }

  async function viewOf(row: SandboxTransactionRow): Promise<SandboxTransactionView> {
    return view(row, await SandboxWebhook.findOne({ where: { reference: row.reference }, order: [['id', 'DESC']] }));
  }

  const eventOf = (status: SandboxStatus): SandboxWebhookBody['event'] =>
    status === 'success' ? 'charge.success' : status === 'refunded' ? 'refund.processed' : 'charge.failed';

  function webhookBody(row: SandboxTransactionRow, eventId: string): string {
    const body: SandboxWebhookBody = {
      id: eventId,
      event: eventOf(row.status),
      createdAt: new Date().toISOString(),
      data: {
        id: row.id,
        reference: row.reference,
        status: row.status === 'success' || row.status === 'refunded' ? row.status : 'failed',
        amount: row.amountMinor,
        currency: row.currency,
        gatewayResponse: row.gatewayResponse ?? '',
        paidAt: row.paidAt?.toISOString() ?? null,
        channel: 'card',
        card: row.cardLast4 && row.cardBrand ? { brand: row.cardBrand, last4: row.cardLast4 } : null,
        customer: { email: row.customerEmail },
        metadata: row.metadata,
      },
    };
    return JSON.stringify(body);
  }

  /**
   * Closes a pending transaction with an outcome and, for a charge (paid or declined), queues its
   * webhook in the same transaction. A closed transaction cannot be charged again (409).
   */
  async function close(
    reference: string,
    outcome: { status: Exclude<SandboxStatus, 'pending'>; message: string; card?: { brand: string; last4: string } },
  ): Promise<SandboxTransactionView> {
    await find(reference);
    const row = await sequelize.transaction(async (transaction) => {
      const locked = (await SandboxTransaction.findByPk(reference, { transaction, lock: transaction.LOCK.UPDATE }))!;
      const now = new Date();
      await transactions.move(transaction, locked, outcome.status, {
        by: 'payer',
        changes: {
          gatewayResponse: outcome.message,
          cardBrand: outcome.card?.brand ?? null,
          cardLast4: outcome.card?.last4 ?? null,
          paidAt: outcome.status === 'success' ? now : null,
        },
      });
      if (outcome.status !== 'abandoned') await owe(transaction, locked);
      return locked;
    });
    logger.info({ reference, status: outcome.status }, 'sandbox transaction closed');
    return viewOf(row);
  }

  /** Queues the webhook a transaction's new status owes the merchant, in the transaction of the change. */
  async function owe(transaction: Transaction, row: SandboxTransactionRow): Promise<void> {
    const id = newId();
    await webhooks.create(
      transaction,
      'pending',
      {
        id,
        reference: row.reference,
        event: eventOf(row.status),
        body: webhookBody(row, id),
        nextAttemptAt: new Date(),
        lastStatusCode: null,
        lastError: null,
        deliveredAt: null,
      },
      { by: 'sandbox' },
    );
    transaction.afterCommit(() => sender.wake());
  }

  const provider: PaymentProvider = {
    name: 'sandbox',
    currencies: sandboxCurrencies,

    async createCheckout(request: CheckoutRequest): Promise<Checkout> {
      requireEnabled();
      const terms = { amountMinor: request.amountMinor.toString(), currency: request.currency };
      try {
        await sequelize.transaction((transaction) =>
          transactions.create(
            transaction,
            'open',
            {
              reference: request.reference,
              id: newId(),
              ...terms,
              description: request.description,
              customerEmail: request.customerEmail,
              returnUrl: request.returnUrl,
              metadata: request.metadata,
              gatewayResponse: null,
              cardLast4: null,
              cardBrand: null,
              paidAt: null,
            },
            { by: 'merchant' },
          ),
        );
      } catch (err) {
        if (!(err instanceof UniqueConstraintError)) throw err;
      }
      // A reference is opened once: asking again with the same terms reopens it; other terms are refused.
      const row = (await SandboxTransaction.findByPk(request.reference))!;
      if (row.amountMinor !== terms.amountMinor || row.currency !== terms.currency) {
        throw new Error(`sandbox: reference ${request.reference} is already used for another amount`);
      }
      return {
        checkoutUrl: `${olUrl()}/payments/sandbox/checkout/${encodeURIComponent(row.reference)}`,
        providerTransactionId: row.id,
      };
    },

    /** A full refund, settled at once: the transaction is refunded and its `refund.processed` webhook queued. */
    async refund(request) {
      requireEnabled();
      await sequelize.transaction(async (transaction) => {
        const row = await SandboxTransaction.findByPk(request.reference, {
          transaction,
          lock: transaction.LOCK.UPDATE,
        });
        if (!row) throw new Error(`sandbox: no transaction has the reference ${request.reference}`);
        if (row.status === 'refunded') return;
        if (row.amountMinor !== request.amountMinor.toString() || row.currency !== request.currency) {
          throw new Error(`sandbox: a refund of ${request.reference} must be of its whole amount`);
        }
        await transactions.move(transaction, row, 'refunded', {
          by: 'merchant',
          changes: { gatewayResponse: `Refunded: ${request.reason}`.slice(0, 200) },
        });
        await owe(transaction, row);
      });
      logger.info({ reference: request.reference }, 'sandbox transaction refunded');
    },

    async lookup(reference: string): Promise<ProviderOutcome | null> {
      const row = await SandboxTransaction.findByPk(reference);
      if (!row) return null;
      if (row.status === 'pending') return { status: 'pending' };
      return {
        status: row.status === 'success' ? 'succeeded' : row.status,
        amountMinor: BigInt(row.amountMinor),
        currency: row.currency,
        providerTransactionId: row.id,
        message: row.gatewayResponse ?? '',
        occurredAt: row.paidAt ?? row.updatedAt,
      };
    },

    verifyWebhook(headers, rawBody) {
      return signatureMatches(config.paymentSecretKey, headers[signatureHeader], rawBody);
    },

    readWebhook(body: unknown): WebhookNotice {
      const b = body as Partial<SandboxWebhookBody> | undefined;
      const data = b?.data;
      if (
        !b ||
        typeof b.id !== 'string' ||
        typeof b.event !== 'string' ||
        !data ||
        typeof data.reference !== 'string'
      ) {
        throw new Error('not a sandbox webhook: id, event and data.reference are required');
      }
      const settles = b.event === 'charge.success' || b.event === 'charge.failed' || b.event === 'refund.processed';
      if (
        settles &&
        (typeof data.amount !== 'string' ||
          !/^\d+$/.test(data.amount) ||
          typeof data.currency !== 'string' ||
          typeof data.id !== 'string')
      ) {
        throw new Error(
          'not a sandbox charge webhook: data.id, data.amount (minor units in a string) and data.currency are required',
        );
      }
      return {
        eventId: b.id,
        eventType: b.event,
        reference: data.reference,
        outcome: settles
          ? {
              status:
                b.event === 'charge.success' ? 'succeeded' : b.event === 'refund.processed' ? 'refunded' : 'failed',
              amountMinor: BigInt(data.amount!),
              currency: data.currency!,
              providerTransactionId: data.id!,
              message: String(data.gatewayResponse ?? ''),
              occurredAt: new Date(data.paidAt ?? b.createdAt ?? Date.now()),
            }
          : null,
      };
    },
  };

  return {
    enabled,
    provider,
    webhookUrl,

    async transaction(reference: string): Promise<SandboxTransactionView> {
      return viewOf(await find(reference));
    },

    /** Charges a test card: its number decides the outcome. A malformed, unknown or expired card is a 422 and changes nothing. */
    async pay(reference: string, input: CardInput): Promise<SandboxTransactionView> {
      await find(reference);
      const digits = normaliseCardNumber(input.cardNumber ?? defaultCard.number);
      if (!/^\d{12,19}$/.test(digits) || !passesLuhn(digits)) {
        throw unprocessable('payment.sandbox_card_invalid', 'This is not a valid card number.', [
          { field: 'cardNumber', issue: 'is not a valid card number' },
        ]);
      }
      const card = testCards.find((c) => c.number === digits);
      if (!card) {
        throw unprocessable(
          'payment.sandbox_card_invalid',
          `The sandbox takes only its test cards: ${testCards.map((c) => c.number).join(', ')}.`,
          [{ field: 'cardNumber', issue: 'is not one of the sandbox test cards' }],
        );
      }
      if (input.expiry !== undefined && !expiryValid(input.expiry)) {
        throw unprocessable('payment.sandbox_card_invalid', 'The expiry date is not valid or has passed.', [
          { field: 'expiry', issue: 'must be MM/YY and not in the past' },
        ]);
      }
      return close(reference, {
        status: card.outcome,
        message: card.message,
        card: { brand: card.brand, last4: digits.slice(-4) },
      });
    },

    /** The payer's bank declines the charge. */
    async decline(reference: string): Promise<SandboxTransactionView> {
      return close(reference, { status: 'failed', message: declineMessage });
    },

    /** The payer gives up: the transaction is abandoned (no webhook; a lookup tells the merchant). */
    async cancel(reference: string): Promise<SandboxTransactionView> {
      return close(reference, { status: 'abandoned', message: 'Cancelled by the payer' });
    },

    start(): void {
      if (enabled) sender.start();
    },
    stop(): Promise<void> {
      return sender.stop();
    },
  };
}

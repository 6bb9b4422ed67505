/**
 * A payment provider (a card processor such as the sandbox that ships with the platform) behind one
 * interface, selected by PAYMENT_PROVIDER. The Orchestrator asks it for a hosted checkout per payment
 * reference, learns outcomes from its signed webhooks, and asks it again when a client verifies a
 * payment whose webhook has not arrived yet.
 */
import type { IncomingHttpHeaders } from 'node:http';

export interface CheckoutRequest {
  /** The Orchestrator's reference for the payment; the provider keys its transaction by it. */
  reference: string;
  amountMinor: bigint;
  currency: string;
  /** What the payer sees, e.g. "CAP application fee". */
  description: string;
  customerEmail: string | null;
  /** Where the checkout sends the payer when done; null keeps them on the provider's result page. */
  returnUrl: string | null;
  /** Echoed back on webhooks. */
  metadata: Record<string, string>;
}

export interface Checkout {
  checkoutUrl: string;
  providerTransactionId: string;
}

/** A transaction's outcome as the provider tells it. */
export type ProviderOutcome =
  | { status: 'pending' }
  | {
      /** `refunded`: the provider has given the money back to the payer. */
      status: 'succeeded' | 'failed' | 'abandoned' | 'refunded';
      amountMinor: bigint;
      currency: string;
      providerTransactionId: string;
      /** The processor's words ("Approved", "Insufficient funds"). */
      message: string;
      occurredAt: Date;
    };

/** A webhook read from its (already authenticated) body. */
export interface WebhookNotice {
  /** The provider's id of the event: the same on every delivery of it. */
  eventId: string;
  eventType: string;
  reference: string;
  /** Null for an event type that does not settle a payment (it is acknowledged and ignored). */
  outcome: Exclude<ProviderOutcome, { status: 'pending' }> | null;
}

export interface PaymentProvider {
  /** Stored with each payment and shown to clients, e.g. `sandbox`. */
  readonly name: string;
  /** Currencies the provider takes (ISO 4217). */
  readonly currencies: readonly string[];
  /** Opens (or, for a reference it already has with the same terms, reopens) the hosted checkout. */
  createCheckout(request: CheckoutRequest): Promise<Checkout>;
  /**
   * Refunds a paid transaction in full; the outcome comes later, by webhook (a refund event). Asking
   * again for a transaction already refunded (or being refunded) changes nothing.
   */
  refund(request: { reference: string; amountMinor: bigint; currency: string; reason: string }): Promise<void>;
  /** The provider's current view of a transaction, or null when it has none with this reference. */
  lookup(reference: string): Promise<ProviderOutcome | null>;
  /** Whether a webhook request is authentic: its signature header over the exact raw body, checked in constant time. */
  verifyWebhook(headers: IncomingHttpHeaders, rawBody: Buffer | undefined): boolean;
  /** Reads an authentic webhook body; throws an Error when it is not a shape the provider sends. */
  readWebhook(body: unknown): WebhookNotice;
}

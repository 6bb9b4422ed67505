/**
 * The payment lifecycle as data: its states, the transitions between them, who may trigger each, the
 * guards each checks and the events each emits. `transition` in service.ts is the one function that
 * applies it (status, history row and events in one transaction); no status is set anywhere else.
 *
 *   initiated --(orchestrator: the provider's checkout exists)--> pending
 *   pending   --(provider: paid)-------------------------------> succeeded   emits payment.completed
 *   pending   --(provider: declined)---------------------------> failed
 *   pending   --(provider: the payer gave up or it expired)----> abandoned
 *
 * succeeded, failed and abandoned are final: a new attempt is a new payment (a new idempotency key).
 */
import type { EventType } from '../../platform/events/types.ts';

export const paymentStatuses = ['initiated', 'pending', 'succeeded', 'failed', 'abandoned'] as const;
export type PaymentStatus = (typeof paymentStatuses)[number];

export const finalStatuses: readonly PaymentStatus[] = ['succeeded', 'failed', 'abandoned'];

/** Who moves a payment: the Orchestrator itself (initiation) or the payment provider (its webhook, or its answer to a verify). */
export type PaymentActor = 'orchestrator' | 'provider';

/** What the provider reported, as the guards see it. */
export interface ProviderReport {
  amountMinor: bigint;
  currency: string;
}

/** The facts of a payment a guard looks at. */
export interface GuardedPayment {
  amountMinor: bigint;
  currency: string;
}

export type GuardName = 'provider_amount_matches';

/** Each guard: whether the move may happen, and what to say when it may not. */
export const guards: Record<GuardName, { holds(payment: GuardedPayment, report?: ProviderReport): boolean; refusal: string }> = {
  provider_amount_matches: {
    // A provider's success for another amount or currency is not this payment's success.
    holds: (payment, report) => report !== undefined && report.amountMinor === payment.amountMinor && report.currency === payment.currency,
    refusal: 'the provider reported another amount or currency than the payment asked for',
  },
};

export interface PaymentTransition {
  from: PaymentStatus;
  to: PaymentStatus;
  by: readonly PaymentActor[];
  guards: readonly GuardName[];
  emits: readonly EventType[];
}

export const paymentTransitions: readonly PaymentTransition[] = [
  { from: 'initiated', to: 'pending', by: ['orchestrator'], guards: [], emits: [] },
  { from: 'pending', to: 'succeeded', by: ['provider'], guards: ['provider_amount_matches'], emits: ['payment.completed'] },
  { from: 'pending', to: 'failed', by: ['provider'], guards: [], emits: ['payment.failed'] },
  { from: 'pending', to: 'abandoned', by: ['provider'], guards: [], emits: ['payment.failed'] },
];

/** The transition from one status to another, if the table has it. */
export function findTransition(from: PaymentStatus, to: PaymentStatus): PaymentTransition | undefined {
  return paymentTransitions.find((t) => t.from === from && t.to === to);
}

/** Why a move is refused (no such transition, wrong actor, a guard fails), or undefined when it may happen. */
export function refusal(
  from: PaymentStatus,
  to: PaymentStatus,
  actor: PaymentActor,
  payment: GuardedPayment,
  report?: ProviderReport,
): { code: 'payment.transition_not_allowed' | 'payment.guard_failed'; reason: string } | undefined {
  const transition = findTransition(from, to);
  if (!transition) return { code: 'payment.transition_not_allowed', reason: `a ${from} payment cannot become ${to}` };
  if (!transition.by.includes(actor)) {
    return { code: 'payment.transition_not_allowed', reason: `only ${transition.by.join(' or ')} may make a ${from} payment ${to}` };
  }
  const failed = transition.guards.find((name) => !guards[name].holds(payment, report));
  if (failed) return { code: 'payment.guard_failed', reason: guards[failed].refusal };
  return undefined;
}

/**
 * The payment lifecycle as data (the kernel's lifecycle table, server/platform/lifecycle.ts): its
 * states, the moves between them, who makes each, the guards each checks and the events each emits.
 * Each move is named by the status it leads to. `transition` in service.ts applies it through the one
 * writer (status, history row and events in one transaction); no status is set anywhere else.
 *
 *   (new)     --(orchestrator: InitiatePayment)------------------> initiated
 *   initiated --(orchestrator: the provider's checkout exists)--> pending
 *   pending   --(provider: paid)-------------------------------> succeeded   emits payment.completed
 *   pending   --(provider: declined)---------------------------> failed      emits payment.failed
 *   pending   --(provider: the payer gave up or it expired)----> abandoned   emits payment.failed
 *   succeeded --(orchestrator: RefundPayment)-------------------> refunding
 *   refunding --(provider: refunded)---------------------------> refunded    emits payment.refunded
 *   succeeded --(provider: refunded at the provider itself)----> refunded    emits payment.refunded
 *
 * failed, abandoned and refunded are final: a new attempt is a new payment (a new idempotency key). A
 * charge outcome for a payment past pending changes nothing.
 */
import type { EventType } from '../../platform/events/types.ts';
import { checkMove, defineLifecycle, findMove, type Move } from '../../platform/lifecycle.ts';

export const paymentStatuses = [
  'initiated',
  'pending',
  'succeeded',
  'failed',
  'abandoned',
  'refunding',
  'refunded',
] as const;
export type PaymentStatus = (typeof paymentStatuses)[number];

/** Statuses a charge outcome (paid, declined, abandoned) no longer moves. */
export const settledStatuses: readonly PaymentStatus[] = ['succeeded', 'failed', 'abandoned', 'refunding', 'refunded'];

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

export const paymentLifecycle = defineLifecycle({
  subject: 'payment',
  statuses: paymentStatuses,
  movers: ['orchestrator', 'provider'],
  moves: {
    initiated: { from: [null], to: 'initiated', by: ['orchestrator'], emits: [] },
    pending: { from: ['initiated'], to: 'pending', by: ['orchestrator'], emits: [] },
    succeeded: {
      from: ['pending'],
      to: 'succeeded',
      by: ['provider'],
      guards: ['provider_amount_matches'],
      emits: ['payment.completed'],
    },
    failed: { from: ['pending'], to: 'failed', by: ['provider'], emits: ['payment.failed'] },
    abandoned: { from: ['pending'], to: 'abandoned', by: ['provider'], emits: ['payment.failed'] },
    refunding: { from: ['succeeded'], to: 'refunding', by: ['orchestrator'], emits: [] },
    refunded: {
      from: ['refunding', 'succeeded'],
      to: 'refunded',
      by: ['provider'],
      guards: ['provider_amount_matches'],
      emits: ['payment.refunded'],
    },
  },
  guards: {
    // A provider's success for another amount or currency is not this payment's success.
    provider_amount_matches: ({ payment, report }: { payment: GuardedPayment; report?: ProviderReport }) =>
      report !== undefined && report.amountMinor === payment.amountMinor && report.currency === payment.currency
        ? undefined
        : { reason: 'the provider reported another amount or currency than the payment asked for' },
  },
});

export interface PaymentTransition extends Move {
  from: readonly PaymentStatus[];
  to: PaymentStatus;
  by: readonly PaymentActor[];
  emits: readonly EventType[];
}

/** The moves between statuses (creation aside). */
export const paymentTransitions = Object.values(paymentLifecycle.moves).filter(
  (move) => !(move.from as readonly unknown[]).includes(null),
) as readonly PaymentTransition[];

/** The transition from one status to another, if the table has it. */
export const findTransition = (from: PaymentStatus, to: PaymentStatus) =>
  findMove(paymentLifecycle, from, to) as PaymentTransition | undefined;

/** The table's codes for a refused move. */
export const refusalCodes = {
  no_move: 'payment.transition_not_allowed',
  wrong_mover: 'payment.transition_not_allowed',
  guard_failed: 'payment.guard_failed',
} as const;

/** Why a move is refused (no such transition, wrong actor, a guard fails), or undefined when it may happen. */
export function refusal(
  from: PaymentStatus,
  to: PaymentStatus,
  actor: PaymentActor,
  payment: GuardedPayment,
  report?: ProviderReport,
): { code: (typeof refusalCodes)[keyof typeof refusalCodes]; reason: string } | undefined {
  const verdict = checkMove(paymentLifecycle, from, to, actor, { payment, report });
  return verdict.ok ? undefined : { code: refusalCodes[verdict.refusal.kind], reason: verdict.refusal.reason };
}

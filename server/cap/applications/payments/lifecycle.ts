/**
 * An application payment attempt in CAP, as data (the kernel's lifecycle table, server/platform/lifecycle.ts):
 *
 *   (new)     --(candidate: pay)------------------------------> pending
 *   pending   --(orchestrator: payment.completed)-------------> completed
 *   pending   --(orchestrator: payment.failed)----------------> failed
 *   completed --(candidate: withdraws before assessment)------> refunding
 *   completed --(platform: paid after the withdrawal)----------> refunding
 *   refunding --(orchestrator: payment.refunded)--------------> refunded
 *   completed --(orchestrator: payment.refunded)--------------> refunded   (a refund made at the provider)
 *
 * Idempotent: an event redelivered for a payment already where it leads changes nothing. Every status
 * write goes through `lifecycleWriter` (payments/service.ts); no status is set anywhere else.
 */
import { defineLifecycle } from '../../../platform/lifecycle.ts';

export const capPaymentStatuses = ['pending', 'completed', 'failed', 'refunding', 'refunded'] as const;
export type CapPaymentStatus = (typeof capPaymentStatuses)[number];

export const capPaymentLifecycle = defineLifecycle({
  subject: 'application payment',
  statuses: capPaymentStatuses,
  movers: ['candidate', 'orchestrator', 'platform'],
  idempotent: true,
  moves: {
    start: { from: [null], to: 'pending', by: ['candidate'] },
    completed: { from: ['pending'], to: 'completed', by: ['orchestrator'] },
    failed: { from: ['pending'], to: 'failed', by: ['orchestrator'] },
    refund: { from: ['completed'], to: 'refunding', by: ['candidate', 'platform'] },
    refunded: { from: ['completed', 'refunding'], to: 'refunded', by: ['orchestrator'] },
  },
});

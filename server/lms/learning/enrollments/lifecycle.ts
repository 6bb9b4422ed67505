import { defineLifecycle } from '../../../platform/lifecycle.ts';
import { enrollmentStatuses, entitlementStatuses } from './models.ts';

/**
 * The enrollment lifecycle as data. An enrollment starts `pending` (waiting for an entitlement: a
 * payment, a grant, a seat) and becomes `active` when one arrives; an active one is `completed` under
 * the course's completion policy, or `expired` when its entitlement runs out; a learner may withdraw
 * before completing, and the refund of the payment that activated it ends it (`withdrawn`, moved by the
 * LMS). An expired or withdrawn enrollment is activated again by a new entitlement. The LMS moves it on
 * an entitlement; the learner by enrolling and by the progress that completes it.
 */
export const enrollmentLifecycle = defineLifecycle({
  subject: 'enrollment',
  statuses: enrollmentStatuses,
  movers: ['learner', 'lms'],
  moves: {
    enroll: { from: [null], to: 'pending', by: ['learner', 'lms'] },
    activate: {
      from: ['pending', 'expired', 'withdrawn'],
      to: 'active',
      by: ['lms'],
      emits: 'lms.enrollment.activated',
    },
    complete: { from: ['active'], to: 'completed', by: ['learner'], emits: 'lms.course.completed' },
    expire: { from: ['active'], to: 'expired', by: ['lms'], emits: null },
    withdraw: { from: ['pending', 'active'], to: 'withdrawn', by: ['learner'], emits: null },
    refunded: { from: ['active'], to: 'withdrawn', by: ['lms'], emits: null },
  },
});

export const enrollmentMoves = enrollmentLifecycle.moves;
export type EnrollmentMove = keyof typeof enrollmentMoves;

/**
 * An entitlement, one per learner and course: its row is opened `pending` (so concurrent grants lock
 * the same row) and granted `active` with the grant's terms; the refund of the payment that granted it
 * revokes it; a revoked or expired one is granted again by a new grant. Expiry is not offered yet.
 */
export const entitlementLifecycle = defineLifecycle({
  subject: 'entitlement',
  statuses: entitlementStatuses,
  movers: ['lms'],
  moves: {
    open: { from: [null], to: 'pending', by: ['lms'] },
    grant: { from: ['pending', 'revoked', 'expired'], to: 'active', by: ['lms'] },
    revoke: { from: ['active'], to: 'revoked', by: ['lms'] },
  },
});

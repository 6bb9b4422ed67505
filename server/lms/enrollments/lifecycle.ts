import type { EventType } from '../../platform/events/types.ts';
import type { EnrollmentStatus } from './models.ts';

/**
 * The enrollment lifecycle as data. An enrollment starts `pending` (waiting for an entitlement: a
 * payment, a grant, a seat) and becomes `active` when one arrives; an active one is `completed` under
 * the course's completion policy, or `expired` when its entitlement runs out; a learner may withdraw
 * before completing. An expired or withdrawn enrollment is activated again by a new entitlement.
 */
export const enrollmentMoves = {
  activate: { from: ['pending', 'expired', 'withdrawn'], to: 'active', emits: 'lms.enrollment.activated' },
  complete: { from: ['active'], to: 'completed', emits: 'lms.course.completed' },
  expire: { from: ['active'], to: 'expired', emits: null },
  withdraw: { from: ['pending', 'active'], to: 'withdrawn', emits: null },
} as const satisfies Record<string, { from: readonly EnrollmentStatus[]; to: EnrollmentStatus; emits: EventType | null }>;

export type EnrollmentMove = keyof typeof enrollmentMoves;

/** Whether `move` applies to an enrollment in `status`. */
export function canMove(status: EnrollmentStatus, move: EnrollmentMove): boolean {
  return (enrollmentMoves[move].from as readonly EnrollmentStatus[]).includes(status);
}

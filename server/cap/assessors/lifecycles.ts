/**
 * The lifecycles of the assessor market, as data: for each action, the statuses it may start from and
 * the status it leads to. An action on something already in its target status changes nothing (a
 * repeated approve is not an error). Applied only through `statusAfter`.
 */
interface Lifecycle<Status extends string> {
  [action: string]: { from: readonly Status[]; to: Status };
}

export type RetainedRequestStatus = 'pending' | 'approved' | 'rejected' | 'revoked';

/**
 * An assessor asks a centre to retain them (`pending`); the centre approves or rejects; an approved
 * assessor may later be revoked (the centre's "deactivate"). Rejected and revoked are final for that
 * request: the assessor may ask again with a new one.
 */
export const retainedRequestLifecycle = {
  approve: { from: ['pending'], to: 'approved' },
  reject: { from: ['pending'], to: 'rejected' },
  revoke: { from: ['approved'], to: 'revoked' },
} as const satisfies Lifecycle<RetainedRequestStatus>;
export type RetainedRequestAction = keyof typeof retainedRequestLifecycle;

export type JobPostingStatus = 'open' | 'closed' | 'filled' | 'cancelled';

/**
 * A posting is `open` when made; it is `filled` when its last slot is taken (`fill`) and open again
 * when an accepted assessor is rejected after all (`release`), both done by the decisions, never asked
 * for; and `closed` when the centre closes it, open or filled. Closed is final. `cancelled` is in the
 * client's vocabulary, but nothing leads to it: a posting nobody applied to is deleted instead.
 */
export const jobPostingLifecycle = {
  close: { from: ['open', 'filled'], to: 'closed' },
  fill: { from: ['open'], to: 'filled' },
  release: { from: ['filled'], to: 'open' },
} as const satisfies Lifecycle<JobPostingStatus>;
export type JobPostingAction = keyof typeof jobPostingLifecycle;

export type JobApplicationStatus = 'applied' | 'accepted' | 'rejected' | 'withdrawn';

/**
 * An assessor's application to a posting: `applied`, then the centre's decision. The client says
 * `shortlist`, and the status it leads to is `accepted` (enums.md); an accepted assessor may still be
 * rejected, which frees their slot.
 */
export const jobApplicationLifecycle = {
  shortlist: { from: ['applied'], to: 'accepted' },
  reject: { from: ['applied', 'accepted'], to: 'rejected' },
} as const satisfies Lifecycle<JobApplicationStatus>;
export type JobApplicationDecision = keyof typeof jobApplicationLifecycle;

/** The status after `action`, the same status when it is already there, or undefined when not allowed. */
export function statusAfter<Status extends string>(lifecycle: Lifecycle<Status>, status: Status, action: string): Status | undefined {
  const rule = lifecycle[action];
  if (!rule) return undefined;
  if (status === rule.to) return status;
  return rule.from.includes(status) ? rule.to : undefined;
}

/**
 * What an assessor asks a centre to retain them for (`preferredRole` of a retained request, required by
 * the spec): `assessor` (facilitating, interview panels, NSQ units), `internal_verifier` (IV, and
 * observing panels as IV), or `any`.
 */
export const preferredRoles = ['assessor', 'internal_verifier', 'any'] as const;
export type PreferredRole = (typeof preferredRoles)[number];

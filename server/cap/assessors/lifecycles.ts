import { defineLifecycle, type ActionOf, type StatusOf } from '../../platform/lifecycle.ts';

// The lifecycles of the assessor market, as data, written only by their writers (lifecycleWriter). An
// action on something already in the status it leads to changes nothing (a repeated approve is not an
// error).

/**
 * An assessor asks a centre to retain them (`pending`); the centre approves or rejects; an approved
 * assessor may later be revoked (the centre's "deactivate"). Rejected and revoked are final for that
 * request: the assessor may ask again with a new one.
 */
export const retainedRequestLifecycle = defineLifecycle({
  subject: 'retained request',
  statuses: ['pending', 'approved', 'rejected', 'revoked'],
  movers: ['assessor', 'centre'],
  moves: {
    request: { from: [null], to: 'pending', by: ['assessor'] },
    approve: { from: ['pending'], to: 'approved', by: ['centre'] },
    reject: { from: ['pending'], to: 'rejected', by: ['centre'] },
    revoke: { from: ['approved'], to: 'revoked', by: ['centre'] },
  },
  idempotent: true,
});
export type RetainedRequestStatus = StatusOf<typeof retainedRequestLifecycle>;
export type RetainedRequestAction = Exclude<ActionOf<typeof retainedRequestLifecycle>, 'request'>;

/**
 * A posting is `open` when made; it is `filled` when its last slot is taken (`fill`) and open again
 * when an accepted assessor is rejected after all (`release`), both done by the decisions, never asked
 * for; and `closed` when the centre closes it, open or filled. Closed is final. `cancelled` is in the
 * client's vocabulary, but nothing leads to it: a posting nobody applied to is deleted instead.
 */
export const jobPostingLifecycle = defineLifecycle({
  subject: 'job posting',
  statuses: ['open', 'closed', 'filled', 'cancelled'],
  movers: ['centre', 'decisions'],
  moves: {
    post: { from: [null], to: 'open', by: ['centre'] },
    close: { from: ['open', 'filled'], to: 'closed', by: ['centre'] },
    fill: { from: ['open'], to: 'filled', by: ['decisions'] },
    release: { from: ['filled'], to: 'open', by: ['decisions'] },
  },
  idempotent: true,
});
export type JobPostingStatus = StatusOf<typeof jobPostingLifecycle>;

/**
 * An assessor's application to a posting: `applied`, then the centre's decision. The client says
 * `shortlist`, and the status it leads to is `accepted` (enums.md); an accepted assessor may still be
 * rejected, which frees their slot. `withdrawn` is in the client's vocabulary; nothing leads to it.
 */
export const jobApplicationLifecycle = defineLifecycle({
  subject: 'job application',
  statuses: ['applied', 'accepted', 'rejected', 'withdrawn'],
  movers: ['assessor', 'centre'],
  moves: {
    apply: { from: [null], to: 'applied', by: ['assessor'] },
    shortlist: { from: ['applied'], to: 'accepted', by: ['centre'] },
    reject: { from: ['applied', 'accepted'], to: 'rejected', by: ['centre'] },
  },
  idempotent: true,
});
export type JobApplicationStatus = StatusOf<typeof jobApplicationLifecycle>;
export type JobApplicationDecision = Exclude<ActionOf<typeof jobApplicationLifecycle>, 'apply'>;

/**
 * What an assessor asks a centre to retain them for (`preferredRole` of a retained request, required by
 * the spec): `assessor` (facilitating, interview panels, NSQ units), `internal_verifier` (IV, and
 * observing panels as IV), or `any`.
 */
export const preferredRoles = ['assessor', 'internal_verifier', 'any'] as const;
export type PreferredRole = (typeof preferredRoles)[number];

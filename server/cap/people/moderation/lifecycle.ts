import type { ModerationStatus } from '../vocabulary.ts';

/**
 * The moderation lifecycle of what platform admins approve (centres, assessor profiles), as data:
 * what an admin may do in each status. Something that signed up starts `pending`; `rejected` is
 * final; an approved one may be suspended, and approved again. While suspended (or rejected) its
 * people can still sign in, but nobody acts in that role (403 `centre.suspended`, `assessor.suspended`).
 */
export const moderationActions = {
  approve: { from: ['pending', 'suspended'], to: 'approved' },
  reject: { from: ['pending'], to: 'rejected' },
  suspend: { from: ['approved'], to: 'suspended' },
} as const satisfies Record<string, { from: readonly ModerationStatus[]; to: ModerationStatus }>;

export type ModerationAction = keyof typeof moderationActions;

export const pastTense: Record<ModerationAction, string> = { approve: 'approved', reject: 'rejected', suspend: 'suspended' };

/** The status after `action`, the same status when it is already there, or undefined when not allowed. */
export function statusAfter(status: ModerationStatus, action: ModerationAction): ModerationStatus | undefined {
  const rule = moderationActions[action];
  if (status === rule.to) return status;
  return (rule.from as readonly ModerationStatus[]).includes(status) ? rule.to : undefined;
}

/** Statuses in which people may act in the role (pending may prepare; what needs approval checks for it). */
export const operableStatuses: readonly ModerationStatus[] = ['pending', 'approved'];

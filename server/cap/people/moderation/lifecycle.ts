import { defineLifecycle, lifecycleWriter, modelStore, type ActionOf } from '../../../platform/lifecycle.ts';
import type { Model, ModelStatic } from 'sequelize';
import type { ModerationStatus } from '../vocabulary.ts';

/**
 * The moderation lifecycle of what platform admins approve (centres, assessor profiles), as data.
 * Something that signed up starts `pending` (`sign_up`, by its owner); a centre an admin makes starts
 * `approved` (`register`). `rejected` is final; an approved one may be suspended, and approved again.
 * A repeated action changes nothing. While suspended (or rejected) its people can still sign in, but
 * nobody acts in that role (403 `centre.suspended`, `assessor.suspended`).
 */
export const moderationLifecycle = defineLifecycle({
  subject: 'moderated record',
  statuses: ['pending', 'approved', 'rejected', 'suspended'],
  movers: ['owner', 'admin'],
  moves: {
    sign_up: { from: [null], to: 'pending', by: ['owner'] },
    register: { from: [null], to: 'approved', by: ['admin'] },
    approve: { from: ['pending', 'suspended'], to: 'approved', by: ['admin'] },
    reject: { from: ['pending'], to: 'rejected', by: ['admin'] },
    suspend: { from: ['approved'], to: 'suspended', by: ['admin'] },
  },
  idempotent: true,
});

/** What an admin does to a moderated record. */
export type ModerationAction = Exclude<ActionOf<typeof moderationLifecycle>, 'sign_up' | 'register'>;

/** The one writer of a moderated table's status (centres, assessor profiles). */
export const moderationWriter = <M extends Model>(model: ModelStatic<M>) =>
  lifecycleWriter(moderationLifecycle, { store: modelStore(model) });
export type ModerationWriter<M extends Model> = ReturnType<typeof moderationWriter<M>>;

export const pastTense: Record<ModerationAction, string> = {
  approve: 'approved',
  reject: 'rejected',
  suspend: 'suspended',
};

/** Statuses in which people may act in the role (pending may prepare; what needs approval checks for it). */
export const operableStatuses: readonly ModerationStatus[] = ['pending', 'approved'];

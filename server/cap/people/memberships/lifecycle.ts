import type { Model, ModelStatic } from 'sequelize';
import { conflict } from '../../../platform/http/errors.ts';
import { defineLifecycle, lifecycleWriter, modelStore } from '../../../platform/lifecycle.ts';

/**
 * A membership of an organisation (centre staff, awarding-body members), as data. An admin adds a
 * person `pending` (`invite`: an existing account answers the invitation, a new one is let in by its
 * first call) or `active` (`admit`: someone let in at once, a centre's owner). The person accepts
 * (`accept`, pending to active). A centre's admins deactivate and activate staff; one that awaits the
 * person's acceptance is activated only by the person (guard `accepted`, 409
 * `centre.invitation_pending`). A repeated action changes nothing.
 */
export const membershipLifecycle = defineLifecycle({
  subject: 'membership',
  statuses: ['pending', 'active', 'inactive'],
  movers: ['admin', 'owner', 'member'],
  moves: {
    invite: { from: [null], to: 'pending', by: ['admin'] },
    admit: { from: [null], to: 'active', by: ['admin', 'owner'] },
    accept: { from: ['pending'], to: 'active', by: ['member'] },
    activate: { from: ['pending', 'inactive'], to: 'active', by: ['admin'], guards: ['accepted'] },
    deactivate: { from: ['pending', 'active'], to: 'inactive', by: ['admin'] },
  },
  guards: {
    accepted: (member: { requiresAcceptance: boolean }) =>
      member.requiresAcceptance ? { reason: 'the person has not accepted the invitation yet' } : undefined,
  },
  idempotent: true,
});

interface Member extends Model {
  email: string;
  requiresAcceptance: boolean;
}

/** The one writer of a membership table's status. */
export const membershipWriter = <M extends Member>(model: ModelStatic<M>) =>
  lifecycleWriter(membershipLifecycle, {
    store: modelStore(model),
    refuse: (refusal, member) => {
      if (refusal.kind === 'guard_failed')
        return conflict(
          'centre.invitation_pending',
          `${member!.email} has not accepted the centre's invitation yet: only they can.`,
        );
      return new Error(`the membership lifecycle refused ${refusal.action}: ${refusal.reason}`);
    },
  });

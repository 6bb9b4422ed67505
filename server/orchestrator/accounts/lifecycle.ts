import { defineLifecycle } from '../../platform/lifecycle.ts';

/**
 * The account lifecycle as data. A registration waits `pending_verification` until its address is
 * proven (the mailed code, Google, or a provisioning that mails a password); an account made by Google
 * or provisioned is active at once. `user.created` goes out when an account first becomes active,
 * `user.deleted` when its holder deletes it. Suspension is set by staff (a later issue): nothing leads
 * there yet.
 */
export const accountLifecycle = defineLifecycle({
  subject: 'account',
  statuses: ['pending_verification', 'active', 'suspended', 'deactivated'],
  /** The account's holder (register, the mailed code, delete), Google (its sign-in proves the address), the platform (provisioning). */
  movers: ['holder', 'google', 'platform'],
  moves: {
    register: { from: [null], to: 'pending_verification', by: ['holder'] },
    open: { from: [null], to: 'active', by: ['google', 'platform'], emits: 'user.created' },
    verify: {
      from: ['pending_verification'],
      to: 'active',
      by: ['holder', 'google', 'platform'],
      emits: 'user.created',
    },
    deactivate: {
      from: ['pending_verification', 'active', 'suspended'],
      to: 'deactivated',
      by: ['holder'],
      emits: 'user.deleted',
    },
  },
});

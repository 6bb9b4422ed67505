import type { Sequelize, Transaction } from 'sequelize';
import { forbidden } from '../../../platform/http/errors.ts';
import type { Principal } from '../../../platform/http/operations.ts';
import { newId } from '../../../platform/ids.ts';
import { lifecycleWriter, modelStore } from '../../../platform/lifecycle.ts';
import { defineUserModels, learnerStandingLifecycle, lmsUserLifecycle, type LmsUser } from './models.ts';

/** The LMS user, unless deactivated: a deactivated account may not act. */
export function mayAct<U extends Pick<LmsUser, 'status'>>(user: U): U {
  if (user.status === 'deactivated')
    throw forbidden('auth.account_deactivated', 'This account was deleted and can no longer use the LMS.');
  return user;
}

/** An Orchestrator account, as `user.created` and the access token describe it. */
export interface Account {
  userId: string;
  email: string | null;
}

export interface ProfilePatch {
  displayName?: string | null;
  photoAssetId?: string | null;
}

export type Users = ReturnType<typeof createUsers>;

/** LMS users: provisioning from the Orchestrator's accounts, deactivation, the personal profile. */
export function createUsers(sequelize: Sequelize) {
  const { LmsUser } = defineUserModels(sequelize);
  const accounts = lifecycleWriter(lmsUserLifecycle, { store: modelStore(LmsUser) });
  const standings = lifecycleWriter(learnerStandingLifecycle, {
    store: modelStore(LmsUser, 'learnerStatus'),
    statusField: 'learnerStatus',
  });

  const newUser = (account: Account) => ({
    id: newId(),
    userId: account.userId,
    email: account.email,
    displayName: null,
    photoAssetId: null,
  });

  /** Creates the account's LMS user unless it exists: safe to repeat and to race (unique user_id). */
  async function provision(account: Account, transaction?: Transaction): Promise<void> {
    const create = (t: Transaction) =>
      accounts.create(t, 'provision', newUser(account), { by: 'orchestrator', ignoreDuplicates: true });
    await (transaction ? create(transaction) : sequelize.transaction(create));
  }

  /** Deactivates the account's LMS user, creating it deactivated if it never arrived, so it cannot come back active. */
  async function deactivate(userId: string, transaction?: Transaction): Promise<void> {
    const work = async (t: Transaction) => {
      await accounts.create(t, 'deactivate', newUser({ userId, email: null }), {
        by: 'orchestrator',
        ignoreDuplicates: true,
      });
      const user = await LmsUser.findOne({
        where: { userId },
        transaction: t,
        lock: t.LOCK.UPDATE,
        rejectOnEmpty: true,
      });
      await accounts.move(t, user, 'deactivate', { by: 'orchestrator' });
    };
    await (transaction ? work(transaction) : sequelize.transaction(work));
  }

  /** Staff suspend a learner in the LMS only, or reinstate them; a repeat changes nothing. */
  async function setLearnerStanding(lmsUserId: string, standing: 'active' | 'suspended'): Promise<void> {
    await sequelize.transaction(async (transaction) => {
      const user = await LmsUser.findByPk(lmsUserId, {
        transaction,
        lock: transaction.LOCK.UPDATE,
        rejectOnEmpty: true,
      });
      await standings.move(transaction, user, standing === 'suspended' ? 'suspend' : 'reinstate', { by: 'staff' });
    });
  }

  /** The caller's LMS user, provisioned now if `user.created` has not arrived yet; a deactivated one may not act. */
  async function actingUser(principal: Principal): Promise<LmsUser> {
    const userId = principal.userId!; // bearerAuth admits only tokens with a subject
    let user = await LmsUser.findOne({ where: { userId } });
    if (!user) {
      await provision({ userId, email: principal.email ?? null });
      user = await LmsUser.findOne({ where: { userId }, rejectOnEmpty: true });
    }
    return mayAct(user);
  }

  /** The account's LMS user, provisioned now when it has none yet (staff inviting or seating an address). */
  async function ensure(account: Account): Promise<LmsUser> {
    await provision(account);
    return LmsUser.findOne({ where: { userId: account.userId }, rejectOnEmpty: true });
  }

  function profile(user: LmsUser) {
    return {
      lmsUserId: user.id,
      email: user.email,
      displayName: user.displayName,
      photoAssetId: user.photoAssetId,
      // Storage resolution (a display URL) arrives with Orchestrator storage; until then the url is unknown.
      photo: user.photoAssetId ? { assetId: user.photoAssetId, url: null } : null,
    };
  }

  /** Merge patch: only the fields present change; null empties them. */
  async function updateProfile(user: LmsUser, patch: ProfilePatch) {
    if (patch.displayName !== undefined) user.displayName = patch.displayName?.trim() ?? null;
    if (patch.photoAssetId !== undefined) user.photoAssetId = patch.photoAssetId;
    await user.save();
    return profile(user);
  }

  return { provision, deactivate, setLearnerStanding, actingUser, ensure, profile, updateProfile };
}

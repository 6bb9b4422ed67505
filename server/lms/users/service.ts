import type { Sequelize, Transaction } from 'sequelize';
import { forbidden } from '../../platform/http/errors.ts';
import type { Principal } from '../../platform/http/operations.ts';
import { newId } from '../../platform/ids.ts';
import { defineUserModels, type LmsUser } from './models.ts';

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

  const newUser = (account: Account, status: LmsUser['status']) => ({
    id: newId(),
    userId: account.userId,
    email: account.email,
    displayName: null,
    photoAssetId: null,
    status,
  });

  /** Creates the account's LMS user unless it exists: safe to repeat and to race (unique user_id). */
  async function provision(account: Account, transaction?: Transaction): Promise<void> {
    await LmsUser.bulkCreate([newUser(account, 'active')], { ignoreDuplicates: true, transaction });
  }

  /** Deactivates the account's LMS user, creating it deactivated if it never arrived, so it cannot come back active. */
  async function deactivate(userId: string, transaction?: Transaction): Promise<void> {
    await LmsUser.bulkCreate([newUser({ userId, email: null }, 'deactivated')], {
      conflictAttributes: ['userId'],
      updateOnDuplicate: ['status', 'updatedAt'],
      transaction,
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
    if (user.status === 'deactivated') throw forbidden('auth.account_deactivated', 'This account was deleted and can no longer use the LMS.');
    return user;
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

  return { provision, deactivate, actingUser, ensure, profile, updateProfile };
}

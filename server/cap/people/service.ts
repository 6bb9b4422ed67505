import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { forbidden } from '../../platform/http/errors.ts';
import type { Principal } from '../../platform/http/operations.ts';
import { mergePatch, type JsonObject } from '../../platform/http/merge-patch.ts';
import { instancesOf, preparedIn, preparedReads, savePrepared } from '../../platform/db/prepared.ts';
import type { CallerCache } from '../../platform/db/caller-cache.ts';
import { lifecycleWriter, modelStore } from '../../platform/lifecycle.ts';
import { defineUserModels, userLifecycle, type Caller, type CapUserRecord, type Standing } from './models.ts';

/** The profile sections PATCH /me/profile edits. */
export const profileSections = ['personalDetails', 'contactInformation', 'residentialAddress'] as const;

/** The outcome of one identity check, as the Orchestrator reports it. */
export interface IdentityCheck {
  provider: string;
  providerReference: string;
  /** Null when the check did not verify. */
  verifiedAt: Date | null;
}

export interface UserIdentity {
  userId: string;
  email: string;
}

/**
 * The caller's standing as the modules that own it read it, each a SQL expression of the user id (a
 * subselect of its own tables), so that the caller statement stays one statement: it runs on every
 * authenticated call.
 */
export interface StandingSql {
  /** `Standing.centres`: a JSON array (centres). */
  centres(userId: string): string;
  /** `Standing.awardingBody`: a JSON object or null (catalogue). */
  awardingBody(userId: string): string;
  /** `Standing.awardingBodyActive`: a boolean (catalogue). */
  awardingBodyActive(userId: string): string;
  /** `Standing.assessorStatus`: a status or null (assessors). */
  assessorStatus(userId: string): string;
}

/**
 * `standing` says how the other modules read the caller's standing (without it, as for capctl's
 * operator work, no caller is read); `callers` keeps callers between requests (the server's); without
 * it every call reads its caller.
 */
export function createUserService(
  sequelize: Sequelize,
  options: { standing?: StandingSql; callers?: CallerCache<Caller> } = {},
) {
  const { standing, callers } = options;
  const models = defineUserModels(sequelize);
  const { CapUser } = models;
  const accounts = lifecycleWriter(userLifecycle, { store: modelStore(CapUser) });
  const inTransaction = <T>(transaction: Transaction | undefined, work: (transaction: Transaction) => Promise<T>) =>
    transaction ? work(transaction) : sequelize.transaction(work);
  const prepared = preparedReads(sequelize);
  const callerSql =
    standing &&
    `SELECT u.user_id AS "userId", u.email, u.status, u.identity_verified AS "identityVerified", u.identity_provider AS "identityProvider",
              u.identity_provider_reference AS "identityProviderReference", u.identity_verified_at AS "identityVerifiedAt",
              u.first_seen_at AS "firstSeenAt", u.profile, u.created_at AS "createdAt", u.updated_at AS "updatedAt",
              (SELECT coalesce(json_agg(json_build_object('persona', o.persona, 'status', o.status)), '[]')
                 FROM cap.onboardings o WHERE o.user_id = u.user_id) AS onboardings,
              ${standing.centres('u.user_id')} AS centres,
              ${standing.awardingBody('u.user_id')} AS "awardingBody",
              ${standing.awardingBodyActive('u.user_id')} AS "awardingBodyActive",
              ${standing.assessorStatus('u.user_id')} AS "assessorStatus",
              ARRAY(SELECT g.role::text FROM cap.platform_role_grants g WHERE g.user_id = u.user_id) AS "platformRoles"
         FROM cap.users u WHERE u.user_id = $1`;

  /**
   * The user by id with their standing, as every authenticated call needs it: one prepared statement
   * (see preparedReads), so that GET /me and the acting context cost no second round trip.
   */
  async function read(userId: string): Promise<Caller | undefined> {
    if (!callerSql) throw new Error('this user service was made without the standing: it reads no callers');
    const [row] = await prepared<CapUserRecord & Standing>('cap.users.caller', callerSql, [userId]);
    if (!row) return undefined;
    const { onboardings, centres, awardingBody, awardingBodyActive, assessorStatus, platformRoles, ...user } = row;
    return {
      user,
      standing: { onboardings, centres, awardingBody, awardingBodyActive, assessorStatus, platformRoles },
    };
  }

  const find = (userId: string) => (callers ? callers.read(userId, () => read(userId)) : read(userId));

  /**
   * Creates the CapUser unless it exists. The user.created consumer and a user's first call may both
   * get here at once: the primary key and ON CONFLICT DO NOTHING make the second insert a no-op.
   */
  async function provision(identity: UserIdentity, transaction?: Transaction): Promise<void> {
    await inTransaction(transaction, (transaction) =>
      accounts.create(
        transaction,
        'provision',
        { userId: identity.userId, email: identity.email },
        { by: 'orchestrator', ignoreDuplicates: true },
      ),
    );
  }

  /**
   * Marks the user deactivated, writing the row when user.created has not been handled yet, so that
   * a late user.created or a first call with a still-valid token cannot bring the account back.
   */
  async function deactivate(identity: { userId: string; email?: string }, transaction?: Transaction): Promise<void> {
    await inTransaction(transaction, async (transaction) => {
      await accounts.create(
        transaction,
        'deactivate',
        { userId: identity.userId, email: identity.email ?? '' },
        { by: 'orchestrator', ignoreDuplicates: true },
      );
      const user = (await CapUser.findByPk(identity.userId, { transaction, lock: transaction.LOCK.UPDATE }))!;
      await accounts.move(transaction, user, 'deactivate', { by: 'orchestrator' });
    });
  }

  /**
   * The caller, provisioned on the spot if the event has not arrived; deactivated users are refused.
   * The user's first call runs `firstCall` (which may let memberships in) and then reads them anew.
   */
  function admit(principal: Principal, firstCall: (userId: string) => Promise<void>): Caller | Promise<Caller> {
    // A kept caller who is active and was seen before needs nothing more: returned as it is.
    const kept = callers?.kept(principal.userId!);
    if (kept && kept.user.status !== 'deactivated' && kept.user.firstSeenAt) return kept;
    return admitRead(principal, firstCall);
  }

  async function admitRead(principal: Principal, firstCall: (userId: string) => Promise<void>): Promise<Caller> {
    const userId = principal.userId!;
    let caller = await find(userId);
    if (!caller) {
      await provision({ userId, email: principal.email ?? '' });
      caller = (await find(userId))!;
    }
    if (caller.user.status === 'deactivated') {
      throw forbidden('auth.account_deactivated', 'This account has been deleted, so it can no longer use the portal.');
    }
    if (!caller.user.firstSeenAt) {
      await firstCall(userId);
      caller = (await find(userId))!;
    }
    return caller;
  }

  function profileOf(user: CapUserRecord) {
    const sections = Object.fromEntries(
      profileSections.filter((s) => user.profile[s] !== undefined).map((s) => [s, user.profile[s]]),
    );
    return { identityVerified: user.identityVerified, ...sections };
  }

  /** Deep-merges the patch (null removes) into the profile, under a row lock so concurrent edits both land. */
  async function updateProfile(userId: string, patch: JsonObject) {
    return sequelize.transaction(async (transaction) => {
      const [user] = await instancesOf(CapUser, 'x.user_id = $1', [userId], { transaction, then: 'FOR UPDATE' });
      user!.profile = mergePatch(user!.profile, patch) as JsonObject;
      user!.changed('profile', true);
      await savePrepared(user!, transaction);
      return profileOf(user!);
    });
  }

  /** Fills the profile sections that are still empty from a completed onboarding's person details. */
  async function seedProfile(userId: string, details: JsonObject, transaction: Transaction): Promise<void> {
    const sections = profileSections.filter((s) => details[s] !== undefined);
    if (sections.length === 0) return;
    // One statement: the sections the profile lacks are added (those it has win the `||`).
    await preparedIn(
      transaction,
      `UPDATE cap.users SET profile = $2::jsonb || profile, updated_at = $3 WHERE user_id = $1 AND NOT profile ?& $4::text[]`,
      [userId, JSON.stringify(Object.fromEntries(sections.map((s) => [s, details[s]]))), new Date(), sections],
    );
  }

  /**
   * Keeps the outcome of an identity check. A verifying check is recorded; a failing one is recorded
   * only while the user has never been verified, so a mistyped retry cannot undo a verification.
   */
  async function recordIdentityCheck(userId: string, check: IdentityCheck): Promise<void> {
    const fields = { identityProvider: check.provider, identityProviderReference: check.providerReference };
    if (check.verifiedAt) {
      await CapUser.update(
        { ...fields, identityVerified: true, identityVerifiedAt: check.verifiedAt },
        { where: { userId } },
      );
    } else {
      await CapUser.update(fields, { where: { userId, identityVerified: false } });
    }
  }

  /**
   * Marks the user's first authenticated call. True for the one call that does it: concurrent first
   * calls wait on the row lock and then find the mark already set.
   */
  async function markFirstSeen(userId: string, transaction: Transaction): Promise<boolean> {
    const marked = await preparedIn(
      transaction,
      `UPDATE cap.users SET first_seen_at = $2, updated_at = $2 WHERE user_id = $1 AND first_seen_at IS NULL RETURNING 1`,
      [userId, new Date()],
    );
    return marked.length === 1;
  }

  /** The users CAP knows among `userIds`, by id (for other modules: identity verified, email, since when). */
  async function recordsOf(userIds: string[]): Promise<Map<string, CapUserRecord>> {
    const rows = userIds.length ? await instancesOf(CapUser, 'x.user_id = ANY($1)', [[...new Set(userIds)]]) : [];
    return new Map(rows.map((row) => [row.userId, row.get({ plain: true })]));
  }

  /** The signature the user keeps on their profile (a storage asset id), or null. */
  async function signatureOf(userId: string): Promise<string | null> {
    const [row] = await sequelize.query<{ id: string | null }>(
      `SELECT signature_asset_id AS id FROM cap.users WHERE user_id = $1`,
      { type: QueryTypes.SELECT, bind: [userId] },
    );
    return row?.id ?? null;
  }

  async function setSignature(userId: string, assetId: string): Promise<void> {
    await sequelize.query(`UPDATE cap.users SET signature_asset_id = $2 WHERE user_id = $1`, {
      bind: [userId, assetId],
    });
  }

  return {
    models,
    provision,
    deactivate,
    admit,
    profileOf,
    updateProfile,
    seedProfile,
    recordIdentityCheck,
    markFirstSeen,
    recordsOf,
    signatureOf,
    setSignature,
  };
}

export type UserService = ReturnType<typeof createUserService>;

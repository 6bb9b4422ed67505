import { UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import { instancesOf, prepared, savePrepared } from '../../../platform/db/prepared.ts';
import { newId } from '../../../platform/ids.ts';
import { conflict, forbidden, notFound, unprocessable } from '../../../platform/http/errors.ts';
import { mergePatch, missingPaths, valueAt, type JsonObject } from '../../../platform/http/merge-patch.ts';
import { lifecycleWriter, modelStore } from '../../../platform/lifecycle.ts';
import type { UserService } from '../service.ts';
import { defineOnboardingModels, onboardingLifecycle, type Onboarding } from './models.ts';
import { personSection, requiredOnSubmit, selfStartable } from './rules.ts';
import type { Persona } from '../vocabulary.ts';

export function summaryOf(onboarding: Onboarding) {
  return {
    onboardingId: onboarding.id,
    persona: onboarding.persona,
    status: onboarding.status,
    createdAt: onboarding.createdAt.toISOString(),
    lastUpdatedAt: onboarding.updatedAt.toISOString(),
    completedAt: onboarding.completedAt ? onboarding.completedAt.toISOString() : null,
  };
}

const recordOf = (onboarding: Onboarding) => ({ ...summaryOf(onboarding), data: onboarding.data });

type Hook = (user: { userId: string; email: string }, draft: JsonObject, transaction: Transaction) => Promise<unknown>;

/**
 * What else happens, by persona, in the transaction of an onboarding's submit (creating a centre, an
 * assessor profile) and of a save after it was completed (the settings screens keep saving: the
 * centre follows its owner's draft).
 */
export interface OnboardingHooks {
  submitted: Partial<Record<Persona, Hook>>;
  savedAfterCompletion: Partial<Record<Persona, Hook>>;
}

export function createOnboardingService(sequelize: Sequelize, users: UserService, hooks: OnboardingHooks) {
  const models = defineOnboardingModels(sequelize);
  const { Onboarding } = models;
  const statement = prepared(sequelize);
  const notStarted = (persona: Persona) => notFound(`You have not started the ${persona} onboarding: start it first.`);
  const onboardings = lifecycleWriter(onboardingLifecycle, {
    store: modelStore(Onboarding),
    refuse: (refusal, onboarding) => {
      if (refusal.kind !== 'guard_failed')
        return conflict('onboarding.already_completed', `Your ${onboarding!.persona} onboarding is already complete.`);
      const missing = refusal.details!.length;
      return unprocessable(
        'onboarding.incomplete',
        `Fill in the ${missing === 1 ? 'missing field' : `${missing} missing fields`} before submitting.`,
        refusal.details,
      );
    },
  });

  /** The user's onboarding of `persona`, locked in `transaction`; undefined when they have none. */
  const lockedOf = async (userId: string, persona: Persona, transaction: Transaction) =>
    (
      await instancesOf(Onboarding, 'x.user_id = $1 AND x.persona = $2', [userId, persona], {
        transaction,
        then: 'FOR UPDATE',
      })
    )[0];

  return {
    models,

    async start(userId: string, persona: Persona) {
      if (!selfStartable[persona]) {
        throw forbidden('onboarding.invite_required', `The ${persona} onboarding is by invitation only.`);
      }
      try {
        return summaryOf(
          (await sequelize.transaction((transaction) =>
            onboardings.create(transaction, 'start', { userId, persona }, { by: 'user' }),
          ))!,
        );
      } catch (err) {
        if (err instanceof UniqueConstraintError) {
          throw conflict(
            'onboarding.already_started',
            `You have already started the ${persona} onboarding: continue where you left off.`,
          );
        }
        throw err;
      }
    },

    async mine(userId: string) {
      const onboardings = await Onboarding.findAll({
        where: { userId },
        order: [
          ['createdAt', 'ASC'],
          ['id', 'ASC'],
        ],
      });
      return { onboardings: onboardings.map(summaryOf) };
    },

    async get(userId: string, persona: Persona) {
      const onboarding = await Onboarding.findOne({ where: { userId, persona } });
      if (!onboarding) throw notStarted(persona);
      return recordOf(onboarding);
    },

    /** Merges a partial draft (null removes a field). Settings screens keep saving after completion; the status stays. */
    async save(userId: string, persona: Persona, patch: JsonObject) {
      return sequelize.transaction(async (transaction) => {
        const onboarding = await lockedOf(userId, persona, transaction);
        if (!onboarding) throw notStarted(persona);
        onboarding.data = mergePatch(onboarding.data, patch) as JsonObject;
        onboarding.changed('data', true); // an empty save still counts as a save (lastUpdatedAt moves)
        await savePrepared(onboarding, transaction);
        const saved = hooks.savedAfterCompletion[persona];
        if (saved && onboarding.status === 'completed')
          await saved(
            (await instancesOf(users.models.CapUser, 'x.user_id = $1', [userId], { transaction }))[0]!,
            onboarding.data,
            transaction,
          );
        return recordOf(onboarding);
      });
    },

    /**
     * Completes the onboarding once every required field is there, and creates what the persona's
     * `hooks.submitted` says (the centre with its owner as super admin; the assessor's profile), all in one
     * transaction.
     */
    async submit(userId: string, persona: Persona) {
      return sequelize.transaction(async (transaction) => {
        const onboarding = await lockedOf(userId, persona, transaction);
        if (!onboarding) throw notStarted(persona);
        const missing = missingPaths(onboarding.data, requiredOnSubmit[persona]);
        await onboardings.move(transaction, onboarding, 'submit', {
          by: 'user',
          facts: missing,
          changes: { completedAt: new Date() },
        });
        const create = hooks.submitted[persona];
        if (create)
          await create(
            (await instancesOf(users.models.CapUser, 'x.user_id = $1', [userId], { transaction }))[0]!,
            onboarding.data,
            transaction,
          );
        const section = personSection[persona];
        if (section !== null) {
          const details = (section ? valueAt(onboarding.data, section) : onboarding.data) as JsonObject | undefined;
          if (details) await users.seedProfile(userId, details, transaction);
        }
        return summaryOf(onboarding);
      });
    },

    /**
     * The completed centre onboarding ("centre as staff") the web client needs to let a member into
     * the centre console, made for someone who has no centre onboarding. One they have (a draft of
     * their own centre, or a completed one) is never touched.
     */
    async completeAsStaff(userId: string, centreId: string, transaction: Transaction) {
      await onboardings.create(
        transaction,
        'join_as_staff',
        { id: newId(), userId, persona: 'centre', completedAt: new Date(), data: { variant: 'staff', centreId } },
        { by: 'membership', ignoreDuplicates: true },
      );
    },

    /** The draft of the user's onboarding of `persona`, or null when they have none. */
    async dataOf(userId: string, persona: Persona): Promise<JsonObject | null> {
      const [row] = await statement<{ data: JsonObject }>(
        `SELECT data FROM cap.onboardings WHERE user_id = $1 AND persona = $2 LIMIT 1`,
        [userId, persona],
      );
      return row?.data ?? null;
    },

    /** The drafts of the users' onboardings of `persona`, by user id (those who have one). */
    async dataOfUsers(userIds: string[], persona: Persona): Promise<Map<string, JsonObject>> {
      const rows = userIds.length
        ? await statement<{ userId: string; data: JsonObject }>(
            `SELECT user_id AS "userId", data FROM cap.onboardings WHERE user_id = ANY($1) AND persona = $2`,
            [[...new Set(userIds)], persona],
          )
        : [];
      return new Map(rows.map((row) => [row.userId, row.data]));
    },

    /**
     * Merges a change into the user's onboarding of `persona` (null removes a field), the row locked in
     * the caller's transaction, as the record the onboarding is the other face of changes (a centre's
     * profile, an assessor's). `change` may look at the draft first and answer null to leave it. No
     * onboarding hook runs. False when the user has no such onboarding.
     */
    async patch(
      transaction: Transaction,
      userId: string,
      persona: Persona,
      change: JsonObject | ((data: JsonObject) => JsonObject | null),
    ): Promise<boolean> {
      const onboarding = await lockedOf(userId, persona, transaction);
      if (!onboarding) return false;
      const patch = typeof change === 'function' ? change(onboarding.data) : change;
      if (!patch) return true;
      onboarding.data = mergePatch(onboarding.data, patch) as JsonObject;
      onboarding.changed('data', true);
      await savePrepared(onboarding, transaction);
      return true;
    },

    /** Removes the user's onboarding of `persona` (its profile was deleted: the person may onboard again). */
    async remove(userId: string, persona: Persona, transaction: Transaction): Promise<void> {
      await Onboarding.destroy({ where: { userId, persona }, transaction });
    },
  };
}

export type OnboardingService = ReturnType<typeof createOnboardingService>;

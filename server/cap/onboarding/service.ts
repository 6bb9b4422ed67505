import { UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import { conflict, forbidden, notFound, unprocessable } from '../../platform/http/errors.ts';
import type { CentreService } from '../centres/service.ts';
import { mergePatch, valueAt } from '../merge-patch.ts';
import type { UserService } from '../users/service.ts';
import type { JsonObject, Persona } from '../vocabulary.ts';
import { defineOnboardingModels, type Onboarding } from './models.ts';
import { personSection, requiredOnSubmit, selfStartable } from './rules.ts';

const isBlank = (value: unknown) => value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

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

export function createOnboardingService(sequelize: Sequelize, users: UserService, centres: CentreService) {
  const models = defineOnboardingModels(sequelize);
  const { Onboarding } = models;
  const notStarted = (persona: Persona) => notFound(`You have not started the ${persona} onboarding: start it first.`);

  return {
    models,

    async start(userId: string, persona: Persona) {
      if (!selfStartable[persona]) {
        throw forbidden('onboarding.invite_required', `The ${persona} onboarding is by invitation only.`);
      }
      try {
        return summaryOf(await Onboarding.create({ userId, persona }));
      } catch (err) {
        if (err instanceof UniqueConstraintError) {
          throw conflict('onboarding.already_started', `You have already started the ${persona} onboarding: continue where you left off.`);
        }
        throw err;
      }
    },

    async mine(userId: string) {
      const onboardings = await Onboarding.findAll({ where: { userId }, order: [['createdAt', 'ASC'], ['id', 'ASC']] });
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
        const onboarding = await Onboarding.findOne({ where: { userId, persona }, transaction, lock: transaction.LOCK.UPDATE });
        if (!onboarding) throw notStarted(persona);
        onboarding.data = mergePatch(onboarding.data, patch) as JsonObject;
        onboarding.changed('data', true); // an empty save still counts as a save (lastUpdatedAt moves)
        await onboarding.save({ transaction });
        return recordOf(onboarding);
      });
    },

    /**
     * Completes the onboarding once every required field is there. The centre persona creates its
     * centre and the owner's super_admin membership in the same transaction.
     */
    async submit(userId: string, persona: Persona) {
      return sequelize.transaction(async (transaction) => {
        const onboarding = await Onboarding.findOne({ where: { userId, persona }, transaction, lock: transaction.LOCK.UPDATE });
        if (!onboarding) throw notStarted(persona);
        if (onboarding.status === 'completed') {
          throw conflict('onboarding.already_completed', `Your ${persona} onboarding is already complete.`);
        }
        const missing = requiredOnSubmit[persona].filter((path) => isBlank(valueAt(onboarding.data, path)));
        if (missing.length > 0) {
          throw unprocessable(
            'onboarding.incomplete',
            `Fill in the ${missing.length === 1 ? 'missing field' : `${missing.length} missing fields`} before submitting.`,
            missing.map((field) => ({ field, issue: 'is required' })),
          );
        }
        onboarding.status = 'completed';
        onboarding.completedAt = new Date();
        await onboarding.save({ transaction });
        if (persona === 'centre') {
          const owner = (await users.models.CapUser.findByPk(userId, { transaction }))!;
          await centres.createForOwner(owner, onboarding.data, transaction);
        }
        const section = personSection[persona];
        if (section !== null) {
          const details = (section ? valueAt(onboarding.data, section) : onboarding.data) as JsonObject | undefined;
          if (details) await users.seedProfile(userId, details, transaction);
        }
        return summaryOf(onboarding);
      });
    },

    /**
     * The "centre as staff" onboarding of someone a centre took on: the real client lets a person into a
     * centre only with a completed centre onboarding. A completed one is left as it is; a draft of their
     * own centre is completed as staff, keeping what they had typed.
     */
    async completeAsStaff(userId: string, centreId: string, transaction: Transaction) {
      const staffData = { variant: 'staff', centreId };
      await Onboarding.bulkCreate([{ userId, persona: 'centre', status: 'completed', completedAt: new Date(), data: staffData }], {
        ignoreDuplicates: true,
        transaction,
      });
      const onboarding = (await Onboarding.findOne({ where: { userId, persona: 'centre' }, transaction, lock: transaction.LOCK.UPDATE }))!;
      if (onboarding.status === 'completed') return;
      onboarding.status = 'completed';
      onboarding.completedAt = new Date();
      onboarding.data = { ...onboarding.data, ...staffData };
      await onboarding.save({ transaction });
    },
  };
}

export type OnboardingService = ReturnType<typeof createOnboardingService>;

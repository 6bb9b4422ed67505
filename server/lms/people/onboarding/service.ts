import type { Sequelize, Transaction } from 'sequelize';
import { conflict, forbidden, notFound, validationFailed } from '../../../platform/http/errors.ts';
import { newId } from '../../../platform/ids.ts';
import { lifecycleWriter, modelStore, type MoverOf } from '../../../platform/lifecycle.ts';
import type { LmsUser } from '../users/models.ts';
import { defineOnboardingModels, type LmsOnboarding } from './models.ts';
import {
  currentSchemaVersion,
  formSections,
  missingFields,
  onboardingLifecycle,
  openToAll,
  requiredOnSubmit,
  type LmsPersona,
  type OnboardingData,
} from './rules.ts';

export type Onboarding = ReturnType<typeof createOnboarding>;

/** Accepts the account's pending invite for a persona that needs one; false when there is none. */
export type InviteAcceptor = (user: LmsUser, persona: LmsPersona, transaction: Transaction) => Promise<boolean>;

/** Per-persona onboarding: start (or resume) a draft, merge saves into it, submit it. */
export function createOnboarding(sequelize: Sequelize, acceptInvite: InviteAcceptor = async () => false) {
  const { LmsOnboarding, LmsProfile } = defineOnboardingModels(sequelize);

  const find = (user: LmsUser, persona: LmsPersona) =>
    LmsOnboarding.findOne({ where: { lmsUserId: user.id, persona } });
  const alreadyCompleted = (persona: LmsPersona) =>
    conflict('lms.onboarding.already_completed', `The ${persona} onboarding of this account is already completed.`);
  const notStarted = (persona: LmsPersona) =>
    notFound(`The ${persona} onboarding of this account has not been started.`);
  const onboardings = lifecycleWriter(onboardingLifecycle, {
    store: modelStore(LmsOnboarding),
    refuse: (refusal, record) =>
      refusal.kind === 'guard_failed'
        ? validationFailed(
            refusal.details!,
            `Fill in every required field of the ${record!.persona} onboarding before submitting it.`,
          )
        : alreadyCompleted(record!.persona),
  });

  /**
   * A new draft, or the existing one; two concurrent starts end with one draft (unique user + persona).
   * A persona that needs an invite accepts the account's pending invite in the same transaction.
   */
  async function start(user: LmsUser, persona: LmsPersona, by: MoverOf<typeof onboardingLifecycle> = 'user') {
    const existing = await find(user, persona);
    if (existing?.status === 'completed') throw alreadyCompleted(persona);
    if (existing) return summary(existing);
    await sequelize.transaction(async (transaction) => {
      if (!openToAll[persona] && !(await acceptInvite(user, persona, transaction))) {
        throw forbidden(
          'lms.invite.required',
          `A ${persona} onboarding can only be started from an accepted ${persona} invite.`,
        );
      }
      const draft = {
        id: newId(),
        lmsUserId: user.id,
        persona,
        data: { schemaVersion: currentSchemaVersion },
        completedAt: null,
      };
      await onboardings.create(transaction, 'start', draft, { by, ignoreDuplicates: true });
    });
    return summary((await find(user, persona))!);
  }

  async function mine(user: LmsUser) {
    const records = await LmsOnboarding.findAll({
      where: { lmsUserId: user.id },
      order: [
        ['createdAt', 'ASC'],
        ['id', 'ASC'],
      ],
    });
    return records.map(summary);
  }

  async function get(user: LmsUser, persona: LmsPersona) {
    const record = await find(user, persona);
    if (!record) throw notStarted(persona);
    return full(record);
  }

  /** Merges the patch into the draft; the row is locked so concurrent saves do not lose each other's fields. */
  async function save(user: LmsUser, persona: LmsPersona, patch: Record<string, unknown>) {
    const foreign = Object.keys(patch).filter((field) => !formSections[persona].includes(field));
    if (foreign.length)
      throw validationFailed(foreign.map((field) => ({ field, issue: `is not part of the ${persona} onboarding` })));
    return sequelize.transaction(async (transaction) => {
      const record = await LmsOnboarding.findOne({
        where: { lmsUserId: user.id, persona },
        transaction,
        lock: transaction.LOCK.UPDATE,
      });
      if (!record) throw notStarted(persona);
      if (record.status === 'completed') throw alreadyCompleted(persona);
      const data = mergePatch(record.data, patch) as OnboardingData;
      if (!requiredOnSubmit[data.schemaVersion]) {
        throw validationFailed([
          { field: 'schemaVersion', issue: `must be one of: ${Object.keys(requiredOnSubmit).join(', ')}` },
        ]);
      }
      record.data = data;
      record.changed('data', true);
      await record.save({ transaction });
      return full(record);
    });
  }

  /** Completes the onboarding when every required field is filled in, and creates the persona's profile. */
  async function submit(user: LmsUser, persona: LmsPersona) {
    return sequelize.transaction(async (transaction) => {
      const record = await LmsOnboarding.findOne({
        where: { lmsUserId: user.id, persona },
        transaction,
        lock: transaction.LOCK.UPDATE,
      });
      if (!record) throw notStarted(persona);
      await onboardings.move(transaction, record, 'submit', {
        by: 'user',
        facts: missingFields(persona, record.data),
        changes: { completedAt: new Date() },
      });
      await LmsProfile.bulkCreate([{ id: newId(), lmsUserId: user.id, persona }], {
        ignoreDuplicates: true,
        transaction,
      });
      return summary(record);
    });
  }

  /** Each started persona with its onboarding state and, once completed, its profile id. */
  async function personaStatuses(user: Pick<LmsUser, 'id'>) {
    const [records, profiles] = await Promise.all([
      LmsOnboarding.findAll({
        where: { lmsUserId: user.id },
        order: [
          ['createdAt', 'ASC'],
          ['id', 'ASC'],
        ],
      }),
      LmsProfile.findAll({ where: { lmsUserId: user.id } }),
    ]);
    return records.map((r) => ({
      persona: r.persona,
      onboardingStatus: r.status,
      profileId: profiles.find((p) => p.persona === r.persona)?.id ?? null,
    }));
  }

  return { start, mine, get, save, submit, personaStatuses };
}

function summary(record: LmsOnboarding) {
  return {
    onboardingId: record.id,
    persona: record.persona,
    status: record.status,
    createdAt: record.createdAt.toISOString(),
    lastUpdatedAt: record.updatedAt.toISOString(),
    completedAt: record.completedAt?.toISOString() ?? null,
  };
}

function full(record: LmsOnboarding) {
  return { ...summary(record), data: record.data };
}

/** Objects merge key by key; anything else (text, numbers, lists) replaces what was there. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch) || !isObject(target)) return patch;
  const merged: Record<string, unknown> = { ...target };
  for (const [key, value] of Object.entries(patch)) merged[key] = mergePatch(target[key], value);
  return merged;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

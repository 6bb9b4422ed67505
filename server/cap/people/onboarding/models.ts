import {
  DataTypes,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
} from 'sequelize';
import { newId } from '../../../platform/ids.ts';
import type { JsonObject } from '../../../platform/http/merge-patch.ts';
import { defineLifecycle } from '../../../platform/lifecycle.ts';
import type { Persona, OnboardingStatus } from '../vocabulary.ts';

/**
 * An onboarding, as data: the user starts a `draft` and submits it, `completed`, once every required
 * field is there (guard `filled_in`, 422 `onboarding.incomplete` naming the missing ones); completed is
 * final (409 `onboarding.already_completed`). A centre membership that becomes active brings a
 * completed centre onboarding ("centre as staff") to someone who has none.
 */
export const onboardingLifecycle = defineLifecycle({
  subject: 'onboarding',
  statuses: ['draft', 'completed'],
  movers: ['user', 'membership'],
  moves: {
    start: { from: [null], to: 'draft', by: ['user'] },
    join_as_staff: { from: [null], to: 'completed', by: ['membership'] },
    submit: { from: ['draft'], to: 'completed', by: ['user'], guards: ['filled_in'] },
  },
  guards: {
    filled_in: (missing: string[]) =>
      missing.length
        ? { reason: 'required fields are missing', details: missing.map((field) => ({ field, issue: 'is required' })) }
        : undefined,
  },
});

/** One user's onboarding for one persona: a draft merged by saves, completed once by submit. */
export interface Onboarding extends Model<InferAttributes<Onboarding>, InferCreationAttributes<Onboarding>> {
  id: CreationOptional<string>;
  userId: string;
  persona: Persona;
  status: CreationOptional<OnboardingStatus>;
  data: CreationOptional<JsonObject>;
  completedAt: CreationOptional<Date | null>;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

export function defineOnboardingModels(sequelize: Sequelize) {
  const Onboarding: ModelStatic<Onboarding> = sequelize.define<Onboarding>(
    'Onboarding',
    {
      id: { type: DataTypes.STRING(26), primaryKey: true, defaultValue: () => newId() },
      userId: { type: DataTypes.STRING(26), allowNull: false },
      persona: { type: DataTypes.STRING(16), allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'draft' },
      data: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
      completedAt: { type: DataTypes.DATE, allowNull: true },
      createdAt: DataTypes.DATE,
      updatedAt: DataTypes.DATE,
    },
    { tableName: 'onboardings' },
  );
  return { Onboarding };
}

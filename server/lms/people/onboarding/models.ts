import {
  DataTypes,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
} from 'sequelize';
import type { LmsPersona, OnboardingData, OnboardingStatus } from './rules.ts';
import { id, reference, timestamps } from '../../../platform/db/columns.ts';

/** One persona's onboarding of one LMS user: a draft form that becomes completed on submit. */
export interface LmsOnboarding extends Model<InferAttributes<LmsOnboarding>, InferCreationAttributes<LmsOnboarding>> {
  id: string;
  lmsUserId: string;
  persona: LmsPersona;
  status: OnboardingStatus;
  data: OnboardingData;
  completedAt: Date | null;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

/** The profile a persona gets when its onboarding is completed. */
export interface LmsProfile extends Model<InferAttributes<LmsProfile>, InferCreationAttributes<LmsProfile>> {
  id: string;
  lmsUserId: string;
  persona: LmsPersona;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

export function defineOnboardingModels(sequelize: Sequelize) {
  const LmsOnboarding = sequelize.define<LmsOnboarding>(
    'LmsOnboarding',
    {
      id: id(),
      lmsUserId: reference(),
      persona: { type: DataTypes.STRING(16), allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false },
      data: { type: DataTypes.JSONB, allowNull: false },
      completedAt: { type: DataTypes.DATE, allowNull: true },
      ...timestamps(),
    },
    { tableName: 'lms_onboardings' },
  );
  const LmsProfile = sequelize.define<LmsProfile>(
    'LmsProfile',
    {
      id: id(),
      lmsUserId: reference(),
      persona: { type: DataTypes.STRING(16), allowNull: false },
      ...timestamps(),
    },
    { tableName: 'lms_profiles' },
  );
  return {
    LmsOnboarding: LmsOnboarding as ModelStatic<LmsOnboarding>,
    LmsProfile: LmsProfile as ModelStatic<LmsProfile>,
  };
}

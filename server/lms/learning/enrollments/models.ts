import {
  DataTypes,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
} from 'sequelize';
import { id, optionalText, reference, timestamps } from '../../../platform/db/columns.ts';

export const entitlementSources = [
  'self_pay',
  'admin_grant',
  'cap_recommendation',
  'sponsor',
  'level_offering',
  'organization_seat',
] as const;
export type EntitlementSource = (typeof entitlementSources)[number];
export const entitlementStatuses = ['pending', 'active', 'revoked', 'expired'] as const;
export type EntitlementStatus = (typeof entitlementStatuses)[number];
export const enrollmentStatuses = ['pending', 'active', 'completed', 'expired', 'withdrawn'] as const;
export type EnrollmentStatus = (typeof enrollmentStatuses)[number];

/** A learner's right to take a course, one per learner and course; `source` says where it came from. */
export interface Entitlement extends Model<InferAttributes<Entitlement>, InferCreationAttributes<Entitlement>> {
  id: string;
  courseId: string;
  learnerLmsUserId: string;
  source: EntitlementSource;
  status: EntitlementStatus;
  sponsorUserId: string | null;
  sponsorNote: string | null;
  paymentId: string | null;
  capApplicationId: string | null;
  /** The amount at the time of the grant (not the live course price); zero when nobody paid. */
  amountMinorUnits: string;
  currency: string;
  priceRevisionId: string | null;
  validFrom: Date | null;
  validUntil: Date | null;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

/** A learner taking a course: pending until an entitlement activates it. */
export interface Enrollment extends Model<InferAttributes<Enrollment>, InferCreationAttributes<Enrollment>> {
  id: string;
  courseId: string;
  learnerLmsUserId: string;
  status: EnrollmentStatus;
  percentComplete: number;
  entitlementId: string | null;
  completedAt: Date | null;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

const defined = new WeakMap<Sequelize, ReturnType<typeof define>>();

/** The enrollment models of the LMS, defined once per Sequelize instance (several areas use them). */
export function defineEnrollmentModels(sequelize: Sequelize) {
  let models = defined.get(sequelize);
  if (!models) defined.set(sequelize, (models = define(sequelize)));
  return models;
}

function define(sequelize: Sequelize) {
  const Entitlement = sequelize.define<Entitlement>(
    'LmsEntitlement',
    {
      id: id(),
      courseId: reference(),
      learnerLmsUserId: reference(),
      source: { type: DataTypes.STRING(24), allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false },
      sponsorUserId: optionalText(64),
      sponsorNote: optionalText(1000),
      paymentId: optionalText(64),
      capApplicationId: optionalText(64),
      amountMinorUnits: { type: DataTypes.BIGINT, allowNull: false },
      currency: { type: DataTypes.STRING(3), allowNull: false },
      priceRevisionId: optionalText(64),
      validFrom: { type: DataTypes.DATE, allowNull: true },
      validUntil: { type: DataTypes.DATE, allowNull: true },
      ...timestamps(),
    },
    { tableName: 'lms_entitlements' },
  );
  const Enrollment = sequelize.define<Enrollment>(
    'LmsEnrollment',
    {
      id: id(),
      courseId: reference(),
      learnerLmsUserId: reference(),
      status: { type: DataTypes.STRING(16), allowNull: false },
      percentComplete: { type: DataTypes.INTEGER, allowNull: false },
      entitlementId: reference(true),
      completedAt: { type: DataTypes.DATE, allowNull: true },
      ...timestamps(),
    },
    { tableName: 'lms_enrollments' },
  );
  return { Entitlement: Entitlement as ModelStatic<Entitlement>, Enrollment: Enrollment as ModelStatic<Enrollment> };
}

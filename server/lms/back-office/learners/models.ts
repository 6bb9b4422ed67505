import { defineLifecycle } from '../../../platform/lifecycle.ts';
import {
  DataTypes,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
} from 'sequelize';
import { id, reference, timestamps } from '../../../platform/db/columns.ts';

/** An organisation, as data: registered `active` by staff. Archiving is not offered yet. */
export const organizationLifecycle = defineLifecycle({
  subject: 'organization',
  statuses: ['active', 'archived'],
  movers: ['staff'],
  moves: { register: { from: [null], to: 'active', by: ['staff'] } },
});

/** An organisation that sponsors learners (seat allocations). */
export interface Organization extends Model<InferAttributes<Organization>, InferCreationAttributes<Organization>> {
  id: string;
  name: string;
  email: string;
  description: string | null;
  status: (typeof organizationLifecycle.statuses)[number];
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

/** Seats an organisation pays for; learners placed on them get the allocation's courses. */
export interface SeatAllocation extends Model<
  InferAttributes<SeatAllocation>,
  InferCreationAttributes<SeatAllocation>
> {
  id: string;
  organizationId: string;
  totalSlots: number;
  createdBy: string | null;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

export interface SeatAllocationCourse extends Model<
  InferAttributes<SeatAllocationCourse>,
  InferCreationAttributes<SeatAllocationCourse>
> {
  id: string;
  allocationId: string;
  courseId: string;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

/** One learner on one seat of an allocation. */
export interface Seat extends Model<InferAttributes<Seat>, InferCreationAttributes<Seat>> {
  id: string;
  allocationId: string;
  lmsUserId: string;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

const defined = new WeakMap<Sequelize, ReturnType<typeof define>>();

export function defineLearnerModels(sequelize: Sequelize) {
  let models = defined.get(sequelize);
  if (!models) defined.set(sequelize, (models = define(sequelize)));
  return models;
}

function define(sequelize: Sequelize) {
  const Organization = sequelize.define<Organization>(
    'LmsOrganization',
    {
      id: id(),
      name: { type: DataTypes.STRING(200), allowNull: false },
      email: { type: DataTypes.STRING(320), allowNull: false },
      description: { type: DataTypes.STRING(2000), allowNull: true },
      status: { type: DataTypes.STRING(16), allowNull: false },
      ...timestamps(),
    },
    { tableName: 'lms_organizations' },
  );
  const SeatAllocation = sequelize.define<SeatAllocation>(
    'LmsSeatAllocation',
    {
      id: id(),
      organizationId: reference(),
      totalSlots: { type: DataTypes.INTEGER, allowNull: false },
      createdBy: reference(true),
      ...timestamps(),
    },
    { tableName: 'lms_seat_allocations' },
  );
  const SeatAllocationCourse = sequelize.define<SeatAllocationCourse>(
    'LmsSeatAllocationCourse',
    { id: id(), allocationId: reference(), courseId: reference(), ...timestamps() },
    { tableName: 'lms_seat_allocation_courses' },
  );
  const Seat = sequelize.define<Seat>(
    'LmsSeat',
    { id: id(), allocationId: reference(), lmsUserId: reference(), ...timestamps() },
    { tableName: 'lms_seats' },
  );
  return {
    Organization: Organization as ModelStatic<Organization>,
    SeatAllocation: SeatAllocation as ModelStatic<SeatAllocation>,
    SeatAllocationCourse: SeatAllocationCourse as ModelStatic<SeatAllocationCourse>,
    Seat: Seat as ModelStatic<Seat>,
  };
}

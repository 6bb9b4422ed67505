import {
  DataTypes,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
} from 'sequelize';
import { newId } from '../../platform/ids.ts';
import type { AssignmentRole } from './assignments.ts';
import type { JobApplicationStatus, JobPostingStatus, PreferredRole, RetainedRequestStatus } from './lifecycles.ts';
import type { ModerationStatus } from '../people/index.ts';

/** An assessor as the platform knows them: one per user, moderated by platform admins. */
export interface AssessorProfile extends Model<
  InferAttributes<AssessorProfile>,
  InferCreationAttributes<AssessorProfile>
> {
  id: string;
  userId: string;
  status: CreationOptional<ModerationStatus>;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

/** An assessor's part in one application at one centre; ended rather than deleted. */
export interface ApplicationAssessor extends Model<
  InferAttributes<ApplicationAssessor>,
  InferCreationAttributes<ApplicationAssessor>
> {
  id: CreationOptional<string>;
  applicationId: string;
  assessorId: string;
  centreId: string;
  role: AssignmentRole;
  lead: CreationOptional<boolean>;
  assignedBy: string | null;
  assignedAt: CreationOptional<Date>;
  endedAt: CreationOptional<Date | null>;
}

export interface AssessorSector extends Model<
  InferAttributes<AssessorSector>,
  InferCreationAttributes<AssessorSector>
> {
  assessorId: string;
  sectorId: string;
  createdAt: CreationOptional<Date>;
}

export interface RetainedRequest extends Model<
  InferAttributes<RetainedRequest>,
  InferCreationAttributes<RetainedRequest>
> {
  id: CreationOptional<string>;
  assessorId: string;
  centreId: string;
  preferredRole: PreferredRole;
  status: RetainedRequestStatus;
  respondedAt: CreationOptional<Date | null>;
  respondedBy: CreationOptional<string | null>;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

export interface JobPosting extends Model<InferAttributes<JobPosting>, InferCreationAttributes<JobPosting>> {
  id: CreationOptional<string>;
  centreId: string;
  tradeId: string;
  title: string;
  slot: number;
  deadline: Date;
  description: string;
  requirements: string[];
  duration: string | null;
  status: JobPostingStatus;
  createdBy: string;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

export interface JobPostingApplication extends Model<
  InferAttributes<JobPostingApplication>,
  InferCreationAttributes<JobPostingApplication>
> {
  id: CreationOptional<string>;
  jobPostingId: string;
  assessorId: string;
  status: JobApplicationStatus;
  decidedAt: CreationOptional<Date | null>;
  decidedBy: CreationOptional<string | null>;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

const id = { type: DataTypes.STRING(26), primaryKey: true, defaultValue: () => newId() };

export function defineAssessorModels(sequelize: Sequelize) {
  const AssessorProfile: ModelStatic<AssessorProfile> = sequelize.define<AssessorProfile>(
    'AssessorProfile',
    {
      id: { type: DataTypes.STRING(26), primaryKey: true },
      userId: { type: DataTypes.STRING(26), allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'pending' },
      createdAt: DataTypes.DATE,
      updatedAt: DataTypes.DATE,
    },
    { tableName: 'assessor_profiles' },
  );
  const ApplicationAssessor: ModelStatic<ApplicationAssessor> = sequelize.define<ApplicationAssessor>(
    'ApplicationAssessor',
    {
      id,
      applicationId: DataTypes.STRING(26),
      assessorId: DataTypes.STRING(26),
      centreId: DataTypes.STRING(26),
      role: DataTypes.STRING(20),
      lead: { type: DataTypes.BOOLEAN, defaultValue: false },
      assignedBy: DataTypes.STRING(26),
      assignedAt: { type: DataTypes.DATE, defaultValue: DataTypes.NOW },
      endedAt: { type: DataTypes.DATE, defaultValue: null },
    },
    { tableName: 'application_assessors', timestamps: false },
  );
  const AssessorSector: ModelStatic<AssessorSector> = sequelize.define<AssessorSector>(
    'AssessorSector',
    {
      assessorId: { type: DataTypes.STRING(26), primaryKey: true },
      sectorId: { type: DataTypes.STRING(26), primaryKey: true },
      createdAt: DataTypes.DATE,
    },
    { tableName: 'assessor_sectors', updatedAt: false },
  );
  const RetainedRequest: ModelStatic<RetainedRequest> = sequelize.define<RetainedRequest>(
    'RetainedRequest',
    {
      id,
      assessorId: DataTypes.STRING(26),
      centreId: DataTypes.STRING(26),
      preferredRole: DataTypes.STRING(24),
      status: DataTypes.STRING(16),
      respondedAt: { type: DataTypes.DATE, defaultValue: null },
      respondedBy: { type: DataTypes.STRING(26), defaultValue: null },
      createdAt: DataTypes.DATE,
      updatedAt: DataTypes.DATE,
    },
    { tableName: 'retained_requests' },
  );
  const JobPosting: ModelStatic<JobPosting> = sequelize.define<JobPosting>(
    'JobPosting',
    {
      id,
      centreId: DataTypes.STRING(26),
      tradeId: DataTypes.STRING(26),
      title: DataTypes.STRING(200),
      slot: DataTypes.INTEGER,
      deadline: DataTypes.DATE,
      description: DataTypes.TEXT,
      requirements: DataTypes.JSONB,
      duration: DataTypes.STRING(100),
      status: DataTypes.STRING(16),
      createdBy: DataTypes.STRING(26),
      createdAt: DataTypes.DATE,
      updatedAt: DataTypes.DATE,
    },
    { tableName: 'job_postings' },
  );
  const JobPostingApplication: ModelStatic<JobPostingApplication> = sequelize.define<JobPostingApplication>(
    'JobPostingApplication',
    {
      id,
      jobPostingId: DataTypes.STRING(26),
      assessorId: DataTypes.STRING(26),
      status: DataTypes.STRING(16),
      decidedAt: { type: DataTypes.DATE, defaultValue: null },
      decidedBy: { type: DataTypes.STRING(26), defaultValue: null },
      createdAt: DataTypes.DATE,
      updatedAt: DataTypes.DATE,
    },
    { tableName: 'job_posting_applications' },
  );
  return { AssessorProfile, ApplicationAssessor, AssessorSector, RetainedRequest, JobPosting, JobPostingApplication };
}

export type AssessorModels = ReturnType<typeof defineAssessorModels>;

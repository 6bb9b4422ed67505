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
import type {
  AppealStatus,
  InterviewDecision,
  InterviewFormType,
  InterviewMode,
  InterviewStatus,
  SignatureMode,
} from './rules.ts';
import type { JsonObject } from '../../../platform/http/merge-patch.ts';

/** A seat of a panel as the client shows it. */
export interface PanelSeat {
  assessorId: string;
  isLead: boolean;
  isObserver: boolean;
}

/** Where and how a sitting takes place (the schedule input). */
interface Sitting {
  mode: InterviewMode | null;
  location: string | null;
  link: string | null;
  useCentreAddress: CreationOptional<boolean>;
}

/** A centre's reusable panel: three voters (one lead) and an IV observer, copied onto applications. */
export interface CentrePanel extends Model<InferAttributes<CentrePanel>, InferCreationAttributes<CentrePanel>> {
  id: CreationOptional<string>;
  centreId: string;
  name: string;
  members: PanelSeat[];
  createdBy: string;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

/** A centre's interview template: a panel, a clock and a place; its clock is the earliest a sitting made from it may be. */
export interface InterviewTemplate
  extends Model<InferAttributes<InterviewTemplate>, InferCreationAttributes<InterviewTemplate>>, Sitting {
  id: CreationOptional<string>;
  centreId: string;
  panelId: string;
  title: string;
  scheduledAt: Date;
  createdBy: string;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

/** The interview of one application: its sitting, the lead's decision, the round, gap training. */
export interface ApplicationInterview
  extends Model<InferAttributes<ApplicationInterview>, InferCreationAttributes<ApplicationInterview>>, Sitting {
  id: CreationOptional<string>;
  applicationId: string;
  centreId: string;
  templateId: CreationOptional<string | null>;
  scheduledAt: CreationOptional<Date | null>;
  status: InterviewStatus;
  round: CreationOptional<number>;
  decision: CreationOptional<InterviewDecision | null>;
  decidedBy: CreationOptional<string | null>;
  decidedAt: CreationOptional<Date | null>;
  /** The NOS units the panel found not yet competent (the lead names them with that decision); null when none were named. */
  gapUnitIds: CreationOptional<string[] | null>;
  gapTrainingClosedAt: CreationOptional<Date | null>;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

export interface InterviewForm extends Model<InferAttributes<InterviewForm>, InferCreationAttributes<InterviewForm>> {
  id: CreationOptional<string>;
  applicationId: string;
  formType: InterviewFormType;
  data: JsonObject;
  status: 'draft' | 'completed';
  /** The assessor profile of the lead who wrote it. */
  populatedBy: string;
  candidateSignatureAssetId: CreationOptional<string | null>;
  candidateSignedAt: CreationOptional<Date | null>;
  signatureMode: CreationOptional<SignatureMode | null>;
  typedSignatureName: CreationOptional<string | null>;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

export interface InterviewEvaluation extends Model<
  InferAttributes<InterviewEvaluation>,
  InferCreationAttributes<InterviewEvaluation>
> {
  id: CreationOptional<string>;
  applicationId: string;
  round: number;
  assessorId: string;
  feedback: string;
  signatureAssetId: string;
  createdAt: CreationOptional<Date>;
}

export interface Appeal extends Model<InferAttributes<Appeal>, InferCreationAttributes<Appeal>> {
  id: CreationOptional<string>;
  applicationId: string;
  stageKey: string;
  status: AppealStatus;
  comment: string;
  raisedBy: string;
  resolutionComment: CreationOptional<string | null>;
  resolvedBy: CreationOptional<string | null>;
  resolvedAt: CreationOptional<Date | null>;
  createdAt: CreationOptional<Date>;
}

const id = { type: DataTypes.STRING(26), primaryKey: true, defaultValue: () => newId() };
const sitting = {
  mode: DataTypes.STRING(16),
  location: DataTypes.STRING(500),
  link: DataTypes.STRING(1000),
  useCentreAddress: { type: DataTypes.BOOLEAN, defaultValue: false },
};

export function defineInterviewModels(sequelize: Sequelize) {
  const CentrePanel: ModelStatic<CentrePanel> = sequelize.define<CentrePanel>(
    'CentrePanel',
    {
      id,
      centreId: DataTypes.STRING(26),
      name: DataTypes.STRING(200),
      members: DataTypes.JSONB,
      createdBy: DataTypes.STRING(26),
      createdAt: DataTypes.DATE,
      updatedAt: DataTypes.DATE,
    },
    { tableName: 'centre_panels' },
  );
  const InterviewTemplate: ModelStatic<InterviewTemplate> = sequelize.define<InterviewTemplate>(
    'InterviewTemplate',
    {
      id,
      centreId: DataTypes.STRING(26),
      panelId: DataTypes.STRING(26),
      title: DataTypes.STRING(200),
      scheduledAt: DataTypes.DATE,
      ...sitting,
      createdBy: DataTypes.STRING(26),
      createdAt: DataTypes.DATE,
      updatedAt: DataTypes.DATE,
    },
    { tableName: 'interview_templates' },
  );
  const ApplicationInterview: ModelStatic<ApplicationInterview> = sequelize.define<ApplicationInterview>(
    'ApplicationInterview',
    {
      id,
      applicationId: DataTypes.STRING(26),
      centreId: DataTypes.STRING(26),
      templateId: { type: DataTypes.STRING(26), defaultValue: null },
      scheduledAt: { type: DataTypes.DATE, defaultValue: null },
      ...sitting,
      status: DataTypes.STRING(16),
      round: { type: DataTypes.INTEGER, defaultValue: 1 },
      decision: { type: DataTypes.STRING(24), defaultValue: null },
      decidedBy: { type: DataTypes.STRING(26), defaultValue: null },
      decidedAt: { type: DataTypes.DATE, defaultValue: null },
      gapUnitIds: { type: DataTypes.JSONB, defaultValue: null },
      gapTrainingClosedAt: { type: DataTypes.DATE, defaultValue: null },
      createdAt: DataTypes.DATE,
      updatedAt: DataTypes.DATE,
    },
    { tableName: 'application_interviews' },
  );
  const InterviewForm: ModelStatic<InterviewForm> = sequelize.define<InterviewForm>(
    'InterviewForm',
    {
      id,
      applicationId: DataTypes.STRING(26),
      formType: DataTypes.STRING(32),
      data: DataTypes.JSONB,
      status: DataTypes.STRING(16),
      populatedBy: DataTypes.STRING(26),
      candidateSignatureAssetId: { type: DataTypes.STRING(64), defaultValue: null },
      candidateSignedAt: { type: DataTypes.DATE, defaultValue: null },
      signatureMode: { type: DataTypes.STRING(16), defaultValue: null },
      typedSignatureName: { type: DataTypes.STRING(200), defaultValue: null },
      createdAt: DataTypes.DATE,
      updatedAt: DataTypes.DATE,
    },
    { tableName: 'interview_forms' },
  );
  const InterviewEvaluation: ModelStatic<InterviewEvaluation> = sequelize.define<InterviewEvaluation>(
    'InterviewEvaluation',
    {
      id,
      applicationId: DataTypes.STRING(26),
      round: DataTypes.INTEGER,
      assessorId: DataTypes.STRING(26),
      feedback: DataTypes.TEXT,
      signatureAssetId: DataTypes.STRING(64),
      createdAt: DataTypes.DATE,
    },
    { tableName: 'interview_evaluations', updatedAt: false },
  );
  const Appeal: ModelStatic<Appeal> = sequelize.define<Appeal>(
    'Appeal',
    {
      id,
      applicationId: DataTypes.STRING(26),
      stageKey: DataTypes.STRING(40),
      status: DataTypes.STRING(24),
      comment: DataTypes.TEXT,
      raisedBy: DataTypes.STRING(26),
      resolutionComment: { type: DataTypes.TEXT, defaultValue: null },
      resolvedBy: { type: DataTypes.STRING(26), defaultValue: null },
      resolvedAt: { type: DataTypes.DATE, defaultValue: null },
      createdAt: DataTypes.DATE,
    },
    { tableName: 'appeals', updatedAt: false },
  );
  return { CentrePanel, InterviewTemplate, ApplicationInterview, InterviewForm, InterviewEvaluation, Appeal };
}

export type InterviewModels = ReturnType<typeof defineInterviewModels>;

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
import type { ApplicationStatus, StageKey, StageStatus } from './lifecycle.ts';
import type { JsonObject } from '../../platform/http/merge-patch.ts';
import type { ApplicationType } from './vocabulary.ts';

export interface Application extends Model<InferAttributes<Application>, InferCreationAttributes<Application>> {
  id: CreationOptional<string>;
  candidateUserId: string;
  centreId: string;
  type: ApplicationType;
  status: ApplicationStatus;
  currentStageKey: StageKey;
  sectorId: string;
  tradeId: string;
  nosDocumentId: string | null;
  /** {personalInformation, experienceAndTrade, assessmentDeclaration}, as the client sends them. */
  draft: JsonObject;
  submittedAt: CreationOptional<Date | null>;
  /** The awarding body the centre forwarded it to, and when (verification/service.ts). */
  awardingBodyId: CreationOptional<string | null>;
  forwardedAt: CreationOptional<Date | null>;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

export interface ApplicationStageRow extends Model<
  InferAttributes<ApplicationStageRow>,
  InferCreationAttributes<ApplicationStageRow>
> {
  applicationId: string;
  stageKey: StageKey;
  position: number;
  status: StageStatus;
  enteredAt: Date | null;
  completedAt: Date | null;
}

export interface ApplicationMove extends Model<
  InferAttributes<ApplicationMove>,
  InferCreationAttributes<ApplicationMove>
> {
  id: CreationOptional<string>;
  applicationId: string;
  action: string;
  fromStage: string;
  toStage: string;
  actorUserId: string | null;
  actor: string;
  feedback: string | null;
  /** The review outcome the move records (APPROVED, REJECTED), else null. */
  status: string | null;
  createdAt: CreationOptional<Date>;
}

export interface ApplicationVersion extends Model<
  InferAttributes<ApplicationVersion>,
  InferCreationAttributes<ApplicationVersion>
> {
  id: CreationOptional<string>;
  applicationId: string;
  versionNo: number;
  data: JsonObject;
  submittedBy: string;
  feedback: string | null;
  createdAt: CreationOptional<Date>;
}

const id = { type: DataTypes.STRING(26), primaryKey: true, defaultValue: () => newId() };

export function defineApplicationModels(sequelize: Sequelize) {
  const Application: ModelStatic<Application> = sequelize.define<Application>(
    'Application',
    {
      id,
      candidateUserId: DataTypes.STRING(26),
      centreId: DataTypes.STRING(26),
      type: DataTypes.STRING(8),
      status: DataTypes.STRING(16),
      currentStageKey: DataTypes.STRING(40),
      sectorId: DataTypes.STRING(26),
      tradeId: DataTypes.STRING(26),
      nosDocumentId: DataTypes.STRING(26),
      draft: DataTypes.JSONB,
      submittedAt: DataTypes.DATE,
      awardingBodyId: DataTypes.STRING(26),
      forwardedAt: DataTypes.DATE,
      createdAt: DataTypes.DATE,
      updatedAt: DataTypes.DATE,
    },
    { tableName: 'applications' },
  );
  const ApplicationStageRow: ModelStatic<ApplicationStageRow> = sequelize.define<ApplicationStageRow>(
    'ApplicationStageRow',
    {
      applicationId: { type: DataTypes.STRING(26), primaryKey: true },
      stageKey: { type: DataTypes.STRING(40), primaryKey: true },
      position: DataTypes.INTEGER,
      status: DataTypes.STRING(20),
      enteredAt: DataTypes.DATE,
      completedAt: DataTypes.DATE,
    },
    { tableName: 'application_stages', timestamps: false },
  );
  const ApplicationMove: ModelStatic<ApplicationMove> = sequelize.define<ApplicationMove>(
    'ApplicationMove',
    {
      id,
      applicationId: DataTypes.STRING(26),
      action: DataTypes.STRING(32),
      fromStage: DataTypes.STRING(40),
      toStage: DataTypes.STRING(40),
      actorUserId: DataTypes.STRING(26),
      actor: DataTypes.STRING(24),
      feedback: DataTypes.TEXT,
      status: DataTypes.STRING(16),
      createdAt: DataTypes.DATE,
    },
    { tableName: 'application_moves', updatedAt: false },
  );
  const ApplicationVersion: ModelStatic<ApplicationVersion> = sequelize.define<ApplicationVersion>(
    'ApplicationVersion',
    {
      id,
      applicationId: DataTypes.STRING(26),
      versionNo: DataTypes.INTEGER,
      data: DataTypes.JSONB,
      submittedBy: DataTypes.STRING(26),
      feedback: DataTypes.TEXT,
      createdAt: DataTypes.DATE,
    },
    { tableName: 'application_versions', updatedAt: false },
  );
  return { Application, ApplicationStageRow, ApplicationMove, ApplicationVersion };
}

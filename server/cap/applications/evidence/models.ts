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

/** A piece of general evidence: typed by one of the trade's evidence types; a file, a form, a text, or some of them. */
export interface GeneralEvidence extends Model<
  InferAttributes<GeneralEvidence>,
  InferCreationAttributes<GeneralEvidence>
> {
  id: CreationOptional<string>;
  applicationId: string;
  documentName: string;
  evidenceType: string;
  assetId: string | null;
  formData: JsonObject | null;
  textValue: string | null;
  createdBy: string;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

/** The candidate's self-assessment of an application: saved as often as they like, frozen on submit. */
export interface SelfAssessment extends Model<
  InferAttributes<SelfAssessment>,
  InferCreationAttributes<SelfAssessment>
> {
  id: CreationOptional<string>;
  applicationId: string;
  competencies: JsonObject[];
  reflection: JsonObject | null;
  declaration: JsonObject | null;
  /** The candidate's personal information as it was when they submitted. */
  frozenPersonalInformation: JsonObject | null;
  submittedAt: Date | null;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

/** The report of a third party (an employer, a supervisor) on the candidate: one file per application. */
export interface ThirdPartyReport extends Model<
  InferAttributes<ThirdPartyReport>,
  InferCreationAttributes<ThirdPartyReport>
> {
  id: CreationOptional<string>;
  applicationId: string;
  assetId: string;
  submittedBy: string;
  submittedAt: Date;
}

const id = { type: DataTypes.STRING(26), primaryKey: true, defaultValue: () => newId() };

export function defineEvidenceModels(sequelize: Sequelize) {
  const GeneralEvidence: ModelStatic<GeneralEvidence> = sequelize.define<GeneralEvidence>(
    'GeneralEvidence',
    {
      id,
      applicationId: DataTypes.STRING(26),
      documentName: DataTypes.STRING(300),
      evidenceType: DataTypes.STRING(200),
      assetId: DataTypes.STRING(26),
      formData: DataTypes.JSONB,
      textValue: DataTypes.TEXT,
      createdBy: DataTypes.STRING(26),
      createdAt: DataTypes.DATE,
      updatedAt: DataTypes.DATE,
    },
    { tableName: 'application_evidence' },
  );
  const SelfAssessment: ModelStatic<SelfAssessment> = sequelize.define<SelfAssessment>(
    'SelfAssessment',
    {
      id,
      applicationId: DataTypes.STRING(26),
      competencies: DataTypes.JSONB,
      reflection: DataTypes.JSONB,
      declaration: DataTypes.JSONB,
      frozenPersonalInformation: DataTypes.JSONB,
      submittedAt: DataTypes.DATE,
      createdAt: DataTypes.DATE,
      updatedAt: DataTypes.DATE,
    },
    { tableName: 'self_assessments' },
  );
  const ThirdPartyReport: ModelStatic<ThirdPartyReport> = sequelize.define<ThirdPartyReport>(
    'ThirdPartyReport',
    {
      id,
      applicationId: DataTypes.STRING(26),
      assetId: DataTypes.STRING(26),
      submittedBy: DataTypes.STRING(26),
      submittedAt: DataTypes.DATE,
    },
    { tableName: 'third_party_reports', timestamps: false },
  );
  return { GeneralEvidence, SelfAssessment, ThirdPartyReport };
}

export type EvidenceModels = ReturnType<typeof defineEvidenceModels>;

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

import { defineLifecycle, type StatusOf } from '../../platform/lifecycle.ts';

/**
 * A trade, as data: `active` when added; an admin archives it (it leaves the public catalogue, its
 * NOS documents stay) and restores it. Archiving an archived trade is a 409 `catalogue.trade_archived`,
 * restoring an active one `catalogue.trade_active`.
 */
export const tradeLifecycle = defineLifecycle({
  subject: 'trade',
  statuses: ['active', 'archived'],
  movers: ['admin'],
  moves: {
    add: { from: [null], to: 'active', by: ['admin'] },
    archive: { from: ['active'], to: 'archived', by: ['admin'] },
    restore: { from: ['archived'], to: 'active', by: ['admin'] },
  },
});
export type TradeStatus = StatusOf<typeof tradeLifecycle>;

/** A trade's NOS document versions: the one a trade is added with or imported is `active`; the import of the next supersedes it. */
export const nosLifecycle = defineLifecycle({
  subject: 'NOS document',
  statuses: ['active', 'superseded'],
  movers: ['admin'],
  moves: {
    publish: { from: [null], to: 'active', by: ['admin'] },
    supersede: { from: ['active'], to: 'superseded', by: ['admin'] },
  },
});
export type NosStatus = StatusOf<typeof nosLifecycle>;
export interface PerformanceCriterion {
  reference: string;
  description: string;
}

export interface Sector extends Model<InferAttributes<Sector>, InferCreationAttributes<Sector>> {
  id: CreationOptional<string>;
  slug: string;
  name: string;
  description: CreationOptional<string | null>;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

export interface Trade extends Model<InferAttributes<Trade>, InferCreationAttributes<Trade>> {
  id: CreationOptional<string>;
  sectorId: string;
  slug: string;
  name: string;
  description: CreationOptional<string | null>;
  status: CreationOptional<TradeStatus>;
  /** The kinds of general evidence a candidate may upload for this trade, in order. */
  evidenceTypes: string[];
  archivedAt: CreationOptional<Date | null>;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

export interface NosDocument extends Model<InferAttributes<NosDocument>, InferCreationAttributes<NosDocument>> {
  id: CreationOptional<string>;
  tradeId: string;
  version: number;
  title: string;
  status: NosStatus;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

export interface QualificationLevel extends Model<
  InferAttributes<QualificationLevel>,
  InferCreationAttributes<QualificationLevel>
> {
  id: CreationOptional<string>;
  nosDocumentId: string;
  level: number;
  slug: string;
  purpose: string;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

export interface Unit extends Model<InferAttributes<Unit>, InferCreationAttributes<Unit>> {
  id: CreationOptional<string>;
  qualificationLevelId: string;
  nosDocumentId: string;
  referenceNumber: string;
  title: string;
  isMandatory: boolean;
  creditValue: CreationOptional<number | null>;
  guidedLearningHours: CreationOptional<number | null>;
  purpose: CreationOptional<string | null>;
  assessmentMethods: string[];
  position: number;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

export interface LearningOutcome extends Model<
  InferAttributes<LearningOutcome>,
  InferCreationAttributes<LearningOutcome>
> {
  id: CreationOptional<string>;
  unitId: string;
  reference: string;
  description: string;
  performanceCriteria: PerformanceCriterion[];
  position: number;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

const id = { type: DataTypes.STRING(26), primaryKey: true, defaultValue: () => newId() };
const stamps = { createdAt: DataTypes.DATE, updatedAt: DataTypes.DATE };

export function defineCatalogueModels(sequelize: Sequelize) {
  const Sector: ModelStatic<Sector> = sequelize.define<Sector>(
    'Sector',
    { id, slug: DataTypes.STRING(80), name: DataTypes.STRING(160), description: DataTypes.TEXT, ...stamps },
    { tableName: 'sectors' },
  );
  const Trade: ModelStatic<Trade> = sequelize.define<Trade>(
    'Trade',
    {
      id,
      sectorId: DataTypes.STRING(26),
      slug: DataTypes.STRING(80),
      name: DataTypes.STRING(160),
      description: DataTypes.TEXT,
      status: { type: DataTypes.STRING(16), defaultValue: 'active' },
      evidenceTypes: DataTypes.JSONB,
      archivedAt: DataTypes.DATE,
      ...stamps,
    },
    { tableName: 'trades' },
  );
  const NosDocument: ModelStatic<NosDocument> = sequelize.define<NosDocument>(
    'NosDocument',
    {
      id,
      tradeId: DataTypes.STRING(26),
      version: DataTypes.INTEGER,
      title: DataTypes.STRING(200),
      status: DataTypes.STRING(16),
      ...stamps,
    },
    { tableName: 'nos_documents' },
  );
  const QualificationLevel: ModelStatic<QualificationLevel> = sequelize.define<QualificationLevel>(
    'QualificationLevel',
    {
      id,
      nosDocumentId: DataTypes.STRING(26),
      level: DataTypes.INTEGER,
      slug: DataTypes.STRING(120),
      purpose: DataTypes.TEXT,
      ...stamps,
    },
    { tableName: 'qualification_levels' },
  );
  const Unit: ModelStatic<Unit> = sequelize.define<Unit>(
    'Unit',
    {
      id,
      qualificationLevelId: DataTypes.STRING(26),
      nosDocumentId: DataTypes.STRING(26),
      referenceNumber: DataTypes.STRING(60),
      title: DataTypes.STRING(300),
      isMandatory: DataTypes.BOOLEAN,
      creditValue: DataTypes.INTEGER,
      guidedLearningHours: DataTypes.INTEGER,
      purpose: DataTypes.TEXT,
      assessmentMethods: DataTypes.JSONB,
      position: DataTypes.INTEGER,
      ...stamps,
    },
    { tableName: 'units' },
  );
  const LearningOutcome: ModelStatic<LearningOutcome> = sequelize.define<LearningOutcome>(
    'LearningOutcome',
    {
      id,
      unitId: DataTypes.STRING(26),
      reference: DataTypes.STRING(40),
      description: DataTypes.TEXT,
      performanceCriteria: DataTypes.JSONB,
      position: DataTypes.INTEGER,
      ...stamps,
    },
    { tableName: 'learning_outcomes' },
  );
  return { Sector, Trade, NosDocument, QualificationLevel, Unit, LearningOutcome };
}

export type CatalogueModels = ReturnType<typeof defineCatalogueModels>;

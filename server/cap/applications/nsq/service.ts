import {
  DataTypes,
  Op,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
  type Transaction,
} from 'sequelize';
import { conflict, forbidden, notFound, unprocessable } from '../../../platform/http/errors.ts';
import { newId } from '../../../platform/ids.ts';
import type { Application } from '../models.ts';
import type { Applications } from '../service.ts';
import type { Assessors } from '../../assessors/index.ts';
import type { Catalogue } from '../../catalogue/index.ts';
import type { ActingContext } from '../../people/index.ts';
import type { OrchestratorHttp } from '../../../contracts/orchestrator-client.ts';

interface Induction extends Model<InferAttributes<Induction>, InferCreationAttributes<Induction>> {
  applicationId: string;
  level: number;
  unitIds: string[];
  submittedBy: string;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

interface UnitRecord extends Model<InferAttributes<UnitRecord>, InferCreationAttributes<UnitRecord>> {
  id: CreationOptional<string>;
  applicationId: string;
  unitId: string;
  kind: 'evidence' | 'observation';
  documentName: string | null;
  assetId: string | null;
  textValue: string | null;
  observedAt: Date | null;
  location: string | null;
  outcome: 'competent' | 'not_yet_competent' | null;
  recordedBy: string;
  createdAt: CreationOptional<Date>;
}

interface UnitSignoff extends Model<InferAttributes<UnitSignoff>, InferCreationAttributes<UnitSignoff>> {
  applicationId: string;
  unitId: string;
  assessorId: string;
  signatureAssetId: string;
  signedAt: Date;
}

function defineNsqModels(sequelize: Sequelize) {
  const Induction: ModelStatic<Induction> = sequelize.define<Induction>(
    'NsqInduction',
    {
      applicationId: { type: DataTypes.STRING(26), primaryKey: true },
      level: DataTypes.INTEGER,
      unitIds: DataTypes.JSONB,
      submittedBy: DataTypes.STRING(26),
      createdAt: DataTypes.DATE,
      updatedAt: DataTypes.DATE,
    },
    { tableName: 'nsq_inductions' },
  );
  const UnitRecord: ModelStatic<UnitRecord> = sequelize.define<UnitRecord>(
    'NsqUnitRecord',
    {
      id: { type: DataTypes.STRING(26), primaryKey: true, defaultValue: () => newId() },
      applicationId: DataTypes.STRING(26),
      unitId: DataTypes.STRING(26),
      kind: DataTypes.STRING(16),
      documentName: DataTypes.STRING(300),
      assetId: DataTypes.STRING(64),
      textValue: DataTypes.TEXT,
      observedAt: DataTypes.DATE,
      location: DataTypes.STRING(500),
      outcome: DataTypes.STRING(24),
      recordedBy: DataTypes.STRING(26),
      createdAt: DataTypes.DATE,
    },
    { tableName: 'nsq_unit_records', updatedAt: false },
  );
  const UnitSignoff: ModelStatic<UnitSignoff> = sequelize.define<UnitSignoff>(
    'NsqUnitSignoff',
    {
      applicationId: { type: DataTypes.STRING(26), primaryKey: true },
      unitId: { type: DataTypes.STRING(26), primaryKey: true },
      assessorId: DataTypes.STRING(26),
      signatureAssetId: DataTypes.STRING(64),
      signedAt: DataTypes.DATE,
    },
    { tableName: 'nsq_unit_signoffs', timestamps: false },
  );
  return { Induction, UnitRecord, UnitSignoff };
}

/** A caller with the bearer token that proves which uploaded files are theirs. */
export interface Caller {
  userId: string;
  bearer: string;
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/**
 * NSQ paths, following NSQ's stage table (applications/lifecycle.ts): at `induction` the candidate sends
 * the induction form (a level and units of the application's NOS document: a wish-list the centre approves
 * by moving the induction on); at `unit_assessment` the centre's unit assessors (assignments with role
 * unit_assessor) observe the candidate directly, the candidate adds evidence per unit, and a unit assessor
 * signs each unit off; the last sign-off moves the application to internal verification through `move`.
 */
export function createNsqPaths(deps: {
  sequelize: Sequelize;
  applications: Applications;
  assessors: Pick<Assessors, 'profileOf' | 'assignments' | 'cards' | 'assign'>;
  catalogue: Pick<Catalogue, 'trades' | 'nosContent' | 'units'>;
  ownsAsset: OrchestratorHttp['ownsAsset'];
}) {
  const { sequelize, applications, assessors, catalogue } = deps;
  const { Induction, UnitRecord, UnitSignoff } = defineNsqModels(sequelize);

  /** The application when the caller may read it: its candidate, its centre's staff, or an assessor assigned to it. */
  async function readable(context: ActingContext, userId: string, applicationId: string): Promise<Application> {
    if (context.persona === 'candidate' || context.persona === 'centre') {
      return applications.visible(
        context.persona === 'centre'
          ? { persona: 'centre', userId, centreId: context.centreId }
          : { persona: 'candidate', userId },
        applicationId,
      );
    }
    const application = await applications.byId(applicationId);
    if (!application) throw notFound(`No application has the id ${applicationId}.`);
    const profile = context.persona === 'assessor' ? await assessors.profileOf(userId) : null;
    if (!profile || !(await assessors.assignments.activeAssignments({ applicationId, assessorId: profile.id })).length)
      throw forbidden('auth.out_of_scope', 'You are not assigned to this application.');
    return application;
  }

  function assertAt(application: Application, stages: string[]) {
    if (
      application.type !== 'NSQ' ||
      application.status !== 'in_progress' ||
      !stages.includes(application.currentStageKey)
    ) {
      throw conflict(
        'application.not_in_stage',
        `This happens to an NSQ application at ${stages.join(' or ')}; this ${application.type} application is ${application.status} at ${application.currentStageKey}.`,
      );
    }
  }

  /** The NOS options of the application: its levels, each with its units, in order. */
  async function nosOptions(application: Application) {
    if (!application.nosDocumentId) return [];
    const { levels, units } = await catalogue.nosContent(application.nosDocumentId);
    return levels.map((level) => ({
      level: level.level,
      units: units
        .filter((u) => u.qualificationLevelId === level.id)
        .map((u) => ({ unitId: u.id, referenceNumber: u.referenceNumber, title: u.title, isMandatory: u.isMandatory })),
    }));
  }

  async function inductionView(application: Application) {
    const [[trade], options, induction] = await Promise.all([
      catalogue.trades([application.tradeId]),
      nosOptions(application),
      Induction.findByPk(application.id),
    ]);
    return {
      applicationId: application.id,
      trade: { id: application.tradeId, name: trade?.name ?? '' },
      options,
      level: induction?.level ?? null,
      unitIds: induction?.unitIds ?? [],
      submittedAt: iso(induction?.updatedAt ?? null),
    };
  }

  /** The caller as a unit assessor of the application (403 otherwise); answers their profile id. */
  async function unitAssessor(userId: string, applicationId: string, transaction: Transaction): Promise<string> {
    const profile = await assessors.profileOf(userId, transaction);
    const assigned = profile
      ? await assessors.assignments.activeAssignments(
          { applicationId, assessorId: profile.id, role: 'unit_assessor' },
          transaction,
        )
      : [];
    if (!assigned.length)
      throw forbidden('nsq.not_unit_assessor', 'Only a unit assessor of this application does this.');
    return profile!.id;
  }

  /** The application at unit assessment, locked, and the unit, which must be on its induction's wish-list. */
  async function wishedUnit(applicationId: string, unitId: string, transaction: Transaction) {
    const application = await applications.byId(applicationId, transaction, true);
    if (!application) throw notFound(`No application has the id ${applicationId}.`);
    assertAt(application, ['unit_assessment']);
    const induction = await Induction.findByPk(applicationId, { transaction });
    if (!induction?.unitIds.includes(unitId))
      throw notFound(`Unit ${unitId} is not one of the units this application is assessed on.`);
    return application;
  }

  function recordView(record: UnitRecord) {
    return {
      id: record.id,
      unitId: record.unitId,
      kind: record.kind,
      documentName: record.documentName,
      assetId: record.assetId,
      textValue: record.textValue,
      observedAt: iso(record.observedAt),
      location: record.location,
      outcome: record.outcome,
      recordedBy: record.recordedBy,
      createdAt: record.createdAt.toISOString(),
    };
  }

  return {
    async induction(context: ActingContext, userId: string, applicationId: string) {
      return inductionView(await readable(context, userId, applicationId));
    },

    /**
     * The candidate sends (or changes, until the induction moves on) the induction form: one level of the
     * application's NOS and units of that level, the units and level they wish to be assessed on.
     */
    async submitInduction(userId: string, applicationId: string, input: { level: number; unitIds: string[] }) {
      const application = await sequelize.transaction(async (transaction) => {
        const application = await applications.visible({ persona: 'candidate', userId }, applicationId, transaction);
        assertAt(application, ['induction']);
        const level = (await nosOptions(application)).find((l) => l.level === input.level);
        if (!level)
          throw unprocessable('nsq.induction_invalid', "Choose a level of the trade's NOS.", [
            { field: 'level', issue: `is not a level of the trade's NOS` },
          ]);
        const unitIds = [...new Set(input.unitIds)];
        const problems = unitIds.flatMap((id, index) =>
          level.units.some((u) => u.unitId === id)
            ? []
            : [{ field: `unitIds[${index}]`, issue: `is not a unit of level ${input.level}` }],
        );
        if (problems.length)
          throw unprocessable('nsq.induction_invalid', "Every unit is one of the chosen level's.", problems);
        await Induction.upsert({ applicationId, level: input.level, unitIds, submittedBy: userId }, { transaction });
        return application;
      });
      return inductionView(application);
    },

    /** The centre assigns a unit assessor (an approved assessor it retains) at induction or unit assessment. */
    async assignUnitAssessor(actor: { userId: string; centreId: string }, applicationId: string, assessorId: string) {
      await sequelize.transaction(async (transaction) => {
        const application = await applications.visible({ persona: 'centre', ...actor }, applicationId, transaction);
        assertAt(application, ['induction', 'unit_assessment']);
        if (!(await assessors.assignments.retainedBy(actor.centreId, assessorId, transaction))) {
          throw unprocessable(
            'nsq.assessor_not_retained',
            'Only approved assessors the centre retains can be assigned.',
            [{ field: 'assessorId', issue: 'is not an approved assessor retained by this centre' }],
          );
        }
        const current = await assessors.assignments.activeAssignments(
          { applicationId, assessorId, role: 'unit_assessor' },
          transaction,
        );
        if (!current.length)
          await assessors.assign(
            [
              {
                applicationId,
                assessorId,
                centreId: application.centreId,
                role: 'unit_assessor',
                assignedBy: actor.userId,
              },
            ],
            transaction,
          );
      });
      const rows = await assessors.assignments.activeAssignments({ applicationId, role: 'unit_assessor' });
      const cards = await assessors.cards(rows.map((r) => r.assessorId));
      return rows.map((r) => ({
        assessorId: r.assessorId,
        name: cards.get(r.assessorId)?.name ?? '',
        assignedAt: r.assignedAt.toISOString(),
      }));
    },

    /** The units on the induction's wish-list with their evidence, observations and sign-off. */
    async units(context: ActingContext, userId: string, applicationId: string) {
      const application = await readable(context, userId, applicationId);
      const induction = await Induction.findByPk(applicationId);
      const ids = induction?.unitIds ?? [];
      const [units, records, signoffs] = await Promise.all([
        catalogue.units(ids),
        UnitRecord.findAll({ where: { applicationId: application.id }, order: [['id', 'ASC']] }),
        UnitSignoff.findAll({ where: { applicationId: application.id } }),
      ]);
      return ids.map((unitId) => {
        const unit = units.find((u) => u.id === unitId);
        const signoff = signoffs.find((s) => s.unitId === unitId);
        const mine = records.filter((r) => r.unitId === unitId);
        return {
          unitId,
          referenceNumber: unit?.referenceNumber ?? '',
          title: unit?.title ?? '',
          evidence: mine.filter((r) => r.kind === 'evidence').map(recordView),
          observations: mine.filter((r) => r.kind === 'observation').map(recordView),
          signedOff: signoff ? { assessorId: signoff.assessorId, signedAt: signoff.signedAt.toISOString() } : null,
        };
      });
    },

    /** The candidate adds evidence to a unit they are assessed on (a file they uploaded, or text), until it is signed off. */
    async addEvidence(
      caller: Caller,
      applicationId: string,
      unitId: string,
      input: { documentName: string; assetId?: string; textValue?: string },
    ) {
      if (!input.assetId && !input.textValue)
        throw unprocessable('nsq.evidence_invalid', 'Evidence holds a file or a text.', [
          { field: 'assetId', issue: 'or textValue is required' },
        ]);
      if (input.assetId && !(await deps.ownsAsset(caller.bearer, input.assetId))) {
        throw unprocessable('nsq.evidence_invalid', 'You have no uploaded file with that asset id.', [
          { field: 'assetId', issue: 'is not a file you uploaded' },
        ]);
      }
      const record = await sequelize.transaction(async (transaction) => {
        await applications.visible({ persona: 'candidate', userId: caller.userId }, applicationId, transaction);
        await wishedUnit(applicationId, unitId, transaction);
        if (await UnitSignoff.findOne({ where: { applicationId, unitId }, transaction }))
          throw conflict('nsq.unit_signed_off', 'The unit is signed off: its evidence no longer changes.');
        return UnitRecord.create(
          {
            applicationId,
            unitId,
            kind: 'evidence',
            documentName: input.documentName,
            assetId: input.assetId ?? null,
            textValue: input.textValue ?? null,
            observedAt: null,
            location: null,
            outcome: null,
            recordedBy: caller.userId,
          },
          { transaction },
        );
      });
      return recordView(record);
    },

    /** A unit assessor records a direct observation of the candidate performing the unit. */
    async observe(
      userId: string,
      applicationId: string,
      unitId: string,
      input: { observedAt: string; location?: string; notes: string; outcome: 'competent' | 'not_yet_competent' },
    ) {
      const observedAt = new Date(input.observedAt);
      if (observedAt.getTime() > Date.now())
        throw unprocessable('nsq.observation_invalid', 'An observation is recorded after it happened.', [
          { field: 'observedAt', issue: 'is in the future' },
        ]);
      const record = await sequelize.transaction(async (transaction) => {
        const assessorId = await unitAssessor(userId, applicationId, transaction);
        await wishedUnit(applicationId, unitId, transaction);
        if (await UnitSignoff.findOne({ where: { applicationId, unitId }, transaction }))
          throw conflict('nsq.unit_signed_off', 'The unit is signed off already.');
        return UnitRecord.create(
          {
            applicationId,
            unitId,
            kind: 'observation',
            documentName: null,
            assetId: null,
            textValue: input.notes,
            observedAt,
            location: input.location ?? null,
            outcome: input.outcome,
            recordedBy: assessorId,
          },
          { transaction },
        );
      });
      return recordView(record);
    },

    /**
     * A unit assessor signs a unit off with their signature, once: the unit needs a direct observation
     * found competent. The last unit signed off moves the application to internal verification.
     */
    async signOff(caller: Caller, applicationId: string, unitId: string, signatureAssetId: string) {
      if (!(await deps.ownsAsset(caller.bearer, signatureAssetId)))
        throw unprocessable('nsq.signature_not_found', 'You have no uploaded file with that asset id.', [
          { field: 'signatureAssetId', issue: 'is not a file you uploaded' },
        ]);
      return sequelize.transaction(async (transaction) => {
        const assessorId = await unitAssessor(caller.userId, applicationId, transaction);
        const application = await wishedUnit(applicationId, unitId, transaction);
        if (await UnitSignoff.findOne({ where: { applicationId, unitId }, transaction }))
          throw conflict('nsq.unit_signed_off', 'The unit is signed off already.');
        const competent = await UnitRecord.count({
          where: { applicationId, unitId, kind: 'observation', outcome: 'competent' },
          transaction,
        });
        if (!competent)
          throw conflict(
            'nsq.unit_not_observed',
            'A unit is signed off after a direct observation found the candidate competent.',
          );
        await UnitSignoff.create(
          { applicationId, unitId, assessorId, signatureAssetId, signedAt: new Date() },
          { transaction },
        );
        const induction = await Induction.findByPk(applicationId, { transaction });
        const signed = await UnitSignoff.count({
          where: { applicationId, unitId: { [Op.in]: induction!.unitIds } },
          transaction,
        });
        if (signed === induction!.unitIds.length)
          await applications.move(
            application,
            'approve',
            'unit_assessor',
            caller.userId,
            transaction,
            'Every unit is signed off.',
          );
        return {
          applicationId,
          unitId,
          signedAt: new Date().toISOString(),
          unitsSignedOff: signed,
          unitsTotal: induction!.unitIds.length,
          currentStageKey: application.currentStageKey,
        };
      });
    },
  };
}

export type NsqPaths = ReturnType<typeof createNsqPaths>;

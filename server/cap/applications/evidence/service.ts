import { Op, type Sequelize, type Transaction } from 'sequelize';
import { conflict, notFound, unprocessable, type ErrorDetail } from '../../../platform/http/errors.ts';
import { Conditions, keysetRows } from '../../../platform/db/keyset.ts';
import { isoTime } from '../../../platform/db/iso-time.ts';
import { preparedReads } from '../../../platform/db/prepared.ts';
import { pageRequest } from '../../../platform/http/pagination.ts';
import { stagesOf } from '../lifecycle.ts';
import type { Application } from '../models.ts';
import { ownedSql, type Applications, type Reader } from '../service.ts';
import type { Catalogue } from '../../catalogue/index.ts';
import type { People } from '../../people/index.ts';
import type { AssetUrls, OrchestratorHttp } from '../../../contracts/orchestrator-client.ts';
import { defineEvidenceModels, type GeneralEvidence, type SelfAssessment } from './models.ts';
import type { JsonObject } from '../../../platform/http/merge-patch.ts';

export interface NewEvidence {
  documentName: string;
  evidenceType: string;
  assetId?: string;
  formData?: JsonObject;
  textValue?: string;
}

export interface SelfAssessmentInput {
  competencies?: JsonObject[];
  reflection?: JsonObject | null;
  declaration?: JsonObject | null;
  submit?: boolean;
}

/** The candidate acting on their own application, with the bearer token that proves their files. */
export interface Owner {
  userId: string;
  bearer: string;
}

/**
 * The evidence vault of an application: general evidence, the self-assessment and the third-party report.
 * The candidate who owns the application writes it while the application is open and before internal
 * verification (after that the evidence is what the verifiers judged: 409 `evidence.locked`); whoever
 * may read the application reads its vault (`applications.visible`). Files are Orchestrator assets the
 * candidate uploaded themselves (checked with their own token).
 */
export function createEvidence(deps: {
  sequelize: Sequelize;
  applications: Applications;
  catalogue: Pick<Catalogue, 'trades' | 'nosContent'>;
  people: Pick<People, 'onboardings'>;
  assetUrls: AssetUrls;
  ownsAsset: OrchestratorHttp['ownsAsset'];
}) {
  const { sequelize, applications, catalogue } = deps;
  const models = defineEvidenceModels(sequelize);
  const read = preparedReads(sequelize);
  const { GeneralEvidence, SelfAssessment, ThirdPartyReport } = models;

  /** Refuses a change once the application is finished or has reached internal verification. */
  function assertOpen(application: Application) {
    const stages = stagesOf[application.type];
    const open =
      ['draft', 'in_progress'].includes(application.status) &&
      stages.indexOf(application.currentStageKey) < stages.indexOf('internal_verification');
    if (!open) {
      throw conflict(
        'evidence.locked',
        `The evidence of an application that is ${application.status === 'in_progress' ? `at ${application.currentStageKey}` : application.status} no longer changes.`,
      );
    }
  }

  /** The candidate's own open application, locked for the change when a transaction is given. */
  async function writable(owner: Owner, applicationId: string, transaction?: Transaction) {
    const application = await applications.visible(
      { persona: 'candidate', userId: owner.userId },
      applicationId,
      transaction,
    );
    assertOpen(application);
    return application;
  }

  async function assertOwnFile(owner: Owner, assetId: string, field: string) {
    if (!(await deps.ownsAsset(owner.bearer, assetId))) {
      throw unprocessable(
        'evidence.asset_not_found',
        'You have no uploaded file with that asset id: upload it first (POST /v1/ol/storage/upload, purpose evidence).',
        [{ field, issue: 'is not a file you uploaded' }],
      );
    }
  }

  async function evidenceView(row: GeneralEvidence) {
    const urlOf = await deps.assetUrls([row.assetId]);
    return {
      id: row.id,
      applicationId: row.applicationId,
      documentName: row.documentName,
      evidenceType: row.evidenceType,
      assetId: row.assetId,
      url: urlOf(row.assetId),
      formData: row.formData,
      textValue: row.textValue,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    };
  }

  /** The personal information of the candidate's profile (their candidate onboarding). */
  async function personalInformation(userId: string): Promise<JsonObject> {
    const profile = (await deps.people.onboardings.dataOf(userId, 'candidate')) ?? {};
    return Object.fromEntries(
      ['personalDetails', 'contactInformation', 'residentialAddress']
        .filter((k) => profile[k])
        .map((k) => [k, profile[k]]),
    );
  }

  /** The units of the application's NOS document, with their level, in order. */
  async function unitsOf(application: Application) {
    if (!application.nosDocumentId) return [];
    const { units, levels } = await catalogue.nosContent(application.nosDocumentId);
    const levelOf = new Map(levels.map((level) => [level.id, level.level]));
    return units.map((unit) => ({
      unitId: unit.id,
      referenceNumber: unit.referenceNumber,
      title: unit.title,
      level: levelOf.get(unit.qualificationLevelId) ?? null,
    }));
  }

  async function selfAssessmentView(application: Application, row: SelfAssessment | null) {
    return {
      applicationId: application.id,
      personalInformation: row?.frozenPersonalInformation ?? (await personalInformation(application.candidateUserId)),
      frozenPersonalInformation: row?.frozenPersonalInformation ?? null,
      // Before anything is saved, one entry per unit to assess: the form the candidate fills in.
      competencies: row ? row.competencies : await unitsOf(application),
      reflection: row?.reflection ?? null,
      declaration: row?.declaration ?? null,
      submittedAt: row?.submittedAt ? row.submittedAt.toISOString() : null,
    };
  }

  /** Every competency names a unit of the application's NOS document, each unit at most once. */
  async function competencyProblems(application: Application, competencies: JsonObject[]): Promise<ErrorDetail[]> {
    const units = new Set((await unitsOf(application)).map((unit) => unit.unitId));
    const seen = new Set<unknown>();
    return competencies.flatMap((competency, i): ErrorDetail[] => {
      const unitId = competency.unitId;
      if (typeof unitId !== 'string' || !units.has(unitId))
        return [{ field: `competencies[${i}].unitId`, issue: 'is not a unit of the trade this application is for' }];
      if (seen.has(unitId)) return [{ field: `competencies[${i}].unitId`, issue: 'appears twice' }];
      seen.add(unitId);
      return [];
    });
  }

  const thirdPartyView = async (applicationId: string) => {
    const row = await ThirdPartyReport.findOne({ where: { applicationId } });
    const urlOf = await deps.assetUrls([row?.assetId]);
    return {
      applicationId,
      assetId: row?.assetId ?? null,
      url: urlOf(row?.assetId),
      submittedAt: row ? row.submittedAt.toISOString() : null,
    };
  };

  return {
    models,

    /** Everything in the vault, newest first: general evidence, the self-assessment and the third-party report. */
    async list(reader: Reader, applicationId: string, query: { cursor?: string; limit?: number }) {
      const where = new Conditions().add('x.application_id = ?', applicationId);
      // The candidate's and the centre's reading rule goes into the page's statement; the others' is read first.
      const owned = ownedSql(reader, where);
      if (owned) where.add(`EXISTS (SELECT 1 FROM cap.applications a WHERE a.id = x.application_id AND ${owned})`);
      else await applications.visible(reader, applicationId);
      const page = () =>
        // The three kinds of thing in one statement, paged together (the condition on the application reaches each part).
        keysetRows<{
          id: string;
          kind: string;
          documentName: string | null;
          evidenceType: string | null;
          status: string | null;
          createdAt: string;
        }>(read, pageRequest(query as Record<string, unknown>), {
          select: `x.id, x.kind, x.document_name AS "documentName", x.evidence_type AS "evidenceType", x.status, ${isoTime('x.created_at')} AS "createdAt"`,
          from: `(SELECT id, application_id, 'general' AS kind, document_name, evidence_type, NULL AS status, created_at FROM cap.application_evidence
                  UNION ALL
                  SELECT id, application_id, 'self_assessment', 'Self-assessment', NULL, CASE WHEN submitted_at IS NULL THEN 'draft' ELSE 'submitted' END, created_at FROM cap.self_assessments
                  UNION ALL
                  SELECT id, application_id, 'third_party_report', 'Third-party report', NULL, 'submitted', submitted_at FROM cap.third_party_reports) x`,
          where,
          key: 'x.id',
          desc: true,
        });
      if (!owned) return page();
      // Rows prove the reader may see them; without any (or with a cursor refused), `visible` says why.
      const rows = await page().catch(async (err) => {
        await applications.visible(reader, applicationId);
        throw err;
      });
      if (!rows.items.length) await applications.visible(reader, applicationId);
      return rows;
    },

    /** A piece of general evidence: its type one of the trade's, its file the candidate's own, and something in it. */
    async create(owner: Owner, applicationId: string, input: NewEvidence) {
      const application = await writable(owner, applicationId);
      const trade = (await catalogue.trades([application.tradeId]))[0]!;
      const problems: ErrorDetail[] = [];
      if (!trade.evidenceTypes.includes(input.evidenceType))
        problems.push({
          field: 'evidenceType',
          issue: `must be one of the trade's evidence types: ${trade.evidenceTypes.join(', ')}`,
        });
      if (!input.assetId && !input.formData && !input.textValue?.trim())
        problems.push({ field: 'assetId', issue: 'give a file (assetId), a form (formData) or a text (textValue)' });
      if (problems.length) throw unprocessable('evidence.invalid', 'The evidence cannot be kept as it is.', problems);
      if (input.assetId) await assertOwnFile(owner, input.assetId, 'assetId');
      const row = await sequelize.transaction(async (transaction) => {
        await writable(owner, applicationId, transaction);
        return GeneralEvidence.create(
          {
            applicationId,
            documentName: input.documentName.trim(),
            evidenceType: input.evidenceType,
            assetId: input.assetId ?? null,
            formData: input.formData ?? null,
            textValue: input.textValue ?? null,
            createdBy: owner.userId,
          },
          { transaction },
        );
      });
      return evidenceView(row);
    },

    async get(reader: Reader, applicationId: string, evidenceId: string) {
      await applications.visible(reader, applicationId);
      const row = await GeneralEvidence.findOne({ where: { id: evidenceId, applicationId } });
      if (!row) throw notFound(`The application has no evidence with the id ${evidenceId}.`);
      return evidenceView(row);
    },

    async remove(owner: Owner, applicationId: string, evidenceId: string) {
      await sequelize.transaction(async (transaction) => {
        await writable(owner, applicationId, transaction);
        const removed = await GeneralEvidence.destroy({ where: { id: evidenceId, applicationId }, transaction });
        if (!removed) throw notFound(`The application has no evidence with the id ${evidenceId}.`);
      });
      return { id: evidenceId, deleted: true as const };
    },

    async selfAssessment(reader: Reader, applicationId: string) {
      const application = await applications.visible(reader, applicationId);
      return selfAssessmentView(application, await SelfAssessment.findOne({ where: { applicationId } }));
    },

    /**
     * Saves the given parts (each replaces what was saved). `submit: true` needs a competency and a
     * declaration, freezes the candidate's personal information as it is now and sets submittedAt;
     * after that nothing changes (409 evidence.self_assessment_submitted).
     */
    async saveSelfAssessment(owner: Owner, applicationId: string, input: SelfAssessmentInput) {
      const application = await writable(owner, applicationId);
      if (input.competencies) {
        const problems = await competencyProblems(application, input.competencies);
        if (problems.length)
          throw unprocessable('evidence.invalid', 'Some competencies are not units of this trade.', problems);
      }
      const frozen = input.submit ? await personalInformation(owner.userId) : null;
      const row = await sequelize.transaction(async (transaction) => {
        await writable(owner, applicationId, transaction);
        const [row] = await SelfAssessment.findOrCreate({
          where: { applicationId },
          defaults: {
            applicationId,
            competencies: [],
            reflection: null,
            declaration: null,
            frozenPersonalInformation: null,
            submittedAt: null,
          },
          transaction,
        });
        if (row.submittedAt)
          throw conflict(
            'evidence.self_assessment_submitted',
            'The self-assessment was submitted: it no longer changes.',
          );
        if (input.competencies) row.competencies = input.competencies;
        if (input.reflection !== undefined) row.reflection = input.reflection;
        if (input.declaration !== undefined) row.declaration = input.declaration;
        if (input.submit) {
          const missing: ErrorDetail[] = [];
          if (!row.competencies.length)
            missing.push({ field: 'competencies', issue: 'assess yourself on at least one unit' });
          if (!row.declaration || !Object.keys(row.declaration).length)
            missing.push({ field: 'declaration', issue: 'is required to submit' });
          if (missing.length)
            throw unprocessable(
              'evidence.self_assessment_incomplete',
              'The self-assessment cannot be submitted yet.',
              missing,
            );
          row.frozenPersonalInformation = frozen;
          row.submittedAt = new Date();
        }
        return row.save({ transaction });
      });
      return selfAssessmentView(application, row);
    },

    thirdPartyReport: async (reader: Reader, applicationId: string) => {
      await applications.visible(reader, applicationId);
      return thirdPartyView(applicationId);
    },

    /** The candidate's upload of the report; a later one replaces it while the evidence is open. */
    async submitThirdPartyReport(owner: Owner, applicationId: string, assetId: string) {
      await writable(owner, applicationId);
      await assertOwnFile(owner, assetId, 'assetId');
      await sequelize.transaction(async (transaction) => {
        await writable(owner, applicationId, transaction);
        const existing = await ThirdPartyReport.findOne({ where: { applicationId }, transaction });
        if (existing)
          await existing.update({ assetId, submittedBy: owner.userId, submittedAt: new Date() }, { transaction });
        else
          await ThirdPartyReport.create(
            { applicationId, assetId, submittedBy: owner.userId, submittedAt: new Date() },
            { transaction },
          );
      });
      return thirdPartyView(applicationId);
    },

    /** Every asset id the vault of an application holds (what a share token may show). */
    async assetIds(applicationId: string): Promise<string[]> {
      const [general, report] = await Promise.all([
        GeneralEvidence.findAll({ where: { applicationId, assetId: { [Op.ne]: null } }, attributes: ['assetId'] }),
        ThirdPartyReport.findOne({ where: { applicationId } }),
      ]);
      return [...general.map((row) => row.assetId!), ...(report ? [report.assetId] : [])];
    },
  };
}

export type Evidence = ReturnType<typeof createEvidence>;

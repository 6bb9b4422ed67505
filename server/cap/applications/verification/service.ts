import { randomBytes } from 'node:crypto';
import {
  DataTypes,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
  type Transaction,
} from 'sequelize';
import {
  AppError,
  conflict,
  forbidden,
  notFound,
  unprocessable,
  type ErrorDetail,
} from '../../../platform/http/errors.ts';
import { newId } from '../../../platform/ids.ts';
import { Conditions, keysetInstances } from '../../../platform/db/keyset.ts';
import { preparedReads, savePrepared } from '../../../platform/db/prepared.ts';
import { pageRequest } from '../../../platform/http/pagination.ts';
import { renderCertificatePdf } from '../../../platform/pdf/certificate.ts';
import { stagesOf } from '../lifecycle.ts';
import type { Application } from '../models.ts';
import { certifyBypassOff, type Applications, type Reader } from '../service.ts';
import type { Assessors, AssignmentRole } from '../../assessors/index.ts';
import type { Catalogue } from '../../catalogue/index.ts';
import type { CentreContext } from '../../people/index.ts';
import type { Evidence } from '../evidence/service.ts';
import type { OrchestratorHttp } from '../../../contracts/orchestrator-client.ts';

interface Certificate extends Model<InferAttributes<Certificate>, InferCreationAttributes<Certificate>> {
  id: string;
  applicationId: string;
  awardingBodyId: string;
  certificateAssetId: string;
  verificationCode: string;
  issuedBy: string;
  issuedAt: Date;
}

/** A verification code people can read out: CAP-XXXX-XXXX-XXXX in Crockford base32 (60 random bits). */
function verificationCode(): string {
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  const bytes = randomBytes(12);
  const chars = [...bytes].map((b) => alphabet[b & 31]).join('');
  return `CAP-${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8, 12)}`;
}

/** The awarding-body member acting: their user id, and their bearer token for files they uploaded. */
export interface AwardingBodyActor {
  userId: string;
  bearer: string;
}

/**
 * Internal and external verification and the certificate: the centre assigns the internal verifier (an
 * approved assessor it retains) who reviews internal verification; the centre forwards the application
 * to the awarding body of its trade; the awarding body assigns the external verifier, records the
 * external review and issues the certificate (a PDF CAP renders and stores as the candidate's asset, or
 * one the awarding body uploaded). Every stage change goes through `applications.move`.
 */
export function createVerification(deps: {
  sequelize: Sequelize;
  applications: Applications;
  evidence: Evidence;
  assessors: Pick<Assessors, 'assignments' | 'isApproved' | 'isAssigned' | 'endRoles' | 'assign'>;
  catalogue: Pick<Catalogue, 'certifiedLevel' | 'awardingBodies'>;
  orchestrator: Pick<OrchestratorHttp, 'storeFile' | 'ownsAsset' | 'assetUrls'>;
  /** The public CAP base URL (printed on certificates for verification). */
  baseUrl: () => string;
}) {
  const { sequelize, applications, assessors, catalogue } = deps;
  const { assignments } = assessors;
  const { Application } = applications.models;
  const read = preparedReads(sequelize);
  const Certificate: ModelStatic<Certificate> = sequelize.define<Certificate>(
    'Certificate',
    {
      id: { type: DataTypes.STRING(26), primaryKey: true },
      applicationId: DataTypes.STRING(26),
      awardingBodyId: DataTypes.STRING(26),
      certificateAssetId: DataTypes.STRING(26),
      verificationCode: DataTypes.STRING(32),
      issuedBy: DataTypes.STRING(26),
      issuedAt: DataTypes.DATE,
    },
    { tableName: 'certificates', timestamps: false },
  );

  const centreViewer = (context: CentreContext, userId: string) => ({
    persona: 'centre' as const,
    userId,
    centreId: context.centreId,
  });
  const presentOne = async (row: Application) => (await applications.present([row]))[0]!;

  /** An approved assessor profile by id, or 422 naming `assessorId`. */
  async function approvedAssessor(assessorId: string, transaction: Transaction) {
    if (!(await assessors.isApproved(assessorId, transaction))) {
      throw unprocessable(
        'verification.assessor_not_eligible',
        'Assign an assessor whose profile a platform admin approved.',
        [{ field: 'assessorId', issue: 'is not an approved assessor' }],
      );
    }
  }

  /** Ends the application's current assignment in the role and makes the assessor its holder. */
  async function reassign(
    application: Application,
    role: AssignmentRole,
    assessorId: string,
    assignedBy: string,
    transaction: Transaction,
  ) {
    await assessors.endRoles(application.id, [role], transaction);
    await assessors.assign(
      [{ applicationId: application.id, assessorId, centreId: application.centreId, role, assignedBy }],
      transaction,
    );
  }

  /** The application as an active member of its awarding body sees it (404, 403 otherwise), locked in `transaction`. */
  const forAwardingBody = (userId: string, id: string, transaction?: Transaction) =>
    applications.visible({ persona: 'awarding_body', userId }, id, transaction);

  const certificateView = async (row: Certificate) => {
    const urlOf = await deps.orchestrator.assetUrls([row.certificateAssetId]);
    return {
      id: row.id,
      applicationId: row.applicationId,
      issuedBy: row.issuedBy,
      issuedAt: row.issuedAt.toISOString(),
      certificateAssetId: row.certificateAssetId,
      url: urlOf(row.certificateAssetId),
      verificationCode: row.verificationCode,
      verifyUrl: `${deps.baseUrl()}/certificates/verify/${row.verificationCode}`,
    };
  };

  /** What the certificate says: the candidate, trade, level, centre, awarding body. */
  async function certificateFacts(application: Application) {
    const [summary] = await applications.present([application]);
    const bodyName = application.awardingBodyId
      ? await catalogue.awardingBodies.nameOf(application.awardingBodyId)
      : null;
    // The level: the highest level among the units of the submitted self-assessment, else the NOS's only level.
    const assessed = await deps.evidence.models.SelfAssessment.findOne({ where: { applicationId: application.id } });
    const unitIds = (assessed?.submittedAt ? assessed.competencies : [])
      .map((c) => c.unitId)
      .filter((id): id is string => typeof id === 'string');
    const level = await catalogue.certifiedLevel(application.nosDocumentId, unitIds);
    return {
      holderName: summary!.candidate.name,
      trade: summary!.trade?.name ?? '',
      sector: summary!.sector?.name ?? '',
      level: level != null ? `Level ${level}` : 'Not recorded',
      centre: summary!.centre.name,
      awardingBody: bodyName ?? '',
    };
  }

  return {
    certificates: Certificate,

    /** The centre assigns the internal verifier: an approved assessor it retains; a new one replaces the current. */
    async assignInternalVerifier(context: CentreContext, userId: string, id: string, assessorId: string) {
      const application = await sequelize.transaction(async (transaction) => {
        const application = await applications.visible(centreViewer(context, userId), id, transaction);
        const stages = stagesOf[application.type];
        if (
          application.status !== 'in_progress' ||
          stages.indexOf(application.currentStageKey) > stages.indexOf('internal_verification')
        ) {
          throw conflict(
            'application.not_in_stage',
            `An internal verifier is assigned to an application in progress up to internal verification, not one ${application.status === 'in_progress' ? `at ${application.currentStageKey}` : application.status}.`,
          );
        }
        await approvedAssessor(assessorId, transaction);
        if (!(await assignments.retainedBy(application.centreId, assessorId, transaction))) {
          throw unprocessable(
            'verification.assessor_not_retained',
            'The internal verifier must be an assessor your centre retains.',
            [{ field: 'assessorId', issue: 'is not retained by this centre' }],
          );
        }
        await reassign(application, 'iv', assessorId, userId, transaction);
        return application;
      });
      return presentOne(application);
    },

    /** The assigned internal verifier approves internal verification (the APPROVED entry) or rejects the application. */
    async reviewInternalVerification(
      userId: string,
      id: string,
      body: { decision: 'approve' | 'reject'; feedback?: string },
    ) {
      const application = await sequelize.transaction(async (transaction) => {
        const application = await applications
          .visible({ persona: 'assessor', userId }, id, transaction)
          .catch((err) => {
            throw err.code === 'auth.out_of_scope'
              ? forbidden(
                  'verification.not_internal_verifier',
                  'Only the internal verifier assigned to this application reviews it.',
                )
              : err;
          });
        if (!(await assessors.isAssigned(id, userId, transaction, 'iv')))
          throw forbidden(
            'verification.not_internal_verifier',
            'Only the internal verifier assigned to this application reviews it.',
          );
        return applications.move(
          application,
          body.decision,
          'internal_verifier',
          userId,
          transaction,
          body.feedback ?? null,
        );
      });
      return presentOne(application);
    },

    /**
     * The centre forwards the application, after internal verification, to the awarding body of its
     * trade (set by platform admins: PUT /admin/trades/{id}/awarding-body). Once.
     */
    async forward(context: CentreContext, userId: string, id: string) {
      const application = await sequelize.transaction(async (transaction) => {
        const application = await applications.visible(centreViewer(context, userId), id, transaction);
        const awardingBodyId = await catalogue.awardingBodies.ofTrade(application.tradeId, transaction);
        await applications.move(application, 'forward', 'centre', userId, transaction);
        if (!awardingBodyId) {
          throw conflict(
            'application.no_awarding_body',
            'The trade has no awarding body yet: a platform admin sets it (PUT /admin/trades/{id}/awarding-body).',
          );
        }
        application.awardingBodyId = awardingBodyId;
        application.forwardedAt = new Date();
        return savePrepared(application, transaction);
      });
      return presentOne(application);
    },

    /** The applications forwarded to the caller's awarding bodies, newest first. */
    async forwardedTo(userId: string, query: { status?: string; cursor?: string; limit?: number }) {
      const bodies = await catalogue.awardingBodies.activeBodiesOf(userId);
      const where = new Conditions().add('x.awarding_body_id = ANY(?)', bodies);
      if (query.status) where.add('x.status = ?', query.status);
      const { items, meta } = await keysetInstances(read, pageRequest(query as Record<string, unknown>), Application, {
        from: 'cap.applications x',
        where,
        key: 'x.id',
        desc: true,
      });
      return { items: await applications.present(items), meta };
    },

    /** The awarding body assigns the external verifier: an approved assessor who is not the internal verifier. */
    async assignExternalVerifier(userId: string, id: string, assessorId: string) {
      const application = await sequelize.transaction(async (transaction) => {
        const application = await forAwardingBody(userId, id, transaction);
        if (application.status !== 'in_progress' || application.currentStageKey !== 'external_verification') {
          throw conflict(
            'application.not_in_stage',
            'An external verifier is assigned to an application in progress at external verification.',
          );
        }
        await approvedAssessor(assessorId, transaction);
        if ((await assignments.activeAssignments({ applicationId: id, assessorId, role: 'iv' }, transaction)).length) {
          throw unprocessable(
            'verification.ev_is_iv',
            'The external verifier must be someone other than the internal verifier.',
            [{ field: 'assessorId', issue: 'is the internal verifier of this application' }],
          );
        }
        await reassign(application, 'ev', assessorId, userId, transaction);
        return application;
      });
      return presentOne(application);
    },

    /** The awarding body records the external review: approve into certification, or reject. */
    async reviewExternalVerification(
      userId: string,
      id: string,
      body: { decision: 'approve' | 'reject'; feedback?: string },
    ) {
      const application = await sequelize.transaction(async (transaction) => {
        const application = await forAwardingBody(userId, id, transaction);
        return applications.move(
          application,
          body.decision,
          'awarding_body',
          userId,
          transaction,
          body.feedback ?? null,
        );
      });
      return presentOne(application);
    },

    /**
     * The awarding body issues the certificate and the application is certified. Without
     * `certificateAssetId` CAP renders the PDF and stores it as the candidate's asset (service key); with
     * it, the file must be one the caller uploaded.
     */
    async issueCertificate(actor: AwardingBodyActor, id: string, certificateAssetId?: string) {
      // Read without a lock: the move below reads it again, locked, and checks the stage again.
      const application = await forAwardingBody(actor.userId, id);
      if (application.status !== 'in_progress' || application.currentStageKey !== 'certification') {
        throw conflict(
          'application.not_in_stage',
          `A certificate is issued at certification; the application is ${application.status === 'in_progress' ? `at ${application.currentStageKey}` : application.status}.`,
        );
      }
      const code = verificationCode();
      const issuedAt = new Date();
      let assetId = certificateAssetId;
      if (assetId) {
        if (!(await deps.orchestrator.ownsAsset(actor.bearer, assetId))) {
          throw unprocessable(
            'certificate.asset_not_found',
            'You have no uploaded file with that asset id: upload the certificate first (purpose certificate).',
            [{ field: 'certificateAssetId', issue: 'is not a file you uploaded' }],
          );
        }
      } else {
        const facts = await certificateFacts(application);
        const pdf = await renderCertificatePdf({
          title: application.type === 'RPL' ? 'Certificate of Competence' : 'National Skills Qualification',
          preamble:
            application.type === 'RPL'
              ? 'This certifies, through the recognition of prior learning, that'
              : 'This certifies that',
          holderName: facts.holderName,
          facts: [
            { label: 'Trade', value: facts.sector ? `${facts.trade} (${facts.sector})` : facts.trade },
            { label: 'Qualification level', value: facts.level },
            { label: 'Assessment centre', value: facts.centre },
            { label: 'Awarding body', value: facts.awardingBody },
          ],
          issuedOn: issuedAt,
          verificationCode: code,
          issuer: facts.awardingBody,
          verifyAt: `${deps.baseUrl()}/certificates/verify/${code}`,
        });
        assetId = await deps.orchestrator.storeFile({
          ownerUserId: application.candidateUserId,
          bytes: pdf,
          fileName: `certificate-${code}.pdf`,
          mimeType: 'application/pdf',
          purpose: 'certificate',
        });
      }
      const row = await sequelize.transaction(async (transaction) => {
        const locked = await forAwardingBody(actor.userId, id, transaction);
        await applications.move(locked, 'certify', 'awarding_body', actor.userId, transaction);
        return Certificate.create(
          {
            id: newId(),
            applicationId: id,
            awardingBodyId: locked.awardingBodyId!,
            certificateAssetId: assetId!,
            verificationCode: code,
            issuedBy: actor.userId,
            issuedAt,
          },
          { transaction },
        );
      });
      return certificateView(row);
    },

    /** The application's certificate, for whoever may read the application (404 until issued). */
    async certificate(reader: Reader, id: string) {
      await applications.visible(reader, id);
      const row = await Certificate.findOne({ where: { applicationId: id } });
      if (!row) throw notFound('No certificate was issued for this application.');
      return certificateView(row);
    },

    /** Public: whether a verification code is a certificate we issued, and what it certifies. */
    async verify(code: string) {
      const row = await Certificate.findOne({ where: { verificationCode: code.trim().toUpperCase() } });
      if (!row) throw notFound('No certificate has this verification code.');
      const application = (await applications.byId(row.applicationId))!;
      const facts = await certificateFacts(application);
      return {
        verificationCode: row.verificationCode,
        valid: true,
        issuedAt: row.issuedAt.toISOString(),
        applicationType: application.type,
        ...facts,
      };
    },

    /** For the shared view: the certificate's file and code once issued. */
    async sharedCertificate(applicationId: string) {
      const row = await Certificate.findOne({ where: { applicationId } });
      return {
        certificate: row
          ? {
              assetId: row.certificateAssetId,
              verificationCode: row.verificationCode,
              issuedAt: row.issuedAt.toISOString(),
            }
          : null,
      };
    },

    /**
     * `PATCH /centre/applications/bulk` with action `certify`: only with CAP_CENTRE_CERTIFY_BYPASS on; all
     * of the ids or none (every refused id named); no certificate is made.
     */
    async bulk(context: CentreContext, userId: string, body: { ids: string[]; action: 'certify' }) {
      const ids = [...new Set(body.ids)];
      // The flag is the operation's own precondition: refused as a whole, before any id is looked at.
      if (!applications.centreCertifyBypass) throw certifyBypassOff();
      return sequelize.transaction(async (transaction) => {
        const problems: ErrorDetail[] = [];
        for (const [i, id] of ids.entries()) {
          try {
            const application = await applications.visible(centreViewer(context, userId), id, transaction);
            await applications.move(application, 'certify_bypass', 'centre', userId, transaction);
          } catch (err) {
            if (!(err instanceof AppError)) throw err;
            problems.push({ field: `ids[${i}]`, issue: `${id}: ${err.code}` });
          }
        }
        if (problems.length)
          throw new AppError(
            409,
            'application.bulk_refused',
            `${problems.length} of the ${ids.length} applications cannot be certified; nothing was changed.`,
            problems,
          );
        return { action: body.action, updated: ids.length, ids };
      });
    },
  };
}

export type Verification = ReturnType<typeof createVerification>;

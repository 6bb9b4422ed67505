import { createHash, randomBytes } from 'node:crypto';
import {
  DataTypes,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
} from 'sequelize';
import { conflict, notFound } from '../../../platform/http/errors.ts';
import { newId } from '../../../platform/ids.ts';
import { stageLabels } from '../lifecycle.ts';
import type { Applications } from '../service.ts';
import type { Evidence } from '../evidence/service.ts';
import type { OrchestratorHttp } from '../../../contracts/orchestrator-client.ts';

interface ShareToken extends Model<InferAttributes<ShareToken>, InferCreationAttributes<ShareToken>> {
  id: CreationOptional<string>;
  applicationId: string;
  /** SHA-256 of the token (hex); the token itself is only ever in the answer that made it. */
  tokenHash: string;
  createdBy: string;
  createdAt: CreationOptional<Date>;
  revokedAt: Date | null;
}

const digest = (token: string) => createHash('sha256').update(token).digest('hex');

/** What else a shared application shows, from areas that come later in the lifecycle (the certificate). */
export type SharedExtras = (
  applicationId: string,
) => Promise<{ certificate: { assetId: string | null; [key: string]: unknown } | null }>;

/**
 * Sharing an application after internal verification approved it: the candidate makes a link (a random
 * 256-bit token, stored only as its SHA-256), anyone with it reads the application read-only with its
 * evidence files through CAP's proxy, and the candidate revokes it (404 at once). One live token per
 * application: a new one replaces the old.
 */
export function createSharing(deps: {
  sequelize: Sequelize;
  applications: Applications;
  evidence: Evidence;
  readAsset: OrchestratorHttp['readAsset'];
  baseUrl: () => string;
  extras?: SharedExtras;
}) {
  const { sequelize, applications, evidence } = deps;
  const ShareToken: ModelStatic<ShareToken> = sequelize.define<ShareToken>(
    'ShareToken',
    {
      id: { type: DataTypes.STRING(26), primaryKey: true, defaultValue: () => newId() },
      applicationId: DataTypes.STRING(26),
      tokenHash: DataTypes.STRING(64),
      createdBy: DataTypes.STRING(26),
      createdAt: DataTypes.DATE,
      revokedAt: DataTypes.DATE,
    },
    { tableName: 'application_share_tokens', updatedAt: false },
  );

  const sharedUrl = (token: string) => `${deps.baseUrl()}/shared/applications/${token}`;

  /** The live token's application, or 404 (unknown and revoked alike). */
  async function sharedApplication(token: string) {
    const row = await ShareToken.findOne({ where: { tokenHash: digest(token), revokedAt: null } });
    if (!row) throw notFound('This link is not valid or was revoked.');
    return (await applications.byId(row.applicationId))!;
  }

  return {
    /** A new link for the candidate's own application, once internal verification approved it. */
    async create(userId: string, applicationId: string) {
      const token = randomBytes(32).toString('base64url');
      const row = await sequelize.transaction(async (transaction) => {
        await applications.visible({ persona: 'candidate', userId }, applicationId, transaction);
        if (!(await applications.ivApproved(applicationId, transaction))) {
          throw conflict(
            'share.not_available',
            'An application can be shared once its internal verification is approved.',
          );
        }
        await ShareToken.update({ revokedAt: new Date() }, { where: { applicationId, revokedAt: null }, transaction });
        return ShareToken.create(
          { applicationId, tokenHash: digest(token), createdBy: userId, revokedAt: null },
          { transaction },
        );
      });
      return { applicationId, token, url: sharedUrl(token), createdAt: row.createdAt.toISOString() };
    },

    async revoke(userId: string, applicationId: string) {
      await applications.visible({ persona: 'candidate', userId }, applicationId);
      const [revoked] = await ShareToken.update(
        { revokedAt: new Date() },
        { where: { applicationId, revokedAt: null } },
      );
      return { applicationId, revoked: revoked > 0 };
    },

    /** The public read-only view: the application, its stages, its evidence and (when issued) its certificate. */
    async view(token: string) {
      const application = await sharedApplication(token);
      const { ApplicationStageRow } = applications.models;
      const [[summary], stages, general, selfAssessment, report, extras] = await Promise.all([
        applications.present([application]),
        ApplicationStageRow.findAll({ where: { applicationId: application.id }, order: [['position', 'ASC']] }),
        evidence.models.GeneralEvidence.findAll({ where: { applicationId: application.id }, order: [['id', 'ASC']] }),
        evidence.models.SelfAssessment.findOne({ where: { applicationId: application.id } }),
        evidence.models.ThirdPartyReport.findOne({ where: { applicationId: application.id } }),
        deps.extras?.(application.id) ?? { certificate: null },
      ]);
      const fileUrl = (assetId: string | null) => (assetId ? `${sharedUrl(token)}/assets/${assetId}` : null);
      const { candidate, centre, sector, trade } = summary!;
      return {
        application: {
          id: application.id,
          type: application.type,
          status: application.status,
          currentStageKey: application.currentStageKey,
          submittedAt: summary!.submittedAt,
          candidate: { name: candidate.name },
          centre,
          sector,
          trade,
        },
        stages: stages.map((row) => ({
          stageKey: row.stageKey,
          label: stageLabels[row.stageKey],
          status: row.status,
          enteredAt: row.enteredAt ? row.enteredAt.toISOString() : null,
        })),
        evidence: general.map((row) => ({
          id: row.id,
          documentName: row.documentName,
          evidenceType: row.evidenceType,
          fileUrl: fileUrl(row.assetId),
          formData: row.formData,
          textValue: row.textValue,
          createdAt: row.createdAt.toISOString(),
        })),
        // Only a submitted self-assessment is the candidate's word; the personal information stays private.
        selfAssessment: selfAssessment?.submittedAt
          ? {
              competencies: selfAssessment.competencies,
              reflection: selfAssessment.reflection,
              submittedAt: selfAssessment.submittedAt.toISOString(),
            }
          : null,
        thirdPartyReport: report
          ? { fileUrl: fileUrl(report.assetId), submittedAt: report.submittedAt.toISOString() }
          : null,
        certificate: extras.certificate
          ? { ...extras.certificate, fileUrl: fileUrl(extras.certificate.assetId) }
          : null,
      };
    },

    /** A file of the shared application, streamed through CAP; any other asset id is 404, like a revoked link. */
    async asset(token: string, assetId: string) {
      const application = await sharedApplication(token);
      const extras = (await deps.extras?.(application.id)) ?? { certificate: null };
      const shared = new Set([
        ...(await evidence.assetIds(application.id)),
        ...(extras.certificate?.assetId ? [extras.certificate.assetId] : []),
      ]);
      if (!shared.has(assetId)) throw notFound('This application has no such file.');
      const file = await deps.readAsset(assetId);
      if (!file) throw notFound('This file is no longer stored.');
      return file;
    },
  };
}

export type Sharing = ReturnType<typeof createSharing>;

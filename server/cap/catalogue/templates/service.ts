import { QueryTypes, type Sequelize } from 'sequelize';
import { notFound, validationFailed, type FieldDetail } from '../../../platform/http/errors.ts';
import { newId } from '../../../platform/ids.ts';
import type { AssetUrls, OrchestratorHttp } from '../../../contracts/orchestrator-client.ts';
import type { ApplicationType } from '../../applications/index.ts';
import { workflowInForce, type StageTemplate, type StagesOfLifecycle } from './workflow.ts';

/** The downloadable template the public third-party report template operation serves. */
export const thirdPartyReportKey = 'third_party_report';

/**
 * Templates admins keep. Downloadable templates are files (Orchestrator storage assets the admin
 * uploaded) under a key; CAP stores the asset ids and resolves their URLs on every read. Workflow
 * templates are versioned per application type (workflow.ts).
 */
export function createTemplates(deps: {
  sequelize: Sequelize;
  assetUrls: AssetUrls;
  ownsAsset: OrchestratorHttp['ownsAsset'];
  lifecycle: StagesOfLifecycle;
}) {
  const { sequelize, lifecycle } = deps;
  const select = <T extends object>(sql: string, bind: unknown[] = []) =>
    sequelize.query<T>(sql, { type: QueryTypes.SELECT, bind });

  async function downloads() {
    const rows = await select<{ key: string; asset_id: string; updated_at: Date }>(
      `SELECT key, asset_id, updated_at FROM cap.downloadable_templates ORDER BY key`,
    );
    const urlOf = await deps.assetUrls(rows.map((row) => row.asset_id));
    return rows.map((row) => ({
      key: row.key,
      assetId: row.asset_id,
      url: urlOf(row.asset_id),
      updatedAt: row.updated_at.toISOString(),
    }));
  }

  return {
    downloads,

    /**
     * Sets the templates named (a null asset id removes one), all or nothing: every asset must be a
     * file the admin uploaded, checked with their own token; each one that is not is named.
     */
    async putDownloads(adminId: string, bearer: string, templates: Array<{ key: string; assetId: string | null }>) {
      const keys = templates.map((t) => t.key);
      const problems: FieldDetail[] = templates.flatMap((t, i) =>
        keys.indexOf(t.key) !== i ? [{ field: `templates[${i}].key`, issue: `${t.key} is listed twice` }] : [],
      );
      for (const [i, t] of templates.entries()) {
        if (t.assetId && !(await deps.ownsAsset(bearer, t.assetId)))
          problems.push({ field: `templates[${i}].assetId`, issue: 'is not a file you uploaded' });
      }
      if (problems.length)
        throw validationFailed(
          problems,
          'Nothing was changed: upload each file first (POST /v1/ol/storage/upload), then name it here.',
        );
      await sequelize.transaction(async (transaction) => {
        for (const t of templates) {
          if (t.assetId === null)
            await sequelize.query(`DELETE FROM cap.downloadable_templates WHERE key = $1`, {
              bind: [t.key],
              transaction,
            });
          else {
            await sequelize.query(
              `INSERT INTO cap.downloadable_templates (key, asset_id, updated_by, updated_at) VALUES ($1, $2, $3, now())
               ON CONFLICT (key) DO UPDATE SET asset_id = EXCLUDED.asset_id, updated_by = EXCLUDED.updated_by, updated_at = EXCLUDED.updated_at`,
              { bind: [t.key, t.assetId, adminId], transaction },
            );
          }
        }
      });
      return downloads();
    },

    /** The third-party report template, for anyone: 404 until an admin sets one. */
    async thirdPartyReportTemplate() {
      const [row] = await select<{ asset_id: string }>(
        `SELECT asset_id FROM cap.downloadable_templates WHERE key = $1`,
        [thirdPartyReportKey],
      );
      if (!row) throw notFound('No third-party report template has been published yet.');
      return { assetId: row.asset_id, url: (await deps.assetUrls([row.asset_id]))(row.asset_id) };
    },

    /** The workflow template in force for each application type. */
    workflows: () => Promise.all(lifecycle.applicationTypes.map((type) => workflowInForce(sequelize, lifecycle, type))),

    async workflowVersions(type: ApplicationType) {
      const rows = await select<{ version: number; stages: StageTemplate[]; published_at: Date }>(
        `SELECT version, stages, published_at FROM cap.workflow_template_versions WHERE application_type = $1 ORDER BY version DESC`,
        [type],
      );
      return rows.map((row) => ({
        applicationType: type,
        version: row.version,
        stages: row.stages,
        publishedAt: row.published_at.toISOString(),
      }));
    },

    /**
     * Publishes a new version: the stages must be the type's lifecycle stages, each once, in order
     * (422 naming what differs). Versions are numbered under a per-type lock.
     */
    async publishWorkflow(
      adminId: string,
      type: ApplicationType,
      input: {
        stages: Array<{ stageKey: string; label?: string; durationDays?: number | null; guidance?: string | null }>;
      },
    ) {
      const expected = lifecycle.stagesOf[type];
      const problems: FieldDetail[] = [];
      if (input.stages.length !== expected.length)
        problems.push({
          field: 'stages',
          issue: `lists ${input.stages.length} stages; ${type} has ${expected.length}: ${expected.join(', ')}`,
        });
      for (const [i, stage] of input.stages.entries()) {
        if (stage.stageKey !== expected[i])
          problems.push({
            field: `stages[${i}].stageKey`,
            issue: `is ${stage.stageKey}; stage ${i + 1} of ${type} is ${expected[i] ?? 'none'}`,
          });
      }
      if (problems.length)
        throw validationFailed(
          problems,
          `A ${type} workflow template lists the ${type} stages in their lifecycle order.`,
        );
      const current = await workflowInForce(sequelize, lifecycle, type);
      const stages: StageTemplate[] = input.stages.map((stage, i) => ({
        stageKey: expected[i]!,
        label: stage.label?.trim() || current.stages[i]!.label,
        durationDays: stage.durationDays ?? null,
        guidance: stage.guidance?.trim() || null,
      }));
      return sequelize.transaction(async (transaction) => {
        await sequelize.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, {
          bind: [`workflow:${type}`],
          transaction,
        });
        const latest = await workflowInForce(sequelize, lifecycle, type, transaction);
        const version = latest.version + 1;
        const publishedAt = new Date();
        await sequelize.query(
          `INSERT INTO cap.workflow_template_versions (id, application_type, version, stages, published_by, published_at) VALUES ($1, $2, $3, $4, $5, $6)`,
          { bind: [newId(), type, version, JSON.stringify(stages), adminId, publishedAt], transaction },
        );
        return { applicationType: type, version, stages, publishedAt: publishedAt.toISOString() };
      });
    },
  };
}

export type Templates = ReturnType<typeof createTemplates>;

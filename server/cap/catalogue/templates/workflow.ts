import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { ApplicationType, StageKey } from '../../applications/index.ts';

/** The application lifecycle's stages, as the applications module defines them (a template lists exactly those). */
export interface StagesOfLifecycle {
  applicationTypes: readonly ApplicationType[];
  stagesOf: Record<ApplicationType, readonly StageKey[]>;
  stageLabels: Record<StageKey, string>;
}

/**
 * A workflow template: how the stages of one application type are presented and paced. The stages
 * themselves and their order are the lifecycle's (the applications module's), so a template lists
 * exactly those; it sets each stage's label, the days a stage should take (an entered stage's
 * deadline is its entry plus these days) and guidance for the people working it. Templates are
 * versioned; the newest published one is in force, and before any is published version 0, the
 * lifecycle's own labels with no durations.
 */
export interface StageTemplate {
  stageKey: StageKey;
  label: string;
  durationDays: number | null;
  guidance: string | null;
}

export interface WorkflowTemplate {
  applicationType: ApplicationType;
  version: number;
  stages: StageTemplate[];
  publishedAt: string | null;
}

export const defaultWorkflow = (lifecycle: StagesOfLifecycle, type: ApplicationType): WorkflowTemplate => ({
  applicationType: type,
  version: 0,
  stages: lifecycle.stagesOf[type].map((stageKey) => ({
    stageKey,
    label: lifecycle.stageLabels[stageKey],
    durationDays: null,
    guidance: null,
  })),
  publishedAt: null,
});

/** The template in force for an application type. */
export async function workflowInForce(
  sequelize: Sequelize,
  lifecycle: StagesOfLifecycle,
  type: ApplicationType,
  transaction?: Transaction,
): Promise<WorkflowTemplate> {
  const [row] = await sequelize.query<{ version: number; stages: StageTemplate[]; published_at: Date }>(
    `SELECT version, stages, published_at FROM cap.workflow_template_versions WHERE application_type = $1 ORDER BY version DESC LIMIT 1`,
    { type: QueryTypes.SELECT, bind: [type], transaction },
  );
  return row
    ? { applicationType: type, version: row.version, stages: row.stages, publishedAt: row.published_at.toISOString() }
    : defaultWorkflow(lifecycle, type);
}

/** A stage's deadline: its entry plus the template's days, when both are known. */
export const deadlineOf = (enteredAt: Date | null, durationDays: number | null): string | null =>
  enteredAt && durationDays !== null ? new Date(enteredAt.getTime() + durationDays * 86_400_000).toISOString() : null;

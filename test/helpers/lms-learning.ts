import type { Sequelize } from 'sequelize';
import { defineCourseModels, type ItemType, type Quiz } from '../../server/lms/catalogue/courses/models.ts';
import { createEntitlements } from '../../server/lms/learning/enrollments/entitlements.ts';
import { samplePackage } from '../../server/lms/catalogue/scorm/sample.ts';
import { createSequelize } from '../../server/platform/db/database.ts';
import { createEventRuntime } from '../../server/platform/events/runtime.ts';
import { newId } from '../../server/platform/ids.ts';
import { uploadAsset } from './files.ts';
import type { LmsPerson } from './lms.ts';
import { captureLogs, startTestPlatform, type TestPlatform } from './platform.ts';

// The LMS's learning side in tests: courses written straight into the LMS schema (authoring has its
// own tests), entitlements granted through the foundation's grant.

export interface ItemSpec {
  type: ItemType;
  title?: string;
  required?: boolean;
  packageAssetId?: string;
  quiz?: Quiz;
  /** Index of the module it belongs to (default 0). */
  module?: number;
}

export interface CourseSpec {
  createdBy: string;
  title?: string;
  priceMinorUnits?: string;
  status?: 'draft' | 'published';
  modules?: Array<{ optional?: boolean }>;
  items: ItemSpec[];
  /** Prerequisites by item index: `{ 1: [0] }` locks item 1 until item 0 is completed. */
  requires?: Record<number, number[]>;
  completionPolicy?: { minPercent: number; requireAllRequiredItems: boolean; requirePassedAssessments: boolean };
  capLinkage?: { sectorId?: string; tradeId?: string; qualificationLevelId?: string; unitId?: string };
}

/** Writes a course with its modules and items; answers the course id, module ids and item ids in order. */
export async function lmsCourse(
  sequelize: Sequelize,
  spec: CourseSpec,
): Promise<{ courseId: string; moduleIds: string[]; itemIds: string[] }> {
  const { Course, CourseModule, CourseItem } = defineCourseModels(sequelize);
  const courseId = newId();
  const moduleIds = (spec.modules ?? [{}]).map(() => newId());
  const itemIds = spec.items.map(() => newId());
  await sequelize.transaction(async (transaction) => {
    await Course.create(
      {
        id: courseId,
        title: spec.title ?? 'Workshop safety',
        description: 'Staying safe in a workshop.',
        thumbnailAssetId: null,
        status: spec.status ?? 'published',
        priceMinorUnits: spec.priceMinorUnits ?? '0',
        currency: 'NGN',
        sectorId: spec.capLinkage?.sectorId ?? null,
        tradeId: spec.capLinkage?.tradeId ?? null,
        qualificationLevelId: spec.capLinkage?.qualificationLevelId ?? null,
        unitId: spec.capLinkage?.unitId ?? null,
        completionPolicy: spec.completionPolicy ?? {
          minPercent: 100,
          requireAllRequiredItems: true,
          requirePassedAssessments: true,
        },
        sequencing: {
          prerequisites: Object.entries(spec.requires ?? {}).map(([target, requires]) => ({
            targetId: itemIds[Number(target)]!,
            requires: requires.map((i) => itemIds[i]!),
          })),
        },
        publishedAt: spec.status === 'draft' ? null : new Date(),
        createdBy: spec.createdBy,
      },
      { transaction },
    );
    for (const [i, module] of (spec.modules ?? [{}]).entries()) {
      await CourseModule.create(
        { id: moduleIds[i]!, courseId, title: `Module ${i + 1}`, position: i, optional: module.optional ?? false },
        { transaction },
      );
    }
    for (const [i, item] of spec.items.entries()) {
      await CourseItem.create(
        {
          id: itemIds[i]!,
          courseId,
          moduleId: moduleIds[item.module ?? 0]!,
          type: item.type,
          title: item.title ?? `Item ${i + 1}`,
          position: i,
          required: item.required ?? true,
          body: item.type === 'native_lesson' ? { text: 'Read this.' } : null,
          mediaAssetId: null,
          packageAssetId: item.packageAssetId ?? null,
          scoHref: item.packageAssetId ? 'index.html' : null,
          quiz: item.quiz ?? null,
        },
        { transaction },
      );
    }
  });
  return { courseId, moduleIds, itemIds };
}

/** The bundled SCORM package uploaded to the Orchestrator's storage by `owner`; answers its asset id. */
export const uploadSamplePackage = async (platform: TestPlatform, owner: { accessToken: string }) =>
  uploadAsset(platform, owner, await samplePackage(), 'scorm_package', 'workshop-safety.zip', 'application/zip');

/** The LMS schema and its grant function, for tests that set up entitlements directly. */
export function lmsDatabase(platform: TestPlatform) {
  const sequelize = createSequelize(platform.databaseUrl, 'lms');
  const entitlements = createEntitlements(
    sequelize,
    createEventRuntime(platform.databaseUrl, captureLogs().logger).forService('lms', 'lms', sequelize),
  );
  return {
    sequelize,
    /** Grants the course to the learner (an admin grant); answers the active enrollment's id. */
    grant: async (courseId: string, learnerLmsUserId: string) =>
      (
        await sequelize.transaction((tx) =>
          entitlements.grant(tx, { courseId, learnerLmsUserId, source: 'admin_grant' }),
        )
      ).enrollment.id,
    close: () => sequelize.close(),
  };
}

/** A test platform with its LMS database open and a first person made by `first`: where the learning tests start. */
export async function learningPlatform(first: (platform: TestPlatform) => Promise<LmsPerson>) {
  const platform = await startTestPlatform();
  const db = lmsDatabase(platform);
  return { platform, db, person: await first(platform) };
}

/** Closes what learningPlatform opened. */
export async function stopLearning(
  platform: TestPlatform | undefined,
  db: { close(): Promise<void> } | undefined,
): Promise<void> {
  await db?.close();
  await platform?.stop();
}

import type { FieldDetail } from '../../../platform/http/errors.ts';
import { defineLifecycle } from '../../../platform/lifecycle.ts';
import {
  DataTypes,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
} from 'sequelize';
import { id, reference, timestamps } from '../../../platform/db/columns.ts';

export const courseStatuses = ['draft', 'published', 'archived'] as const;
export type CourseStatus = (typeof courseStatuses)[number];

/**
 * A course, as data: written as a `draft`, published by its owner or staff once it is publishable (each
 * problem is a detail of the refusal, checked again on every publish), unpublished back to a draft.
 * Publishing a published course or unpublishing a draft changes nothing. Nothing leads to `archived` yet.
 */
export const courseLifecycle = defineLifecycle({
  subject: 'course',
  statuses: courseStatuses,
  movers: ['author'],
  moves: {
    create: { from: [null], to: 'draft', by: ['author'] },
    publish: { from: ['draft', 'archived'], to: 'published', by: ['author'], guards: ['publishable'] },
    unpublish: { from: ['published', 'archived'], to: 'draft', by: ['author'] },
  },
  guards: {
    publishable: (problems: FieldDetail[]) =>
      problems.length
        ? { reason: 'The course is not ready to publish; details name each problem.', details: problems }
        : undefined,
  },
  idempotent: true,
});
export const itemTypes = ['native_lesson', 'video', 'quiz', 'assignment', 'scorm_package'] as const;
export type ItemType = (typeof itemTypes)[number];
export type CourseInstructorRole = 'owner' | 'co_instructor';

/** When a course counts as completed (CompletionPolicy on the wire). */
export interface CompletionPolicy {
  minPercent: number;
  requireAllRequiredItems: boolean;
  requirePassedAssessments: boolean;
}

/** A target (module or item id) opens only once every id it requires is completed (SequencingConfig). */
export interface Sequencing {
  prerequisites: Array<{ targetId: string; requires: string[] }>;
}

export interface QuizQuestion {
  id: string;
  prompt: string;
  choices: Array<{ id: string; text: string; correct?: boolean }>;
}

/** A native quiz as authored: the pass mark, the attempts allowed (null: unlimited) and the questions with their correct choices. */
export interface Quiz {
  passPercent: number;
  maxAttempts: number | null;
  questions: QuizQuestion[];
}

export interface Course extends Model<InferAttributes<Course>, InferCreationAttributes<Course>> {
  id: string;
  title: string;
  description: string;
  thumbnailAssetId: string | null;
  status: CourseStatus;
  priceMinorUnits: string;
  currency: string;
  sectorId: string | null;
  tradeId: string | null;
  qualificationLevelId: string | null;
  unitId: string | null;
  completionPolicy: CompletionPolicy;
  sequencing: Sequencing;
  publishedAt: Date | null;
  /** The LMS user who created the course (its first owner). */
  createdBy: string;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

export interface CourseInstructor extends Model<
  InferAttributes<CourseInstructor>,
  InferCreationAttributes<CourseInstructor>
> {
  id: string;
  courseId: string;
  lmsUserId: string;
  role: CourseInstructorRole;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

/** A module of a course; `position` is the wire's `order`. */
export interface CourseModule extends Model<InferAttributes<CourseModule>, InferCreationAttributes<CourseModule>> {
  id: string;
  courseId: string;
  title: string;
  position: number;
  optional: boolean;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

/**
 * An item of a module. What it carries depends on its type: a lesson or video its `body` (and a
 * `mediaAssetId`), a SCORM item its package (`packageAssetId`, an Orchestrator storage asset, with the
 * launch file `scoHref` read from the package's manifest), a quiz its `quiz`.
 */
export interface CourseItem extends Model<InferAttributes<CourseItem>, InferCreationAttributes<CourseItem>> {
  id: string;
  courseId: string;
  moduleId: string;
  type: ItemType;
  title: string;
  position: number;
  required: boolean;
  body: Record<string, unknown> | null;
  mediaAssetId: string | null;
  packageAssetId: string | null;
  scoHref: string | null;
  quiz: Quiz | null;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

const defined = new WeakMap<Sequelize, ReturnType<typeof define>>();

/** The course models of the LMS, defined once per Sequelize instance (several areas use them). */
export function defineCourseModels(sequelize: Sequelize) {
  let models = defined.get(sequelize);
  if (!models) defined.set(sequelize, (models = define(sequelize)));
  return models;
}

function define(sequelize: Sequelize) {
  const Course = sequelize.define<Course>(
    'LmsCourse',
    {
      id: id(),
      title: { type: DataTypes.STRING(200), allowNull: false },
      description: { type: DataTypes.TEXT, allowNull: false },
      thumbnailAssetId: { type: DataTypes.STRING(100), allowNull: true },
      status: { type: DataTypes.STRING(16), allowNull: false },
      priceMinorUnits: { type: DataTypes.BIGINT, allowNull: false },
      currency: { type: DataTypes.STRING(3), allowNull: false },
      sectorId: { type: DataTypes.STRING(64), allowNull: true },
      tradeId: { type: DataTypes.STRING(64), allowNull: true },
      qualificationLevelId: { type: DataTypes.STRING(64), allowNull: true },
      unitId: { type: DataTypes.STRING(64), allowNull: true },
      completionPolicy: { type: DataTypes.JSONB, allowNull: false },
      sequencing: { type: DataTypes.JSONB, allowNull: false },
      publishedAt: { type: DataTypes.DATE, allowNull: true },
      createdBy: reference(),
      ...timestamps(),
    },
    { tableName: 'lms_courses' },
  );
  const CourseInstructor = sequelize.define<CourseInstructor>(
    'LmsCourseInstructor',
    {
      id: id(),
      courseId: reference(),
      lmsUserId: reference(),
      role: { type: DataTypes.STRING(16), allowNull: false },
      ...timestamps(),
    },
    { tableName: 'lms_course_instructors' },
  );
  const CourseModule = sequelize.define<CourseModule>(
    'LmsModule',
    {
      id: id(),
      courseId: reference(),
      title: { type: DataTypes.STRING(200), allowNull: false },
      position: { type: DataTypes.INTEGER, allowNull: false },
      optional: { type: DataTypes.BOOLEAN, allowNull: false },
      ...timestamps(),
    },
    { tableName: 'lms_modules' },
  );
  const CourseItem = sequelize.define<CourseItem>(
    'LmsItem',
    {
      id: id(),
      courseId: reference(),
      moduleId: reference(),
      type: { type: DataTypes.STRING(16), allowNull: false },
      title: { type: DataTypes.STRING(200), allowNull: false },
      position: { type: DataTypes.INTEGER, allowNull: false },
      required: { type: DataTypes.BOOLEAN, allowNull: false },
      body: { type: DataTypes.JSONB, allowNull: true },
      mediaAssetId: { type: DataTypes.STRING(100), allowNull: true },
      packageAssetId: { type: DataTypes.STRING(100), allowNull: true },
      scoHref: { type: DataTypes.STRING(500), allowNull: true },
      quiz: { type: DataTypes.JSONB, allowNull: true },
      ...timestamps(),
    },
    { tableName: 'lms_items' },
  );
  return {
    Course: Course as ModelStatic<Course>,
    CourseInstructor: CourseInstructor as ModelStatic<CourseInstructor>,
    CourseModule: CourseModule as ModelStatic<CourseModule>,
    CourseItem: CourseItem as ModelStatic<CourseItem>,
  };
}

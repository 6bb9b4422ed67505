import { money } from '../../../platform/money.ts';
import type { Course, CourseInstructor, CourseItem, CourseModule, Sequencing } from './models.ts';

/** What a course's summary shows: a model instance, or a catalogue page's plain row. */
export type CourseSummaryFields = Pick<
  Course,
  | 'id'
  | 'title'
  | 'description'
  | 'thumbnailAssetId'
  | 'status'
  | 'priceMinorUnits'
  | 'currency'
  | 'sectorId'
  | 'tradeId'
  | 'qualificationLevelId'
  | 'unitId'
>;

export function courseSummary(course: CourseSummaryFields) {
  return {
    id: course.id,
    title: course.title,
    description: course.description,
    thumbnailAssetId: course.thumbnailAssetId,
    status: course.status,
    price: money(course.priceMinorUnits, course.currency),
    capLinkage: {
      sectorId: course.sectorId,
      tradeId: course.tradeId,
      qualificationLevelId: course.qualificationLevelId,
      unitId: course.unitId,
    },
  };
}

export function courseDetail(course: Course) {
  return {
    ...courseSummary(course),
    completionPolicy: course.completionPolicy,
    publishedAt: course.publishedAt?.toISOString() ?? null,
    createdAt: course.createdAt.toISOString(),
    updatedAt: course.updatedAt.toISOString(),
  };
}

export function moduleView(module: CourseModule) {
  return {
    id: module.id,
    courseId: module.courseId,
    title: module.title,
    order: module.position,
    optional: module.optional,
  };
}

/** An item as its authors see it: everything, quiz answers included. */
export function itemView(item: CourseItem) {
  return {
    id: item.id,
    moduleId: item.moduleId,
    type: item.type,
    title: item.title,
    order: item.position,
    required: item.required,
    ...(item.body ? { body: item.body } : {}),
    mediaAssetId: item.mediaAssetId,
    packageAssetId: item.packageAssetId,
    scoHref: item.scoHref,
    ...(item.quiz ? { quiz: item.quiz } : {}),
  };
}

const byPosition = <T extends { position: number; id: string }>(a: T, b: T) =>
  a.position - b.position || a.id.localeCompare(b.id);

/** Modules and items in order, with titles and types but no content (what the catalogue shows). */
export function outlineView(course: Course, modules: CourseModule[], items: CourseItem[]) {
  return {
    courseId: course.id,
    modules: [...modules].sort(byPosition).map((module) => ({
      id: module.id,
      title: module.title,
      order: module.position,
      optional: module.optional,
      items: items
        .filter((item) => item.moduleId === module.id)
        .sort(byPosition)
        .map((item) => ({
          id: item.id,
          type: item.type,
          title: item.title,
          order: item.position,
          required: item.required,
        })),
    })),
    sequencing: course.sequencing as Sequencing,
  };
}

export function instructorView(assignment: CourseInstructor, displayName: string | null) {
  return { lmsUserId: assignment.lmsUserId, ...(displayName ? { displayName } : {}), role: assignment.role };
}

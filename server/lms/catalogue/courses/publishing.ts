import type { FieldDetail } from '../../../platform/http/errors.ts';
import type { Course, CourseItem, CourseModule, ItemType } from './models.ts';

const isBlank = (value: string | null | undefined) => !value || value.trim() === '';
const isEmptyBody = (body: Record<string, unknown> | null) => !body || Object.keys(body).length === 0;

/** What an item of each type must carry before its course can be published; the issue when it does not. */
export const itemContentRules: Record<ItemType, (item: CourseItem) => string | undefined> = {
  native_lesson: (item) => (isEmptyBody(item.body) ? 'is a lesson without a body' : undefined),
  assignment: (item) => (isEmptyBody(item.body) ? 'is an assignment without a body' : undefined),
  video: (item) => (isBlank(item.mediaAssetId) ? 'is a video without a media asset' : undefined),
  scorm_package: (item) => (isBlank(item.packageAssetId) ? 'is a SCORM item without a package' : undefined),
  quiz: (item) => {
    const questions = item.quiz?.questions ?? [];
    if (questions.length === 0) return 'is a quiz without questions';
    const unanswerable = questions.filter((q) => !q.choices.some((c) => c.correct));
    return unanswerable.length
      ? `is a quiz whose question ${unanswerable.map((q) => q.id).join(', ')} has no correct choice`
      : undefined;
  },
};

/**
 * Why the course cannot be published, one detail per problem; empty when it can. A course needs a
 * title, at least one module, an item in every module, and every item's content.
 */
export function publishProblems(course: Course, modules: CourseModule[], items: CourseItem[]): FieldDetail[] {
  const problems: FieldDetail[] = [];
  if (isBlank(course.title)) problems.push({ field: 'title', issue: 'the course has no title' });
  if (modules.length === 0) problems.push({ field: 'modules', issue: 'the course has no modules' });
  for (const module of modules) {
    if (!items.some((item) => item.moduleId === module.id))
      problems.push({ field: `modules.${module.id}`, issue: `module "${module.title}" has no items` });
  }
  for (const item of items) {
    const issue = itemContentRules[item.type](item);
    if (issue) problems.push({ field: `items.${item.id}`, issue: `item "${item.title}" ${issue}` });
  }
  return problems;
}

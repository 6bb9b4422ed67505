// The rollup of a learner's progress in a course, as pure functions of the course's structure, its
// sequencing and completion policy, and the learner's item states: which items are locked, the
// percentage done, and whether the completion policy is met.

import { defineLifecycle } from '../../../platform/lifecycle.ts';

/**
 * A learner's progress on one item, as data. Its row is opened `not_started` the first time the item
 * is touched; each record moves it to the state the learner's work means (a move to the same state
 * records new progress). A completed item stays completed.
 */
export const itemProgressLifecycle = defineLifecycle({
  subject: 'item progress',
  statuses: ['not_started', 'in_progress', 'completed', 'failed'],
  movers: ['learner'],
  moves: {
    not_started: { from: [null], to: 'not_started', by: ['learner'] },
    in_progress: { from: ['not_started', 'in_progress', 'failed'], to: 'in_progress', by: ['learner'] },
    completed: { from: ['not_started', 'in_progress', 'failed', 'completed'], to: 'completed', by: ['learner'] },
    failed: { from: ['not_started', 'in_progress', 'failed'], to: 'failed', by: ['learner'] },
  },
});

export type ItemState = (typeof itemProgressLifecycle.statuses)[number];

export interface OutlineItem {
  id: string;
  moduleId: string;
  type: string;
  required: boolean;
}

export interface OutlineModule {
  id: string;
  optional: boolean;
}

export interface CourseRules {
  modules: OutlineModule[];
  /** In course order: module by module, item by item. */
  items: OutlineItem[];
  sequencing: { prerequisites: Array<{ targetId: string; requires: string[] }> };
  completionPolicy: { minPercent: number; requireAllRequiredItems: boolean; requirePassedAssessments: boolean };
}

export interface ItemRecord {
  status: ItemState;
  scorePercent: number | null;
}

export interface Rollup {
  percentComplete: number;
  items: Array<{ itemId: string; status: ItemState | 'locked'; scorePercent: number | null; locked: boolean }>;
  /** Whether the completion policy is met. */
  complete: boolean;
}

/** The items that count towards completion: required items of modules that are not optional. */
export function countedItems(rules: CourseRules): OutlineItem[] {
  const optional = new Set(rules.modules.filter((m) => m.optional).map((m) => m.id));
  return rules.items.filter((item) => item.required && !optional.has(item.moduleId));
}

export function rollup(rules: CourseRules, records: Map<string, ItemRecord>): Rollup {
  const done = (itemId: string) => records.get(itemId)?.status === 'completed';
  const moduleDone = (moduleId: string) =>
    rules.items.filter((i) => i.moduleId === moduleId && i.required).every((i) => done(i.id));
  const itemIds = new Set(rules.items.map((i) => i.id));
  const satisfied = (id: string) => (itemIds.has(id) ? done(id) : moduleDone(id));
  const locked = (item: OutlineItem) =>
    rules.sequencing.prerequisites.some(
      (rule) => (rule.targetId === item.id || rule.targetId === item.moduleId) && !rule.requires.every(satisfied),
    );

  const counted = countedItems(rules);
  const percentComplete = counted.length
    ? Math.floor((100 * counted.filter((i) => done(i.id)).length) / counted.length)
    : 0;
  const policy = rules.completionPolicy;
  const quizzes = counted.filter((i) => i.type === 'quiz');
  const complete =
    counted.length > 0 &&
    percentComplete >= policy.minPercent &&
    (!policy.requireAllRequiredItems || counted.every((i) => done(i.id))) &&
    (!policy.requirePassedAssessments || quizzes.every((i) => done(i.id)));

  return {
    percentComplete,
    complete,
    items: rules.items.map((item) => {
      const record = records.get(item.id);
      const isLocked = locked(item);
      const status = record?.status ?? 'not_started';
      return {
        itemId: item.id,
        status: isLocked && status === 'not_started' ? 'locked' : status,
        scorePercent: record?.scorePercent ?? null,
        locked: isLocked,
      };
    }),
  };
}

/** The item state a SCORM lesson status means; a completed item stays completed. */
export function stateOfLessonStatus(
  lessonStatus: 'incomplete' | 'completed' | 'passed' | 'failed',
  before: ItemState | undefined,
): ItemState {
  if (before === 'completed') return 'completed';
  if (lessonStatus === 'passed' || lessonStatus === 'completed') return 'completed';
  if (lessonStatus === 'failed') return 'failed';
  return 'in_progress';
}

/** A reported score as a whole percentage: raw out of max, or raw as a percentage when there is no max. */
export function scorePercent(scoreRaw: number | null | undefined, scoreMax: number | null | undefined): number | null {
  if (scoreRaw === null || scoreRaw === undefined) return null;
  const percent = scoreMax ? (100 * scoreRaw) / scoreMax : scoreRaw;
  return Math.max(0, Math.min(100, Math.round(percent)));
}

import type { Sequelize, Transaction } from 'sequelize';
import { containing } from '../../../platform/db/like.ts';
import { conflict, forbidden, notFound, validationFailed, type FieldDetail } from '../../../platform/http/errors.ts';
import { Conditions, keysetInstances, keysetRows } from '../../../platform/db/keyset.ts';
import { preparedReads } from '../../../platform/db/prepared.ts';
import type { PageRequest } from '../../../platform/http/pagination.ts';
import { newId } from '../../../platform/ids.ts';
import { lifecycleWriter, modelStore } from '../../../platform/lifecycle.ts';
import { MoneyError, parseMoney, type Money } from '../../../platform/money.ts';
import type { Actor } from '../../people/index.ts';
import { defineUserModels } from '../../people/index.ts';
import {
  courseLifecycle,
  defineCourseModels,
  type CompletionPolicy,
  type Course,
  type CourseItem,
  type CourseModule,
  type ItemType,
  type Quiz,
  type Sequencing,
} from './models.ts';
import { publishProblems } from './publishing.ts';
import {
  courseDetail,
  courseSummary,
  instructorView,
  itemView,
  moduleView,
  outlineView,
  type CourseSummaryFields,
} from './views.ts';

export interface CapLinkageWrite {
  sectorId?: string | null;
  tradeId?: string | null;
  qualificationLevelId?: string | null;
  unitId?: string | null;
}
export interface CourseWrite {
  title?: string;
  description?: string;
  thumbnailAssetId?: string | null;
  price?: Money;
  capLinkage?: CapLinkageWrite;
  completionPolicy?: CompletionPolicy;
}
export interface ModuleWrite {
  title?: string;
  order?: number;
  optional?: boolean;
}
export interface ItemWrite {
  type?: ItemType;
  title?: string;
  order?: number;
  required?: boolean;
  body?: Record<string, unknown>;
  mediaAssetId?: string | null;
  packageAssetId?: string | null;
  quiz?: Partial<Quiz>;
}
export interface CourseFilters {
  q?: string;
  status?: Course['status'];
  sectorId?: string;
  tradeId?: string;
  qualificationLevelId?: string;
  unitId?: string;
}

/** A new course's completion policy: every required item done, every quiz passed. */
export const defaultCompletionPolicy: CompletionPolicy = {
  minPercent: 100,
  requireAllRequiredItems: true,
  requirePassedAssessments: true,
};
const defaultPassPercent = 70;

export type Courses = ReturnType<typeof createCourses>;

/**
 * Checks and extracts a SCORM package when an item is given one (the player's package store): 422
 * `lms.scorm.invalid_package` for anything unusable; the answer's `scoHref` is the item's launch file.
 * `bearer` is the author's token, proving the asset is their own upload.
 */
export type AttachPackage = (packageAssetId: string, bearer: string | undefined) => Promise<{ scoHref: string }>;

/** The catalogue (published courses for everyone) and authoring (instructors of a course, and staff). */
export function createCourses(sequelize: Sequelize, attachPackage?: AttachPackage) {
  const { Course, CourseInstructor, CourseModule, CourseItem } = defineCourseModels(sequelize);
  const read = preparedReads(sequelize);
  const { LmsUser } = defineUserModels(sequelize);
  const lifecycle = lifecycleWriter(courseLifecycle, {
    store: modelStore(Course),
    refuse: (refusal) =>
      conflict(
        'lms.course.not_publishable',
        refusal.reason,
        refusal.kind === 'guard_failed' ? refusal.details : undefined,
      ),
  });

  // ---- scope -------------------------------------------------------------------------------------

  async function roleOn(actor: Actor, courseId: string) {
    return (await CourseInstructor.findOne({ where: { courseId, lmsUserId: actor.user.id } }))?.role ?? null;
  }

  /** The course, when the caller may edit it (an instructor of it, or staff); 404 when there is none. */
  async function editable(actor: Actor, courseId: string, transaction?: Transaction): Promise<Course> {
    const course = await Course.findByPk(courseId, {
      transaction,
      lock: transaction ? transaction.LOCK.UPDATE : undefined,
    });
    if (!course) throw notFound('No such course.');
    if (!actor.staffRole && !(await roleOn(actor, courseId)))
      throw outOfScope('The caller is not an instructor of this course.');
    return course;
  }

  /** Publishing and unpublishing are for the course's owner and staff, not co-instructors. */
  async function ownedOrStaff(actor: Actor, courseId: string, transaction: Transaction): Promise<Course> {
    const course = await editable(actor, courseId, transaction);
    if (!actor.staffRole && (await roleOn(actor, courseId)) !== 'owner')
      throw outOfScope('Only the course owner or staff may publish or unpublish it.');
    return course;
  }

  const outOfScope = (message: string) => forbidden('auth.out_of_scope', message);

  // ---- catalogue ---------------------------------------------------------------------------------

  const filterColumns = {
    status: 'status',
    sectorId: 'sector_id',
    tradeId: 'trade_id',
    qualificationLevelId: 'qualification_level_id',
    unitId: 'unit_id',
  } as const;
  function filtersWhere(filters: CourseFilters): Conditions {
    const where = new Conditions();
    for (const [key, column] of Object.entries(filterColumns))
      if (filters[key as keyof typeof filterColumns])
        where.add(`x.${column} = ?`, filters[key as keyof typeof filterColumns]);
    if (filters.q?.trim()) where.add('(x.title ILIKE ? OR x.description ILIKE ?)', containing(filters.q));
    return where;
  }
  const courseList = (page: PageRequest, where: Conditions) =>
    keysetInstances(read, page, Course, { from: 'lms.lms_courses x', where, key: 'x.id', desc: true });

  async function catalogue(page: PageRequest, filters: CourseFilters) {
    // Plain rows: a summary needs no model instance (building them was most of a page's CPU).
    const { items, meta } = await keysetRows<CourseSummaryFields>(read, page, {
      select: `x.id, x.title, x.description, x.thumbnail_asset_id AS "thumbnailAssetId", x.status,
        x.price_minor_units AS "priceMinorUnits", x.currency, x.sector_id AS "sectorId", x.trade_id AS "tradeId",
        x.qualification_level_id AS "qualificationLevelId", x.unit_id AS "unitId"`,
      from: 'lms.lms_courses x',
      where: filtersWhere({ ...filters, status: 'published' }),
      key: 'x.id',
      desc: true,
    });
    return { data: items.map(courseSummary), meta };
  }

  /** A published course, or any course the caller authors. */
  async function visible(actor: Actor, courseId: string): Promise<Course> {
    const course = await Course.findByPk(courseId);
    if (!course) throw notFound('No such course.');
    if (course.status !== 'published' && !actor.staffRole && !(await roleOn(actor, courseId)))
      throw notFound('No such course.');
    return course;
  }

  async function publishedCourse(actor: Actor, courseId: string) {
    return courseDetail(await visible(actor, courseId));
  }

  async function outline(actor: Actor, courseId: string) {
    const course = await visible(actor, courseId);
    const [modules, items] = await contentOf(course.id);
    return outlineView(course, modules, items);
  }

  const contentOf = (courseId: string, transaction?: Transaction) =>
    Promise.all([
      CourseModule.findAll({ where: { courseId }, transaction }),
      CourseItem.findAll({ where: { courseId }, transaction }),
    ]);

  // ---- authoring: courses ------------------------------------------------------------------------

  async function authored(actor: Actor, page: PageRequest, filters: CourseFilters) {
    const where = filtersWhere(filters);
    if (!actor.staffRole)
      where.add('x.id IN (SELECT course_id FROM lms.lms_course_instructors WHERE lms_user_id = ?)', actor.user.id);
    const { items, meta } = await courseList(page, where);
    return { data: items.map(courseDetail), meta };
  }

  async function create(actor: Actor, write: CourseWrite) {
    if (!write.title?.trim()) throw validationFailed([{ field: 'body.title', issue: 'is required for a new course' }]);
    const id = newId();
    await sequelize.transaction(async (transaction) => {
      await lifecycle.create(
        transaction,
        'create',
        {
          id,
          title: write.title!.trim(),
          description: '',
          thumbnailAssetId: null,
          priceMinorUnits: '0',
          currency: 'NGN',
          sectorId: null,
          tradeId: null,
          qualificationLevelId: null,
          unitId: null,
          completionPolicy: defaultCompletionPolicy,
          sequencing: { prerequisites: [] },
          publishedAt: null,
          createdBy: actor.user.id,
          ...courseFields(write),
        },
        { by: 'author' },
      );
      await CourseInstructor.create(
        { id: newId(), courseId: id, lmsUserId: actor.user.id, role: 'owner' },
        { transaction },
      );
    });
    return courseDetail((await Course.findByPk(id))!);
  }

  async function authoringView(course: Course) {
    const [modules, items] = await contentOf(course.id);
    const assignments = await CourseInstructor.findAll({
      where: { courseId: course.id },
      order: [['createdAt', 'ASC']],
    });
    const people = await LmsUser.findAll({ where: { id: assignments.map((a) => a.lmsUserId) } });
    return {
      ...courseDetail(course),
      outline: outlineView(course, modules, items),
      sequencing: course.sequencing,
      instructors: assignments.map((a) =>
        instructorView(a, people.find((p) => p.id === a.lmsUserId)?.displayName ?? null),
      ),
    };
  }

  async function get(actor: Actor, courseId: string) {
    return authoringView(await editable(actor, courseId));
  }

  async function update(actor: Actor, courseId: string, write: CourseWrite) {
    if (write.title !== undefined && !write.title.trim())
      throw validationFailed([{ field: 'body.title', issue: 'cannot be blank' }]);
    const course = await sequelize.transaction(async (transaction) => {
      const course = await editable(actor, courseId, transaction);
      course.set(courseFields(write));
      await course.save({ transaction });
      return course;
    });
    return authoringView(course);
  }

  async function publish(actor: Actor, courseId: string) {
    return sequelize.transaction(async (transaction) => {
      const course = await ownedOrStaff(actor, courseId, transaction);
      const [modules, items] = await contentOf(courseId, transaction);
      await lifecycle.move(transaction, course, 'publish', {
        by: 'author',
        facts: publishProblems(course, modules, items),
        changes: { publishedAt: new Date() },
      });
      return courseDetail(course);
    });
  }

  async function unpublish(actor: Actor, courseId: string) {
    return sequelize.transaction(async (transaction) => {
      const course = await ownedOrStaff(actor, courseId, transaction);
      await lifecycle.move(transaction, course, 'unpublish', { by: 'author' });
      return courseDetail(course);
    });
  }

  // ---- authoring: modules and items --------------------------------------------------------------

  const nextPosition = async (
    model: typeof CourseModule | typeof CourseItem,
    where: Record<string, string>,
    transaction: Transaction,
  ) => (((await (model as typeof CourseModule).max('position', { where, transaction })) as number | null) ?? 0) + 1;

  async function addModule(actor: Actor, courseId: string, write: ModuleWrite) {
    if (!write.title?.trim()) throw validationFailed([{ field: 'body.title', issue: 'is required for a new module' }]);
    return sequelize.transaction(async (transaction) => {
      await editable(actor, courseId, transaction);
      const module = await CourseModule.create(
        {
          id: newId(),
          courseId,
          title: write.title!.trim(),
          position: write.order ?? (await nextPosition(CourseModule, { courseId }, transaction)),
          optional: write.optional ?? false,
        },
        { transaction },
      );
      return moduleView(module);
    });
  }

  async function moduleOf(courseId: string, moduleId: string, transaction: Transaction): Promise<CourseModule> {
    const module = await CourseModule.findOne({ where: { id: moduleId, courseId }, transaction });
    if (!module) throw notFound('No such module in this course.');
    return module;
  }

  async function updateModule(actor: Actor, courseId: string, moduleId: string, write: ModuleWrite) {
    if (write.title !== undefined && !write.title.trim())
      throw validationFailed([{ field: 'body.title', issue: 'cannot be blank' }]);
    return sequelize.transaction(async (transaction) => {
      await editable(actor, courseId, transaction);
      const module = await moduleOf(courseId, moduleId, transaction);
      module.set({
        ...(write.title !== undefined ? { title: write.title.trim() } : {}),
        ...(write.order !== undefined ? { position: write.order } : {}),
        ...(write.optional !== undefined ? { optional: write.optional } : {}),
      });
      await module.save({ transaction });
      return moduleView(module);
    });
  }

  async function removeModule(actor: Actor, courseId: string, moduleId: string) {
    return sequelize.transaction(async (transaction) => {
      const course = await editable(actor, courseId, transaction);
      const module = await moduleOf(courseId, moduleId, transaction);
      const itemIds = (await CourseItem.findAll({ where: { moduleId }, attributes: ['id'], transaction })).map(
        (i) => i.id,
      );
      await module.destroy({ transaction }); // its items go with it (ON DELETE CASCADE)
      await forgetInSequencing(course, [moduleId, ...itemIds], transaction);
      return { message: `Module "${module.title}" and its ${itemIds.length} item(s) were removed.` };
    });
  }

  /** The launch file of a SCORM item's package, checked and extracted before the item keeps it. */
  async function launchFileOf(
    type: ItemType | undefined,
    packageAssetId: string | null | undefined,
    bearer: string | undefined,
  ) {
    return type === 'scorm_package' && packageAssetId && attachPackage
      ? (await attachPackage(packageAssetId, bearer)).scoHref
      : null;
  }

  async function addItem(actor: Actor, courseId: string, moduleId: string, write: ItemWrite, bearer?: string) {
    const missing = [!write.type && 'type', !write.title?.trim() && 'title'].filter(Boolean) as string[];
    if (missing.length)
      throw validationFailed(missing.map((field) => ({ field: `body.${field}`, issue: 'is required for a new item' })));
    const scoHref = await launchFileOf(write.type, write.packageAssetId, bearer);
    return sequelize.transaction(async (transaction) => {
      await editable(actor, courseId, transaction);
      await moduleOf(courseId, moduleId, transaction);
      const item = await CourseItem.create(
        {
          id: newId(),
          courseId,
          moduleId,
          type: write.type!,
          title: write.title!.trim(),
          position: write.order ?? (await nextPosition(CourseItem, { moduleId }, transaction)),
          required: write.required ?? true,
          body: write.body ?? null,
          mediaAssetId: write.mediaAssetId ?? null,
          packageAssetId: write.packageAssetId ?? null,
          scoHref,
          quiz: write.quiz ? quizOf(write.quiz) : null,
        },
        { transaction },
      );
      return itemView(item);
    });
  }

  async function itemOf(courseId: string, itemId: string, transaction: Transaction): Promise<CourseItem> {
    const item = await CourseItem.findOne({
      where: { id: itemId, courseId },
      transaction,
      lock: transaction.LOCK.UPDATE,
    });
    if (!item) throw notFound('No such item in this course.');
    return item;
  }

  /** An item with its content, for the course's instructors and staff. */
  async function item(actor: Actor, courseId: string, itemId: string) {
    await editable(actor, courseId);
    const found = await CourseItem.findOne({ where: { id: itemId, courseId } });
    if (!found) throw notFound('No such item in this course.');
    return itemView(found);
  }

  async function updateItem(actor: Actor, courseId: string, itemId: string, write: ItemWrite, bearer?: string) {
    if (write.title !== undefined && !write.title.trim())
      throw validationFailed([{ field: 'body.title', issue: 'cannot be blank' }]);
    const current = await CourseItem.findOne({ where: { id: itemId, courseId } });
    const type = write.type ?? current?.type;
    const packageAssetId = write.packageAssetId !== undefined ? write.packageAssetId : current?.packageAssetId;
    const packageChanged =
      type === 'scorm_package' && packageAssetId && (packageAssetId !== current?.packageAssetId || !current?.scoHref);
    const scoHref = packageChanged ? await launchFileOf(type, packageAssetId, bearer) : undefined;
    return sequelize.transaction(async (transaction) => {
      await editable(actor, courseId, transaction);
      const item = await itemOf(courseId, itemId, transaction);
      if (write.packageAssetId !== undefined && write.packageAssetId !== item.packageAssetId) item.scoHref = null; // the launch file comes from the new package
      if (scoHref) item.scoHref = scoHref;
      item.set({
        ...(write.type !== undefined ? { type: write.type } : {}),
        ...(write.title !== undefined ? { title: write.title.trim() } : {}),
        ...(write.order !== undefined ? { position: write.order } : {}),
        ...(write.required !== undefined ? { required: write.required } : {}),
        ...(write.body !== undefined ? { body: write.body } : {}),
        ...(write.mediaAssetId !== undefined ? { mediaAssetId: write.mediaAssetId } : {}),
        ...(write.packageAssetId !== undefined ? { packageAssetId: write.packageAssetId } : {}),
        ...(write.quiz !== undefined ? { quiz: quizOf({ ...item.quiz, ...write.quiz }) } : {}),
      });
      await item.save({ transaction });
      return itemView(item);
    });
  }

  async function removeItem(actor: Actor, courseId: string, itemId: string) {
    return sequelize.transaction(async (transaction) => {
      const course = await editable(actor, courseId, transaction);
      const item = await itemOf(courseId, itemId, transaction);
      await item.destroy({ transaction });
      await forgetInSequencing(course, [itemId], transaction);
      return { message: `Item "${item.title}" was removed.` };
    });
  }

  // ---- sequencing --------------------------------------------------------------------------------

  async function replaceSequencing(actor: Actor, courseId: string, sequencing: Sequencing) {
    return sequelize.transaction(async (transaction) => {
      const course = await editable(actor, courseId, transaction);
      const [modules, items] = await contentOf(courseId, transaction);
      const problems = sequencingProblems(sequencing, new Set([...modules, ...items].map((x) => x.id)));
      if (problems.length) throw validationFailed(problems, 'The sequencing graph is not valid for this course.');
      course.sequencing = {
        prerequisites: sequencing.prerequisites.map(({ targetId, requires }) => ({
          targetId,
          requires: [...new Set(requires)],
        })),
      };
      course.changed('sequencing', true);
      await course.save({ transaction });
      return course.sequencing;
    });
  }

  /** A removed module or item leaves the graph too, so the graph never names what is not there. */
  async function forgetInSequencing(course: Course, ids: string[], transaction: Transaction) {
    const gone = new Set(ids);
    course.sequencing = {
      prerequisites: course.sequencing.prerequisites
        .filter((p) => !gone.has(p.targetId))
        .map((p) => ({ targetId: p.targetId, requires: p.requires.filter((id) => !gone.has(id)) }))
        .filter((p) => p.requires.length > 0),
    };
    course.changed('sequencing', true);
    await course.save({ transaction });
  }

  return {
    catalogue,
    publishedCourse,
    outline,
    authored,
    create,
    get,
    update,
    publish,
    unpublish,
    addModule,
    updateModule,
    removeModule,
    addItem,
    item,
    updateItem,
    removeItem,
    replaceSequencing,
    editable,
    roleOn,
  };
}

/** A price in a request body (`body.price`): whole, non-negative minor units with a currency, else 422. */
export function priceAsWritten(price: Money): { minor: bigint; currency: string } {
  try {
    const parsed = parseMoney(price);
    if (parsed.minor < 0n) throw new MoneyError('negative');
    return parsed;
  } catch (err) {
    if (err instanceof MoneyError)
      throw validationFailed([
        { field: 'body.price', issue: 'must be a whole, non-negative number of minor units with a currency code' },
      ]);
    throw err;
  }
}

function courseFields(write: CourseWrite): Partial<Course> {
  const fields: Partial<Course> = {};
  if (write.title !== undefined) fields.title = write.title.trim();
  if (write.description !== undefined) fields.description = write.description;
  if (write.thumbnailAssetId !== undefined) fields.thumbnailAssetId = write.thumbnailAssetId;
  if (write.price !== undefined) {
    const { minor, currency } = priceAsWritten(write.price);
    fields.priceMinorUnits = minor.toString();
    fields.currency = currency;
  }
  for (const key of ['sectorId', 'tradeId', 'qualificationLevelId', 'unitId'] as const) {
    if (write.capLinkage && write.capLinkage[key] !== undefined) fields[key] = write.capLinkage[key];
  }
  if (write.completionPolicy !== undefined) fields.completionPolicy = write.completionPolicy;
  return fields;
}

function quizOf(write: Partial<Quiz>): Quiz {
  return {
    passPercent: write.passPercent ?? defaultPassPercent,
    maxAttempts: write.maxAttempts ?? null,
    questions: write.questions ?? [],
  };
}

/** Every id of the graph must be a module or item of the course; no target requires itself, directly or not. */
export function sequencingProblems(sequencing: Sequencing, known: ReadonlySet<string>): FieldDetail[] {
  const problems: FieldDetail[] = [];
  const targets = new Set<string>();
  sequencing.prerequisites.forEach((p, i) => {
    if (targets.has(p.targetId))
      problems.push({ field: `body.prerequisites[${i}].targetId`, issue: `${p.targetId} is listed more than once` });
    targets.add(p.targetId);
    if (!known.has(p.targetId))
      problems.push({
        field: `body.prerequisites[${i}].targetId`,
        issue: `${p.targetId} is not a module or item of this course`,
      });
    for (const id of p.requires)
      if (!known.has(id))
        problems.push({
          field: `body.prerequisites[${i}].requires`,
          issue: `${id} is not a module or item of this course`,
        });
  });
  const edges = new Map(sequencing.prerequisites.map((p) => [p.targetId, p.requires]));
  const state = new Map<string, 'visiting' | 'done'>();
  const cyclic = (id: string): boolean => {
    if (state.get(id) === 'done') return false;
    if (state.get(id) === 'visiting') return true;
    state.set(id, 'visiting');
    const found = (edges.get(id) ?? []).some(cyclic);
    state.set(id, 'done');
    return found;
  };
  for (const target of edges.keys()) {
    if (cyclic(target)) {
      problems.push({ field: 'body.prerequisites', issue: `the prerequisites go round in a circle through ${target}` });
      break;
    }
  }
  return problems;
}

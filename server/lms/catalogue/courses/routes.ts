import { bearerToken } from '../../../platform/auth/token.ts';
import type { operations } from '../../../contracts/openapi/lms.ts';
import type { Call, Handlers } from '../../../platform/http/operations.ts';
import { pageRequest } from '../../../platform/http/pagination.ts';
import { created, ok } from '../../../platform/http/reply.ts';
import type { Access } from '../../people/index.ts';
import type { Courses } from './service.ts';

export function catalogueRoutes(access: Access, courses: Courses): Handlers<operations> {
  return {
    getCourses: async (call) => {
      await access.actor(call.principal!);
      const page = await courses.catalogue(pageRequest(call.query), call.query);
      return ok(page.data, { ...page.meta });
    },
    getCourse: async (call) =>
      ok(await courses.publishedCourse(await access.actor(call.principal!), call.params.courseId)),
    getCourseOutline: async (call) =>
      ok(await courses.outline(await access.actor(call.principal!), call.params.courseId)),
  };
}

/** The caller's own bearer token, for checks the Orchestrator makes on their behalf (their own uploads). */
const bearerOf = (call: Call) => bearerToken(call.req.headers.authorization);

export function authoringRoutes(access: Access, courses: Courses): Handlers<operations> {
  /** The caller, when they may author at all (instructor or staff onboarding completed). */
  const author = async (call: Call) => {
    const actor = await access.actor(call.principal!);
    access.requireAuthor(actor);
    return actor;
  };
  return {
    getAuthoringCourses: async (call) => {
      const page = await courses.authored(await author(call), pageRequest(call.query), call.query);
      return ok(page.data, { ...page.meta });
    },
    postAuthoringCourses: async (call) => created(await courses.create(await author(call), call.body)),
    getAuthoringCourse: async (call) => ok(await courses.get(await author(call), call.params.courseId)),
    patchAuthoringCourse: async (call) => ok(await courses.update(await author(call), call.params.courseId, call.body)),
    postAuthoringCoursePublish: async (call) => ok(await courses.publish(await author(call), call.params.courseId)),
    postAuthoringCourseUnpublish: async (call) => ok(await courses.unpublish(await author(call), call.params.courseId)),
    postAuthoringCourseModules: async (call) =>
      created(await courses.addModule(await author(call), call.params.courseId, call.body)),
    patchAuthoringCourseModule: async (call) =>
      ok(await courses.updateModule(await author(call), call.params.courseId, call.params.moduleId, call.body)),
    deleteAuthoringCourseModule: async (call) =>
      ok(await courses.removeModule(await author(call), call.params.courseId, call.params.moduleId)),
    postAuthoringCourseItems: async (call) =>
      created(
        await courses.addItem(
          await author(call),
          call.params.courseId,
          call.params.moduleId,
          call.body,
          bearerOf(call),
        ),
      ),
    getAuthoringCourseItem: async (call) =>
      ok(await courses.item(await author(call), call.params.courseId, call.params.itemId)),
    patchAuthoringCourseItem: async (call) =>
      ok(
        await courses.updateItem(
          await author(call),
          call.params.courseId,
          call.params.itemId,
          call.body,
          bearerOf(call),
        ),
      ),
    deleteAuthoringCourseItem: async (call) =>
      ok(await courses.removeItem(await author(call), call.params.courseId, call.params.itemId)),
    putAuthoringCourseSequencing: async (call) =>
      ok(await courses.replaceSequencing(await author(call), call.params.courseId, call.body)),
  };
}

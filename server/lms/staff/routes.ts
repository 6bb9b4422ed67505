import type { Handler } from '../../platform/http/operations.ts';
import { pageRequest } from '../../platform/http/pagination.ts';
import { created, ok } from '../../platform/http/reply.ts';
import type { Access } from '../access/service.ts';
import type { CourseInstructors } from '../courses/instructors.ts';
import type { Invites } from './invites.ts';

export function instructorRoutes(access: Access, invites: Invites, courseInstructors: CourseInstructors): Record<string, Handler> {
  const inviter = async (call: Parameters<Handler>[0]) => {
    const actor = await access.actor(call.principal!);
    access.requireCapability(actor, 'instructor.invite');
    return actor;
  };
  const author = async (call: Parameters<Handler>[0]) => {
    const actor = await access.actor(call.principal!);
    access.requireAuthor(actor);
    return actor;
  };
  return {
    getInstructorInvites: async (call) => {
      await inviter(call);
      const page = await invites.list('instructor', pageRequest(call.query));
      return ok(page.data, { ...page.meta });
    },
    postInstructorInvites: async (call) => created(await invites.create('instructor', call.body.email, (await inviter(call)).user.id)),
    getAuthoringCourseInstructors: async (call) => ok(await courseInstructors.list(await author(call), call.params.courseId)),
    postAuthoringCourseInstructors: async (call) =>
      created(await courseInstructors.add(await author(call), call.params.courseId, call.body.lmsUserId, call.body.role)),
    deleteAuthoringCourseInstructor: async (call) => ok(await courseInstructors.remove(await author(call), call.params.courseId, call.params.lmsUserId)),
  };
}

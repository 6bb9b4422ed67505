import type { operations } from '../../../contracts/openapi/lms.ts';
import type { Call, Handlers } from '../../../platform/http/operations.ts';
import { pageRequest } from '../../../platform/http/pagination.ts';
import { created, ok } from '../../../platform/http/reply.ts';
import type { Access } from '../../people/index.ts';
import type { Enrollments } from './service.ts';

export function enrollmentRoutes(access: Access, enrollments: Enrollments): Handlers<operations> {
  const actor = (call: Call) => access.actor(call.principal!);
  return {
    getEnrollmentsMine: async (call) => {
      const page = await enrollments.mine(await actor(call), pageRequest(call.query), call.query.status);
      return ok(page.data, { ...page.meta });
    },
    postCourseEnrollments: async (call) => created(await enrollments.enroll(await actor(call), call.params.courseId)),
    getEnrollment: async (call) => ok(await enrollments.detail(await actor(call), call.params.enrollmentId)),
    postEnrollmentCheckout: async (call) => ok(await enrollments.checkout(await actor(call), call.params.enrollmentId)),
  };
}

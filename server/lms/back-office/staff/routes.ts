import type { operations } from '../../../contracts/openapi/lms.ts';
import type { Call, Handlers } from '../../../platform/http/operations.ts';
import { pageRequest } from '../../../platform/http/pagination.ts';
import { created, ok } from '../../../platform/http/reply.ts';
import type { Access } from '../../people/index.ts';
import type { CourseInstructors } from '../../catalogue/index.ts';
import type { Invites } from '../../people/index.ts';
import type { Checkouts } from '../../learning/index.ts';
import type { Staff } from './service.ts';

export function instructorRoutes(
  access: Access,
  invites: Invites,
  courseInstructors: CourseInstructors,
): Handlers<operations> {
  const inviter = async (call: Call) => {
    const actor = await access.actor(call.principal!);
    access.requireCapability(actor, 'instructor.invite');
    return actor;
  };
  const author = async (call: Call) => {
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
    postInstructorInvites: async (call) =>
      created(await invites.create('instructor', call.body.email, (await inviter(call)).user.id)),
    getAuthoringCourseInstructors: async (call) =>
      ok(await courseInstructors.list(await author(call), call.params.courseId)),
    postAuthoringCourseInstructors: async (call) =>
      created(
        await courseInstructors.add(await author(call), call.params.courseId, call.body.lmsUserId, call.body.role),
      ),
    deleteAuthoringCourseInstructor: async (call) =>
      ok(await courseInstructors.remove(await author(call), call.params.courseId, call.params.lmsUserId)),
  };
}

export function staffRoutes(
  access: Access,
  invites: Invites,
  staff: Staff,
  checkouts: Pick<Checkouts, 'refund'>,
): Handlers<operations> {
  /** The caller, when they hold `capability`. */
  const holding = (capability: string) => async (call: Call) => {
    const actor = await access.actor(call.principal!);
    access.requireCapability(actor, capability);
    return actor;
  };
  const manager = holding('staff.manage');
  const granter = holding('entitlement.grant');
  const payments = holding('payments.read');
  return {
    getStaffInvites: async (call) => {
      await manager(call);
      const page = await invites.list('staff', pageRequest(call.query));
      return ok(page.data, { ...page.meta });
    },
    postStaffInvites: async (call) =>
      created(await invites.create('staff', call.body.email, (await manager(call)).user.id, call.body.role)),
    getStaff: async (call) => {
      await manager(call);
      const page = await staff.listStaff(pageRequest(call.query));
      return ok(page.data, { ...page.meta });
    },
    patchStaff: async (call) => ok(await staff.updateMember(await manager(call), call.params.lmsUserId, call.body)),
    postAdminEntitlements: async (call) => created(await staff.grant(await granter(call), call.body)),
    getAdminEnrollments: async (call) => {
      // Authors only: staff see every course's enrollments, instructors their own courses'.
      const actor = await access.actor(call.principal!);
      access.requireCapability(actor, 'course.content.edit');
      const page = await staff.enrollments(actor, pageRequest(call.query), call.query);
      return ok(page.data, { ...page.meta });
    },
    getAdminPaymentsSummary: async (call) => {
      await payments(call);
      return ok(await staff.paymentsSummary());
    },
    getAdminPayments: async (call) => {
      await payments(call);
      const page = await staff.payments(pageRequest(call.query), call.query);
      return ok(page.data, { ...page.meta });
    },
    postAdminPaymentRefund: async (call) => {
      await holding('payments.refund')(call);
      await checkouts.refund(call.params.id, call.body.reason);
      return ok(await staff.payment(call.params.id));
    },
    getAdminPaymentReceipt: async (call) => {
      await payments(call);
      return ok(await staff.receipt(call.params.id));
    },
    getAdminDashboard: async (call) => {
      await holding('analytics.read')(call);
      return ok(await staff.dashboard(call.query.year ?? new Date().getUTCFullYear()));
    },
    getAdminSettings: async (call) => {
      await holding('settings.read')(call);
      return ok(await staff.settings());
    },
    patchAdminSettings: async (call) => {
      await holding('settings.write')(call);
      return ok(await staff.updateSettings(call.body));
    },
  };
}

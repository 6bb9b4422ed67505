import type { operations } from '../../../contracts/openapi/lms.ts';
import type { Call, Handlers } from '../../../platform/http/operations.ts';
import { pageRequest } from '../../../platform/http/pagination.ts';
import { created, ok, raw } from '../../../platform/http/reply.ts';
import type { Access } from '../../people/index.ts';
import type { Learners } from './service.ts';

/** Learners and seat allocations: staff holding `learners.manage`. */
export function learnerRoutes(access: Access, learners: Learners): Handlers<operations> {
  const manager = async (call: Call) => {
    const actor = await access.actor(call.principal!);
    access.requireCapability(actor, 'learners.manage');
    return actor;
  };
  return {
    getAdminLearners: async (call) => {
      await manager(call);
      const page = await learners.list(pageRequest(call.query), call.query);
      return ok(page.data, { ...page.meta });
    },
    getAdminLearnersExport: async (call) => {
      await manager(call);
      const { email, ...filters } = call.query;
      return raw(await learners.exportCsv(filters, email), 'text/csv; charset=utf-8', {
        'Content-Disposition': 'attachment; filename="learners.csv"',
      });
    },
    postAdminLearnerInvites: async (call) => {
      await manager(call);
      return created(await learners.invite(call.body.invites));
    },
    patchAdminLearner: async (call) => {
      await manager(call);
      return ok(await learners.setStatus(call.params.lmsUserId, call.body.status));
    },
    postAdminLearnerEnrollments: async (call) =>
      ok(await learners.enroll(await manager(call), call.params.lmsUserId, call.body)),
    getAdminOrganizations: async (call) => {
      await manager(call);
      const page = await learners.organizations(pageRequest(call.query), call.query.q);
      return ok(page.data, { ...page.meta });
    },
    postAdminOrganizations: async (call) => {
      await manager(call);
      return created(await learners.createOrganization(call.body));
    },
    getAdminSeatAllocations: async (call) => {
      await manager(call);
      const page = await learners.allocations(pageRequest(call.query), call.query);
      return ok(page.data, { ...page.meta });
    },
    postAdminSeatAllocations: async (call) => created(await learners.createAllocation(await manager(call), call.body)),
    getAdminSeatAllocationsImportTemplate: async (call) => {
      await manager(call);
      return raw('email,name\r\n', 'text/csv; charset=utf-8', {
        'Content-Disposition': 'attachment; filename="seat-allocation-template.csv"',
      });
    },
    getAdminSeatAllocation: async (call) => {
      await manager(call);
      return ok(await learners.allocation(call.params.allocationId));
    },
    postAdminSeatAllocationSeats: async (call) =>
      ok(await learners.addSeats(await manager(call), call.params.allocationId, call.body)),
  };
}

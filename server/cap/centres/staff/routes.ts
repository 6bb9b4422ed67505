import type { Handler } from '../../../platform/http/operations.ts';
import { created, ok } from '../../../platform/http/reply.ts';
import type { ActingContexts } from '../../people/context/service.ts';
import type { CapAuth } from '../../people/auth.ts';
import type { StaffService } from './service.ts';
import type { Applications } from '../../applications/service.ts';

export function staffRoutes(auth: CapAuth, contexts: ActingContexts, staff: StaffService): Record<string, Handler> {
  return {
    addCentreStaff: contexts.centre(async (call, context) => created(await staff.add(context, call.body))),
    listCentreStaff: contexts.centre(async (call, context) => {
      const { items, meta } = await staff.list(context, call.query);
      return ok(items, { ...meta });
    }),
    getCentreStaffSummary: contexts.centre(async (_call, context) => ok(await staff.summary(context))),
    getCentreStaff: contexts.centre(async (call, context) => ok(await staff.get(context, call.params.id))),
    updateCentreStaffStatus: contexts.centre(async (call, context) => ok(await staff.setStatus(context, auth.caller(call).userId, call.body))),
  };
}

/** `GET /centre/staff/{id}/applications`: the applications a staff member handles (applications/handling.ts). */
export function staffApplicationRoutes(auth: CapAuth, contexts: ActingContexts, staff: StaffService, applications: Applications): Record<string, Handler> {
  return {
    listCentreStaffApplications: contexts.centre(async (call, context) => {
      const member = await staff.member(context, call.params.id);
      const { items, meta } = await applications.list({ persona: 'centre', userId: auth.caller(call).userId, centreId: context.centreId }, { ...call.query, handledBy: member.userId });
      return ok(items, meta);
    }),
  };
}

import type { operations } from '../../../contracts/openapi/cap.ts';
import type { Handlers } from '../../../platform/http/operations.ts';
import { created, ok } from '../../../platform/http/reply.ts';
import type { ActingContexts, CapAuth } from '../../people/index.ts';
import type { StaffService } from './service.ts';

export function staffRoutes(auth: CapAuth, contexts: ActingContexts, staff: StaffService): Handlers<operations> {
  return {
    addCentreStaff: contexts.centre(async (call, context) => created(await staff.add(context, call.body))),
    listCentreStaff: contexts.centre(async (call, context) => {
      const { items, meta } = await staff.list(context, call.query);
      return ok(items, { ...meta });
    }),
    getCentreStaffSummary: contexts.centre(async (_call, context) => ok(await staff.summary(context))),
    getCentreStaff: contexts.centre(async (call, context) => ok(await staff.get(context, call.params.id))),
    updateCentreStaffStatus: contexts.centre(async (call, context) =>
      ok(await staff.setStatus(context, auth.caller(call).userId, call.body)),
    ),
  };
}

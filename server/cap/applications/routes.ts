import type { operations } from '../../contracts/openapi/cap.ts';
import type { Call, CallInput, Handler, Handlers } from '../../platform/http/operations.ts';
import { created, ok } from '../../platform/http/reply.ts';
import type { Centres } from '../centres/index.ts';
import type { ActingContexts, CapAuth } from '../people/index.ts';
import type { CentreFigures } from './figures/centre.ts';
import { viewerOf, type Applications } from './service.ts';

/** `/applications*` (openapi/cap/applications.yaml): the candidate's own, or the acting centre's. */
export function applicationRoutes(
  auth: CapAuth,
  contexts: ActingContexts,
  applications: Applications,
  centres: Pick<Centres, 'staffMember'>,
  figures: CentreFigures,
): Handlers<operations> {
  const asViewer = <In extends CallInput>(
    handler: (call: Call<In>, viewer: ReturnType<typeof viewerOf>) => ReturnType<Handler>,
  ): Handler<In> => contexts.bound<In>((call, context) => handler(call, viewerOf(context, auth.caller(call).userId)));
  const asCandidate = <In extends CallInput>(handler: Handler<In>): Handler<In> =>
    contexts.as<In>('candidate', (call) => handler(call));
  return {
    createApplication: asCandidate(async (call) =>
      created(await applications.create(auth.caller(call).userId, call.body)),
    ),
    listApplications: asViewer(async (call, viewer) => {
      const { items, meta } = await applications.list(viewer, call.query);
      return ok(items, meta);
    }),
    getApplicationsSummary: asViewer(async (_call, viewer) => ok(await applications.summary(viewer))),
    getApplication: asViewer(async (call, viewer) => ok(await applications.detail(viewer, call.params.id))),
    updateApplication: asCandidate(async (call) =>
      ok(await applications.update(auth.caller(call).userId, call.params.id, call.body)),
    ),
    submitApplication: asCandidate(async (call) =>
      ok(await applications.submit(auth.caller(call).userId, call.params.id)),
    ),
    reviewApplication: asViewer(async (call, viewer) =>
      ok(await applications.review(viewer, call.params.id, call.body)),
    ),
    getApplicationStages: asViewer(async (call, viewer) => ok(await applications.stages(viewer, call.params.id))),
    getApplicationHistory: asViewer(async (call, viewer) => ok(await applications.history(viewer, call.params.id))),
    getApplicationProgress: asViewer(async (call, viewer) => ok(await applications.progress(viewer, call.params.id))),
    getCentreApplicationsSummary: contexts.centre(async (_call, context) =>
      ok(await figures.applicationsSummary(context)),
    ),
    /** `GET /centre/staff/{id}/applications`: the applications a staff member of the centre handles (handling.ts). */
    listCentreStaffApplications: contexts.centre(async (call, context) => {
      const member = await centres.staffMember(context, call.params.id);
      const { items, meta } = await applications.list(
        { persona: 'centre', userId: auth.caller(call).userId, centreId: context.centreId },
        { ...call.query, handledBy: member.userId },
      );
      return ok(items, meta);
    }),
  };
}

import type { Handler } from '../../platform/http/operations.ts';
import { created, ok } from '../../platform/http/reply.ts';
import type { ActingContexts } from '../people/context/service.ts';
import type { CapAuth } from '../people/auth.ts';
import { viewerOf, type Applications } from './service.ts';

/** `/applications*` (openapi/cap/applications.yaml): the candidate's own, or the acting centre's. */
export function applicationRoutes(auth: CapAuth, contexts: ActingContexts, applications: Applications): Record<string, Handler> {
  const asViewer = (handler: (call: Parameters<Handler>[0], viewer: ReturnType<typeof viewerOf>) => ReturnType<Handler>): Handler =>
    contexts.bound((call, context) => handler(call, viewerOf(context, auth.caller(call).userId)));
  const asCandidate = (handler: Handler): Handler => contexts.as('candidate', (call) => handler(call));
  return {
    createApplication: asCandidate(async (call) => created(await applications.create(auth.caller(call).userId, call.body))),
    listApplications: asViewer(async (call, viewer) => {
      const { items, meta } = await applications.list(viewer, call.query);
      return ok(items, meta);
    }),
    getApplicationsSummary: asViewer(async (_call, viewer) => ok(await applications.summary(viewer))),
    getApplication: asViewer(async (call, viewer) => ok(await applications.detail(viewer, call.params.id))),
    updateApplication: asCandidate(async (call) => ok(await applications.update(auth.caller(call).userId, call.params.id, call.body))),
    submitApplication: asCandidate(async (call) => ok(await applications.submit(auth.caller(call).userId, call.params.id))),
    reviewApplication: asViewer(async (call, viewer) => ok(await applications.review(viewer, call.params.id, call.body))),
    getApplicationStages: asViewer(async (call, viewer) => ok(await applications.stages(viewer, call.params.id))),
    getApplicationHistory: asViewer(async (call, viewer) => ok(await applications.history(viewer, call.params.id))),
    getApplicationProgress: asViewer(async (call, viewer) => ok(await applications.progress(viewer, call.params.id))),
  };
}

import type { operations } from '../../contracts/openapi/cap.ts';
import type { Call, CallInput, Handler, Handlers } from '../../platform/http/operations.ts';
import { created, ok } from '../../platform/http/reply.ts';
import { moderationRoutes, type ActingContexts, type CapAuth, type PlatformRoles } from '../people/index.ts';
import type { AdminAssessors } from './moderation.ts';
import type { RetainedRequests } from './retained.ts';
import type { Roster } from './roster.ts';
import type { JobPostings } from './postings.ts';
import type { AssessorConsole } from './console.ts';

/** The assessor market: retained requests, the centre's assessor roster, job postings, the marketplace and the assessor console. */
export function assessorMarketRoutes(
  auth: CapAuth,
  contexts: ActingContexts,
  areas: { retained: RetainedRequests; roster: Roster; postings: JobPostings; console: AssessorConsole },
): Handlers<operations> {
  const { retained, roster, postings, console: own } = areas;
  const userId = (call: Call) => auth.caller(call).userId;
  const asAssessor = <In extends CallInput>(handler: (call: Call<In>, userId: string) => ReturnType<Handler>) =>
    contexts.as<In>('assessor', (call) => handler(call, userId(call)));
  const page = ({ items, meta }: { items: unknown[]; meta: object }) => ok(items, { ...meta });

  return {
    listAssessorRetainedRequests: asAssessor(async (call, me) => page(await retained.mine(me, call.query))),
    requestRetention: asAssessor(async (call, me) => created(await retained.request(me, call.body))),
    listCentreRetainedRequests: contexts.centre(async (call, context) =>
      page(await retained.list(context, call.query)),
    ),
    getCentreRetainedRequest: contexts.centre(async (call, context) => ok(await retained.get(context, call.params.id))),
    approveCentreRetainedRequest: contexts.centre(async (call, context) =>
      ok(await retained.decide(context, userId(call), call.params.id, 'approve')),
    ),
    rejectCentreRetainedRequest: contexts.centre(async (call, context) =>
      ok(await retained.decide(context, userId(call), call.params.id, 'reject')),
    ),
    revokeCentreRetainedRequest: contexts.centre(async (call, context) =>
      ok(await retained.decide(context, userId(call), call.params.id, 'revoke')),
    ),
    decideCentreRetainedRequests: contexts.centre(async (call, context) =>
      ok(await retained.bulk(context, userId(call), call.body)),
    ),
    listCentreAssessors: contexts.centre(async (call, context) => page(await roster.list(context, call.query))),
    getCentreAssessorsSummary: contexts.centre(async (_call, context) => ok(await roster.summary(context))),
    getCentreAssessor: contexts.centre(async (call, context) => ok(await roster.get(context, call.params.id))),
    listCentreJobPostings: contexts.centre(async (call, context) => page(await postings.list(context, call.query))),
    createCentreJobPosting: contexts.centre(async (call, context) =>
      created(await postings.create(context, userId(call), call.body)),
    ),
    closeCentreJobPostings: contexts.centre(async (call, context) =>
      ok(await postings.closeAll(context, call.body.ids)),
    ),
    getCentreJobPosting: contexts.centre(async (call, context) => ok(await postings.get(context, call.params.id))),
    closeCentreJobPosting: contexts.centre(async (call, context) => ok(await postings.close(context, call.params.id))),
    deleteCentreJobPosting: contexts.centre(async (call, context) =>
      ok(await postings.delete(context, call.params.id)),
    ),
    listCentreJobPostingApplications: contexts.centre(async (call, context) =>
      page(await postings.applications(context, call.params.id, call.query)),
    ),
    decideCentreJobPostingApplications: contexts.centre(async (call, context) =>
      ok(await postings.decideMany(context, userId(call), call.params.id, call.body.ids, call.body.decision)),
    ),
    getCentreJobPostingApplication: contexts.centre(async (call, context) =>
      ok(await postings.application(context, call.params.id, call.params.applicationId)),
    ),
    decideCentreJobPostingApplication: contexts.centre(async (call, context) =>
      ok(await postings.decide(context, userId(call), call.params.id, call.params.applicationId, call.body.decision)),
    ),
    getAssessorMarketplace: asAssessor(async (call, me) => page(await postings.marketplace(me, call.query))),
    listAssessorJobApplications: asAssessor(async (call, me) => page(await postings.mine(me, call.query))),
    applyToJobPosting: asAssessor(async (call, me) => created(await postings.apply(me, call.params.id))),
    getAssessorSummary: asAssessor(async (_call, me) => ok(await own.summary(me))),
    listAssessorEvents: asAssessor(async (_call, me) => ok(await own.events(me))),
    getAssessorProfile: asAssessor(async (_call, me) => ok(await own.profile(me))),
    updateAssessorProfile: asAssessor(async (call, me) => ok(await own.updateProfile(me, call.body))),
    getAssessorSectors: asAssessor(async (_call, me) => ok(await own.sectors(me))),
    setAssessorSectors: asAssessor(async (call, me) => ok(await own.setSectors(me, call.body.sectorIds))),
    listAssessorApplications: asAssessor(async (call, me) => page(await own.applications(me, call.query))),
    listAssessorCentres: asAssessor(async (_call, me) => ok(await own.centres(me))),
    listAssessorCentreApplications: asAssessor(async (call, me) =>
      page(await own.applications(me, call.query, call.params.id)),
    ),
    listCentreAssessorApplications: contexts.centre(async (call, context) =>
      page(await roster.applications(context, userId(call), call.params.id, call.query)),
    ),
  };
}

/** `/admin/assessors*` (openapi/cap/admin-assessors.yaml): authorised by platform permission, with no persona headers. */
export function adminAssessorRoutes(
  auth: CapAuth,
  roles: PlatformRoles,
  assessors: AdminAssessors,
): Handlers<operations> {
  return {
    listAdminAssessors: roles.allowed(auth, 'platform.assessors.read', async (call) => {
      const { items, meta } = await assessors.list(call.query);
      return ok(items, { ...meta });
    }),
    ...moderationRoutes('Assessor', assessors, 'platform.assessors', (permission, handler) =>
      roles.allowed(auth, permission, handler),
    ),
  };
}

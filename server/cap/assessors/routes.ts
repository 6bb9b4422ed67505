import type { Call, Handler } from '../../platform/http/operations.ts';
import { created, ok } from '../../platform/http/reply.ts';
import type { ActingContexts } from '../context/service.ts';
import type { CapAuth } from '../users/auth.ts';
import type { RetainedRequests } from './retained.ts';
import type { Roster } from './roster.ts';

/** The assessor market: retained requests, the centre's assessor roster, job postings, the marketplace and the assessor console. */
export function assessorMarketRoutes(auth: CapAuth, contexts: ActingContexts, areas: { retained: RetainedRequests; roster: Roster }): Record<string, Handler> {
  const { retained, roster } = areas;
  const userId = (call: Call) => auth.caller(call).userId;
  const asAssessor = (handler: (call: Call, userId: string) => ReturnType<Handler>) => contexts.as('assessor', (call) => handler(call, userId(call)));
  const page = ({ items, meta }: { items: unknown[]; meta: object }) => ok(items, { ...meta });

  return {
    listAssessorRetainedRequests: asAssessor(async (call, me) => page(await retained.mine(me, call.query))),
    requestRetention: asAssessor(async (call, me) => created(await retained.request(me, call.body))),
    listCentreRetainedRequests: contexts.centre(async (call, context) => page(await retained.list(context, call.query))),
    getCentreRetainedRequest: contexts.centre(async (call, context) => ok(await retained.get(context, call.params.id))),
    approveCentreRetainedRequest: contexts.centre(async (call, context) => ok(await retained.decide(context, userId(call), call.params.id, 'approve'))),
    rejectCentreRetainedRequest: contexts.centre(async (call, context) => ok(await retained.decide(context, userId(call), call.params.id, 'reject'))),
    revokeCentreRetainedRequest: contexts.centre(async (call, context) => ok(await retained.decide(context, userId(call), call.params.id, 'revoke'))),
    decideCentreRetainedRequests: contexts.centre(async (call, context) => ok(await retained.bulk(context, userId(call), call.body))),
    listCentreAssessors: contexts.centre(async (call, context) => page(await roster.list(context, call.query))),
    getCentreAssessorsSummary: contexts.centre(async (_call, context) => ok(await roster.summary(context))),
    getCentreAssessor: contexts.centre(async (call, context) => ok(await roster.get(context, call.params.id))),
    listCentreAssessorApplications: contexts.centre(async (call, context) => page(await roster.applications(context, userId(call), call.params.id, call.query))),
  };
}

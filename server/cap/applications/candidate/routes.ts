import type { operations } from '../../../contracts/openapi/cap.ts';
import type { Call, Handlers } from '../../../platform/http/operations.ts';
import { ok } from '../../../platform/http/reply.ts';
import { viewerOf } from '../service.ts';
import type { ActingContexts, CapAuth } from '../../people/index.ts';
import type { CandidateArea } from './service.ts';

/** `/candidate/*` and the application timeline (openapi/cap/candidate.yaml). */
export function candidateRoutes(
  auth: CapAuth,
  contexts: ActingContexts,
  candidate: CandidateArea,
): Handlers<operations> {
  const userId = (call: Call) => auth.caller(call).userId;
  return {
    getCandidateProfile: contexts.as('candidate', async (call) => ok(await candidate.profile(userId(call)))),
    getCandidateSignature: contexts.as('candidate', async (call) => ok(await candidate.signature(userId(call)))),
    putCandidateSignature: contexts.as('candidate', async (call) =>
      ok(await candidate.setSignature(userId(call), auth.token(call), call.body.assetId)),
    ),
    listCandidateEvents: contexts.as('candidate', async (call) => {
      const { items, meta } = await candidate.candidateEvents(userId(call), call.query);
      return ok(items, meta);
    }),
    listApplicationEvents: contexts.bound(async (call, context) => {
      const { items, meta } = await candidate.applicationEvents(
        viewerOf(context, userId(call)),
        call.params.id,
        call.query,
      );
      return ok(items, meta);
    }),
  };
}

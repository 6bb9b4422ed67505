import type { operations } from '../../../contracts/openapi/cap.ts';
import type { Call, Handlers } from '../../../platform/http/operations.ts';
import { created, ok } from '../../../platform/http/reply.ts';
import type { ActingContexts, CapAuth } from '../../people/index.ts';
import type { Caller, NsqPaths } from './service.ts';

/** NSQ paths (openapi/cap/nsq.yaml): the induction form, unit assessors, unit evidence, direct observation and sign-off. */
export function nsqRoutes(auth: CapAuth, contexts: ActingContexts, nsq: NsqPaths): Handlers<operations> {
  // The caller's own token proves which uploaded files are theirs.
  const caller = (call: Call): Caller => ({ userId: auth.caller(call).userId, bearer: auth.token(call) });
  return {
    getNsqInduction: contexts.bound(async (call, context) =>
      ok(await nsq.induction(context, auth.caller(call).userId, call.params.id)),
    ),
    submitNsqInduction: contexts.as('candidate', async (call) =>
      ok(await nsq.submitInduction(auth.caller(call).userId, call.params.id, call.body)),
    ),
    assignUnitAssessor: contexts.centre(async (call, context) =>
      ok(
        await nsq.assignUnitAssessor(
          { userId: auth.caller(call).userId, centreId: context.centreId },
          call.params.id,
          call.body.assessorId,
        ),
      ),
    ),
    listNsqUnits: contexts.bound(async (call, context) =>
      ok(await nsq.units(context, auth.caller(call).userId, call.params.id)),
    ),
    addNsqUnitEvidence: contexts.as('candidate', async (call) =>
      created(await nsq.addEvidence(caller(call), call.params.id, call.params.unitId, call.body)),
    ),
    observeNsqUnit: contexts.as('assessor', async (call) =>
      created(await nsq.observe(auth.caller(call).userId, call.params.id, call.params.unitId, call.body)),
    ),
    signOffNsqUnit: contexts.as('assessor', async (call) =>
      ok(await nsq.signOff(caller(call), call.params.id, call.params.unitId, call.body.signatureAssetId)),
    ),
  };
}

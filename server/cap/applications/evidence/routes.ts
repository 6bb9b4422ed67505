import type { operations } from '../../../contracts/openapi/cap.ts';
import type { Call, CallInput, Handler, Handlers } from '../../../platform/http/operations.ts';
import { created, ok } from '../../../platform/http/reply.ts';
import { readerOf } from '../service.ts';
import type { ActingContexts, CapAuth } from '../../people/index.ts';
import type { Evidence, Owner } from './service.ts';

/** `/applications/{id}/evidence*` (openapi/cap/evidence.yaml): written by the candidate, read by whoever may read the application. */
export function evidenceRoutes(auth: CapAuth, contexts: ActingContexts, evidence: Evidence): Handlers<operations> {
  const reading = <In extends CallInput>(
    handler: (call: Call<In>, reader: ReturnType<typeof readerOf>) => ReturnType<Handler>,
  ): Handler<In> => contexts.bound<In>((call, context) => handler(call, readerOf(context, auth.caller(call).userId)));
  // The candidate's own token proves which uploaded files are theirs.
  const owning = <In extends CallInput>(handler: (call: Call<In>, owner: Owner) => ReturnType<Handler>): Handler<In> =>
    contexts.as<In>('candidate', (call) =>
      handler(call, { userId: auth.caller(call).userId, bearer: auth.token(call) }),
    );
  return {
    listApplicationEvidence: reading(async (call, reader) => {
      const { items, meta } = await evidence.list(reader, call.params.id, call.query);
      return ok(items, meta);
    }),
    createApplicationEvidence: owning(async (call, owner) =>
      created(await evidence.create(owner, call.params.id, call.body)),
    ),
    getApplicationEvidence: reading(async (call, reader) =>
      ok(await evidence.get(reader, call.params.id, call.params.evidenceId)),
    ),
    deleteApplicationEvidence: owning(async (call, owner) =>
      ok(await evidence.remove(owner, call.params.id, call.params.evidenceId)),
    ),
    getSelfAssessment: reading(async (call, reader) => ok(await evidence.selfAssessment(reader, call.params.id))),
    putSelfAssessment: owning(async (call, owner) =>
      ok(await evidence.saveSelfAssessment(owner, call.params.id, call.body)),
    ),
    getThirdPartyReport: reading(async (call, reader) => ok(await evidence.thirdPartyReport(reader, call.params.id))),
    submitThirdPartyReport: owning(async (call, owner) =>
      created(await evidence.submitThirdPartyReport(owner, call.params.id, call.body.assetId)),
    ),
  };
}

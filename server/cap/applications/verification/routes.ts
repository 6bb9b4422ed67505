import type { operations } from '../../../contracts/openapi/cap.ts';
import type { Call, Handlers } from '../../../platform/http/operations.ts';
import { created, ok } from '../../../platform/http/reply.ts';
import { readerOf } from '../service.ts';
import type { ActingContexts, CapAuth } from '../../people/index.ts';
import type { Verification } from './service.ts';

/** IV, forwarding, EV and certificates (openapi/cap/verification.yaml). */
export function verificationRoutes(
  auth: CapAuth,
  contexts: ActingContexts,
  verification: Verification,
): Handlers<operations> {
  const userId = (call: Call) => auth.caller(call).userId;
  return {
    assignInternalVerifier: contexts.centre(async (call, context) =>
      ok(await verification.assignInternalVerifier(context, userId(call), call.params.id, call.body.assessorId)),
    ),
    reviewInternalVerification: contexts.as('assessor', async (call) =>
      ok(await verification.reviewInternalVerification(userId(call), call.params.id, call.body)),
    ),
    forwardToAwardingBody: contexts.centre(async (call, context) =>
      ok(await verification.forward(context, userId(call), call.params.id)),
    ),
    listAwardingBodyApplications: contexts.as('awarding_body', async (call) => {
      const { items, meta } = await verification.forwardedTo(userId(call), call.query);
      return ok(items, meta);
    }),
    assignExternalVerifier: contexts.as('awarding_body', async (call) =>
      ok(await verification.assignExternalVerifier(userId(call), call.params.id, call.body.assessorId)),
    ),
    reviewExternalVerification: contexts.as('awarding_body', async (call) =>
      ok(await verification.reviewExternalVerification(userId(call), call.params.id, call.body)),
    ),
    issueCertificate: contexts.as('awarding_body', async (call) =>
      created(
        await verification.issueCertificate(
          { userId: userId(call), bearer: auth.token(call) },
          call.params.id,
          call.body?.certificateAssetId,
        ),
      ),
    ),
    getApplicationCertificate: contexts.bound(async (call, context) =>
      ok(await verification.certificate(readerOf(context, userId(call)), call.params.id)),
    ),
    verifyCertificate: async (call) => ok(await verification.verify(call.params.code)),
    bulkUpdateCentreApplications: contexts.centre(async (call, context) =>
      ok(await verification.bulk(context, userId(call), call.body)),
    ),
  };
}

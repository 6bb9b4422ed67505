import type { operations } from '../../../contracts/openapi/cap.ts';
import type { Handlers } from '../../../platform/http/operations.ts';
import { created, ok, streamed } from '../../../platform/http/reply.ts';
import type { ActingContexts, CapAuth } from '../../people/index.ts';
import type { Sharing } from './service.ts';

/** Share tokens (the candidate) and the public shared view with its file proxy (openapi/cap/sharing.yaml). */
export function sharingRoutes(auth: CapAuth, contexts: ActingContexts, sharing: Sharing): Handlers<operations> {
  return {
    createShareToken: contexts.as('candidate', async (call) =>
      created(await sharing.create(auth.caller(call).userId, call.params.id)),
    ),
    revokeShareToken: contexts.as('candidate', async (call) =>
      ok(await sharing.revoke(auth.caller(call).userId, call.params.id)),
    ),
    getSharedApplication: async (call) => ok(await sharing.view(call.params.token)),
    getSharedApplicationAsset: async (call) => {
      const file = await sharing.asset(call.params.token, call.params.assetId);
      const ascii = file.fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
      return streamed(file.body, file.mimeType, {
        'Content-Disposition': `inline; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(file.fileName)}`,
        'Cache-Control': 'private, no-store',
        'Content-Security-Policy': "default-src 'none'; sandbox",
        'X-Content-Type-Options': 'nosniff',
      });
    },
  };
}

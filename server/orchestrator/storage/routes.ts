import { timingSafeEqual, createHash } from 'node:crypto';
import { unauthorized } from '../../platform/http/errors.ts';
import type { operations } from '../../contracts/openapi/ol.ts';
import type { Call, SecurityHandler, Handlers } from '../../platform/http/operations.ts';
import { created, ok, streamed } from '../../platform/http/reply.ts';
import type { Storage } from './service.ts';

/**
 * `serviceKey`: the `X-Platform-Service-Key` header holds ORCHESTRATOR_SERVICE_API_KEY (compared in
 * constant time, as digests so the lengths do not matter). Only `POST /storage/resolve`,
 * `POST /storage/upload` (with `ownerUserId`) and `POST /conversations/broadcast` accept it.
 */
export function serviceKeyAuth(serviceApiKey: string): SecurityHandler {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  const expected = digest(serviceApiKey);
  return (call) => {
    const given = call.req.get('x-platform-service-key');
    if (!given || !timingSafeEqual(digest(given), expected)) {
      throw unauthorized('auth.unauthenticated', 'Sign in again: the access token is missing, expired or not valid.');
    }
    call.principal = { kind: 'service' };
  };
}

/** A user with their bearer token, or a service with the service key. */
const callerOf = (call: Call) =>
  call.principal!.kind === 'service'
    ? { kind: 'service' as const }
    : { kind: 'user' as const, userId: call.principal!.userId! };

export function storageRoutes(storage: Storage): Handlers<operations> {
  return {
    uploadAsset: async (call) => created(await storage.upload(callerOf(call), call.req)),
    createUploadUrl: async (call) => created(await storage.uploadUrl(call.principal!.userId!, call.body)),
    receiveAssetUpload: async (call) => ok(await storage.receiveUpload(call.params.assetId, call.query, call.req)),
    confirmAsset: async (call) => ok(await storage.confirm(call.principal!.userId!, call.body.assetId)),
    resolveAssets: async (call) => ok(await storage.resolve(callerOf(call), call.body.assetIds)),
    deleteAsset: async (call) => {
      await storage.remove(call.principal!.userId!, call.params.assetId);
      return ok({ assetId: call.params.assetId, deleted: true });
    },
    downloadAsset: async (call) => {
      const file = await storage.download(call.params.assetId, call.query);
      return streamed(file.body, file.mimeType, file.headers);
    },
  };
}

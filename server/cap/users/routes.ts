import { unprocessable } from '../../platform/http/errors.ts';
import type { Call, Handler } from '../../platform/http/operations.ts';
import { ok } from '../../platform/http/reply.ts';
import type { OrchestratorHttp } from '../orchestrator.ts';
import type { AccountService } from './account.ts';
import type { CapAuth } from './auth.ts';
import type { UserService } from './service.ts';

export function userRoutes(auth: CapAuth, users: UserService, account: AccountService, storage: Pick<OrchestratorHttp, 'assetUrls' | 'ownsAsset'>): Record<string, Handler> {
  /** The profile with its photo resolved. */
  const withPhoto = async <T extends { photoAssetId: string | null }>(profile: T) => ({ ...profile, photo: (await storage.assetUrls([profile.photoAssetId]))(profile.photoAssetId) });
  /** A new photo must be a file the caller uploaded, checked with their own token. */
  async function checkPhoto(call: Call) {
    const assetId = call.body.photoAssetId as string | null | undefined;
    if (!assetId) return;
    if (!(await storage.ownsAsset(String(call.req.headers.authorization).replace(/^Bearer\s+/i, ''), assetId))) {
      throw unprocessable('profile.photo_not_found', 'You have no uploaded file with that asset id: upload the photo first (POST /v1/ol/storage/upload, purpose passport).', [
        { field: 'photoAssetId', issue: 'is not a file you uploaded' },
      ]);
    }
  }
  return {
    getMe: async (call) => ok(await account.me(auth.caller(call))),
    getMyProfile: async (call) => ok(await withPhoto(users.profileOf(auth.caller(call)))),
    updateMyProfile: async (call) => {
      await checkPhoto(call);
      return ok(await withPhoto(await users.updateProfile(auth.caller(call).userId, call.body)));
    },
    getMyDeletionEligibility: async (call) => ok(await account.deletionEligibility(auth.caller(call))),
  };
}

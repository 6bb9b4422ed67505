import { QueryTypes, type Sequelize } from 'sequelize';
import { unprocessable } from '../../../platform/http/errors.ts';
import type { AssetUrls, OrchestratorHttp } from '../../../contracts/orchestrator-client.ts';
import type { JsonObject } from '../../../platform/http/merge-patch.ts';
import { peopleSql } from '../sql.ts';

type Record = { data: JsonObject };

/**
 * A person's photo is the passport photo on one of their onboardings: `passportAssetId` at the top of
 * the draft, an Orchestrator asset (purpose passport) the person uploaded themselves. The web client
 * reads `passportAssetId` and `passportUrl` back from the draft; CAP resolves the URL on every read, so
 * the draft never holds one. Admin lists and the directory show the same photo as `photo`.
 */
export function createPassportPhotos(deps: {
  sequelize: Sequelize;
  assetUrls: AssetUrls;
  ownsAsset: OrchestratorHttp['ownsAsset'];
}) {
  return {
    /**
     * The patch to store: a `passportAssetId` the caller did not upload is 422 (checked with their own
     * token, so another person's asset id is refused without saying whose it is); `passportUrl` is read-only.
     */
    async checkedPatch(bearer: string, patch: JsonObject): Promise<JsonObject> {
      const { passportUrl: _readOnly, ...rest } = patch;
      const assetId = rest.passportAssetId;
      if (typeof assetId === 'string' && assetId !== '' && !(await deps.ownsAsset(bearer, assetId))) {
        throw unprocessable(
          'onboarding.photo_not_found',
          'You have no uploaded file with that asset id: upload the photo first (POST /v1/ol/storage/upload, purpose passport).',
          [{ field: 'passportAssetId', issue: 'is not a file you uploaded' }],
        );
      }
      return rest;
    },

    /** The record with `passportUrl` beside its `passportAssetId` (null when there is none or it cannot be resolved). */
    async withUrl<R extends Record>(record: R): Promise<R> {
      const assetId =
        typeof record.data.passportAssetId === 'string' && record.data.passportAssetId !== ''
          ? record.data.passportAssetId
          : null;
      if (!assetId) return record;
      const urlOf = await deps.assetUrls([assetId]);
      return { ...record, data: { ...record.data, passportUrl: urlOf(assetId) } };
    },

    /** Photo URLs by user id, from the most recently saved onboarding that has one. */
    async ofUsers(userIds: string[]): Promise<(userId: string) => string | null> {
      if (userIds.length === 0) return () => null;
      const rows = await deps.sequelize.query<{ userId: string; assetId: string | null }>(
        `SELECT u AS "userId", ${peopleSql.photoAssetId('u')} AS "assetId" FROM unnest($1::text[]) u`,
        { type: QueryTypes.SELECT, bind: [[...new Set(userIds)]] },
      );
      const assetOf = new Map(rows.map((row) => [row.userId, row.assetId]));
      const urlOf = await deps.assetUrls([...assetOf.values()]);
      return (userId) => urlOf(assetOf.get(userId));
    },

    /** The URLs of photos read in another statement (`peopleSql.photoAssetId`), by asset id. */
    urls: (assetIds: Array<string | null>) => deps.assetUrls(assetIds),
  };
}

export type PassportPhotos = ReturnType<typeof createPassportPhotos>;

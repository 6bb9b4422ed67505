/**
 * Storage: files owned by the user who uploaded them, sniffed and checked against their purpose's
 * policy, kept by a backend (filesystem or S3-compatible), and read through URLs the Orchestrator
 * signs and serves itself. Another user's asset answers exactly like a missing one (404).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { Op } from 'sequelize';
import { AppError, conflict, forbidden, notFound, validationFailed } from '../../platform/http/errors.ts';
import { isUlid, newId } from '../../platform/ids.ts';
import { checkMove, lifecycleWriter, modelStore } from '../../platform/lifecycle.ts';
import type { ServiceDeps } from '../../platform/service.ts';
import type { StorageBackend } from './backends.ts';
import { defineStorageModels, type AssetRow } from './models.ts';
import {
  assetLifecycle,
  defaultPurpose,
  disposition,
  isPurpose,
  largestLimit,
  policyOf,
  purposes,
  type Purpose,
} from './policy.ts';
import { receiveBody, receiveMultipart, tooLarge } from './receive.ts';
import type { Request } from 'express';

/** StorageAsset of the API. */
export interface AssetView {
  assetId: string;
  url: string;
  expiresAt: string;
  provider: string;
  type: Purpose;
  purpose: Purpose;
  fileName: string;
  status: 'ready';
  metadata: { size: number; mimeType: string };
  createdAt: string;
}

export interface ResolvedAsset {
  assetId: string;
  url: string;
  expiresAt: string;
  mimeType: string;
  fileName: string;
}

type Caller = { kind: 'user'; userId: string } | { kind: 'service' };

export type Storage = ReturnType<typeof createStorage>;

const notYours = () => notFound('No such asset.');
const linkRefused = () => forbidden('storage.url_invalid', 'This link is not valid or has expired: ask for a new one.');

const alreadyConfirmed = () =>
  conflict('storage.already_confirmed', 'This asset is confirmed: its bytes cannot be replaced.');

export function createStorage(
  deps: Pick<ServiceDeps, 'config' | 'sequelize' | 'peers' | 'logger'> & { backend: StorageBackend },
) {
  const { config, backend, logger } = deps;
  const { Asset } = defineStorageModels(deps.sequelize);
  const assets = lifecycleWriter(assetLifecycle, {
    store: modelStore(Asset),
    refuse: (refusal) =>
      refusal.action === 'receive'
        ? alreadyConfirmed()
        : conflict(
            'storage.not_uploaded',
            'Nothing was uploaded to this asset yet: PUT the file to its upload URL first.',
          ),
  });
  const createAsset = (action: 'store' | 'offer_upload', by: 'owner' | 'service', values: Record<string, unknown>) =>
    deps.sequelize.transaction(async (transaction) => (await assets.create(transaction, action, values, { by }))!);
  const tmpDir = path.join(config.storageDir, 'tmp');
  // Signed URLs use a key derived from the service key, so there is no further secret to configure.
  const urlKey = createHmac('sha256', config.serviceApiKey).update('ol.storage.urls').digest();
  const sign = (action: 'get' | 'put', assetId: string, expires: number) =>
    createHmac('sha256', urlKey).update(`${action}\n${assetId}\n${expires}`).digest('base64url');

  function checkSignature(action: 'get' | 'put', assetId: string, expires: unknown, signature: unknown): void {
    const at = Number(expires);
    if (!Number.isInteger(at) || typeof signature !== 'string') throw linkRefused();
    const expected = Buffer.from(sign(action, assetId, at));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw linkRefused();
    if (at * 1000 <= Date.now()) throw linkRefused();
  }

  function signedUrl(action: 'get' | 'put', asset: AssetRow, ttlSeconds: number): { url: string; expiresAt: string } {
    const expires = Math.floor(Date.now() / 1000) + ttlSeconds;
    const route = action === 'get' ? 'files' : 'uploads';
    const url = `${deps.peers.url('ol')}/storage/${route}/${asset.id}?expires=${expires}&signature=${sign(action, asset.id, expires)}`;
    return { url, expiresAt: new Date(expires * 1000).toISOString() };
  }

  const downloadUrl = (asset: AssetRow) =>
    signedUrl(
      'get',
      asset,
      policyOf(asset.purpose, config.storageMaxBytes).sensitive
        ? config.storageSensitiveUrlTtlSeconds
        : config.storageUrlTtlSeconds,
    );

  function view(asset: AssetRow): AssetView {
    const { url, expiresAt } = downloadUrl(asset);
    return {
      assetId: asset.id,
      url,
      expiresAt,
      provider: asset.backend,
      type: asset.purpose,
      purpose: asset.purpose,
      fileName: asset.fileName,
      status: 'ready',
      metadata: { size: asset.sizeBytes!, mimeType: asset.mimeType! },
      createdAt: asset.createdAt.toISOString(),
    };
  }

  /** Sniffs a received file and checks it against the purpose; removes it when refused. */
  async function inspect(tempPath: string, size: number, purpose: Purpose): Promise<string> {
    const policy = policyOf(purpose, config.storageMaxBytes);
    try {
      if (size === 0) throw new AppError(422, 'storage.file_empty', 'The file is empty.');
      if (size > policy.maxBytes) throw tooLarge(policy.maxBytes);
      // file-type loads with the first upload (about 100 ms of start-up otherwise).
      const { fileTypeFromFile } = await import('file-type');
      const mimeType = (await fileTypeFromFile(tempPath))?.mime;
      if (!mimeType || !policy.types.includes(mimeType)) {
        const what = mimeType ? `This file is ${mimeType}` : 'The type of this file could not be recognised';
        throw new AppError(
          415,
          'storage.type_not_allowed',
          `${what}; a ${purpose.replace('_', ' ')} must be one of ${policy.types.join(', ')}.`,
        );
      }
      return mimeType;
    } catch (err) {
      await fsp.rm(tempPath, { force: true });
      throw err;
    }
  }

  /** The caller's own asset (a service sees every asset), or 404. */
  async function findOwn(assetId: string, caller: Caller): Promise<AssetRow> {
    const asset = await Asset.findByPk(assetId);
    if (!asset || (caller.kind === 'user' && asset.ownerUserId !== caller.userId)) throw notYours();
    return asset;
  }

  return {
    /**
     * `POST /storage/upload`: one multipart file, stored at once and ready. A user's upload is theirs; a
     * service (the service key: CAP's certificates) stores a file for the user its `ownerUserId` names.
     */
    async upload(caller: Caller, req: Request): Promise<AssetView> {
      const { file, fields } = await receiveMultipart(req, tmpDir, largestLimit(config.storageMaxBytes));
      const purpose = fields.purpose || defaultPurpose;
      const problems = [
        ...(isPurpose(purpose) ? [] : [{ field: 'purpose', issue: `must be one of: ${purposes.join(', ')}` }]),
        ...(caller.kind === 'service' && !isUlid(fields.ownerUserId ?? '')
          ? [{ field: 'ownerUserId', issue: 'is required with the service key: the user id who owns the file' }]
          : []),
        ...(caller.kind === 'user' && fields.ownerUserId !== undefined
          ? [{ field: 'ownerUserId', issue: 'goes only with the service key: your uploads are yours' }]
          : []),
      ];
      if (problems.length || !isPurpose(purpose)) {
        await fsp.rm(file.tempPath, { force: true });
        throw validationFailed(problems);
      }
      const userId = caller.kind === 'user' ? caller.userId : fields.ownerUserId!;
      const mimeType = await inspect(file.tempPath, file.size, purpose);
      const id = newId();
      const objectKey = `${userId}/${id}`;
      await backend.put(objectKey, file.tempPath, file.size, mimeType);
      const asset = await createAsset('store', caller.kind === 'user' ? 'owner' : 'service', {
        id,
        ownerUserId: userId,
        purpose,
        fileName: cleanFileName(file.fileName),
        declaredMimeType: file.declaredMimeType,
        mimeType,
        sizeBytes: file.size,
        backend: backend.name,
        objectKey,
        uploadExpiresAt: null,
      });
      logger.info({ assetId: id, purpose, mimeType, size: file.size }, 'asset stored');
      return view(asset);
    },

    /** `POST /storage/upload-url`: a pending asset and the signed URL its bytes are PUT to. */
    async uploadUrl(userId: string, input: { fileName: string; mimeType: string; purpose?: Purpose }) {
      const id = newId();
      const expiresAt = new Date(Date.now() + config.storageUploadUrlTtlSeconds * 1000);
      const asset = await createAsset('offer_upload', 'owner', {
        id,
        ownerUserId: userId,
        purpose: input.purpose ?? defaultPurpose,
        fileName: cleanFileName(input.fileName),
        declaredMimeType: input.mimeType,
        mimeType: null,
        sizeBytes: null,
        backend: backend.name,
        objectKey: `${userId}/${id}`,
        uploadExpiresAt: expiresAt,
      });
      const { url } = signedUrl('put', asset, config.storageUploadUrlTtlSeconds);
      return { uploadUrl: url, assetId: id, expiresAt: expiresAt.toISOString(), method: 'PUT' as const };
    },

    /** The PUT to an upload URL: the signature is the credential. */
    async receiveUpload(assetId: string, query: Record<string, unknown>, req: Request) {
      checkSignature('put', assetId, query.expires, query.signature);
      const asset = await Asset.findByPk(assetId);
      if (!asset) throw linkRefused();
      // Refused before the bytes are read; the move below checks again.
      const verdict = checkMove(assetLifecycle, asset.status, 'receive', 'owner');
      if (!verdict.ok) throw alreadyConfirmed();
      const policy = policyOf(asset.purpose, config.storageMaxBytes);
      const { tempPath, size } = await receiveBody(req, tmpDir, policy.maxBytes);
      const mimeType = await inspect(tempPath, size, asset.purpose);
      await backend.put(asset.objectKey, tempPath, size, mimeType);
      await deps.sequelize.transaction((transaction) =>
        assets.move(transaction, asset, 'receive', { by: 'owner', changes: { mimeType, sizeBytes: size } }),
      );
      return { assetId, status: asset.status, size, mimeType };
    },

    /** `POST /storage/confirm`: the uploaded bytes become the asset. */
    async confirm(userId: string, assetId: string): Promise<AssetView> {
      const asset = await findOwn(assetId, { kind: 'user', userId });
      await deps.sequelize.transaction((transaction) =>
        assets.move(transaction, asset, 'confirm', { by: 'owner', changes: { uploadExpiresAt: null } }),
      );
      return view(asset);
    },

    /**
     * `POST /storage/resolve`: fresh download URLs of the ready assets among `assetIds` that the caller
     * may read. Unknown ids, other users' assets and unconfirmed ones are left out alike.
     */
    async resolve(caller: Caller, assetIds: string[]): Promise<ResolvedAsset[]> {
      const rows = await Asset.findAll({
        where: {
          id: { [Op.in]: assetIds },
          status: 'ready',
          ...(caller.kind === 'user' ? { ownerUserId: caller.userId } : {}),
        },
      });
      const byId = new Map(rows.map((r) => [r.id, r]));
      return [...new Set(assetIds)].flatMap((id) => {
        const asset = byId.get(id);
        if (!asset) return [];
        return [{ assetId: id, ...downloadUrl(asset), mimeType: asset.mimeType!, fileName: asset.fileName }];
      });
    },

    /** `DELETE /storage/{assetId}`: the row, then the bytes. */
    async remove(userId: string, assetId: string): Promise<void> {
      const asset = await findOwn(assetId, { kind: 'user', userId });
      await asset.destroy();
      await backend
        .delete(asset.objectKey)
        .catch((err) => logger.warn({ err, assetId }, 'stored bytes of a deleted asset were not removed'));
    },

    /** A signed download URL: the bytes with their sniffed type. */
    async download(
      assetId: string,
      query: Record<string, unknown>,
    ): Promise<{ body: Readable; mimeType: string; headers: Record<string, string> }> {
      checkSignature('get', assetId, query.expires, query.signature);
      const asset = await Asset.findByPk(assetId);
      const body = asset?.status === 'ready' ? await backend.get(asset.objectKey) : null;
      if (!asset || !body) throw notYours();
      const sensitive = policyOf(asset.purpose, config.storageMaxBytes).sensitive;
      return {
        body,
        mimeType: asset.mimeType!,
        headers: {
          'Content-Disposition': `${disposition(asset.mimeType!)}; filename="${asciiName(asset.fileName)}"; filename*=UTF-8''${encodeURIComponent(asset.fileName)}`,
          'Content-Length': String(asset.sizeBytes),
          'Cache-Control': sensitive ? 'private, no-store' : 'private, max-age=3600',
          'Content-Security-Policy': "default-src 'none'; sandbox",
          'X-Content-Type-Options': 'nosniff',
        },
      };
    },
  };
}

/** A file name as kept: its last path segment, without control characters, at most 255 characters. */
function cleanFileName(name: string): string {
  const base = name
    .split(/[\\/]/)
    .pop()!
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim();
  return (base || 'file').slice(0, 255);
}

/** The ASCII fallback for `filename=` in Content-Disposition. */
const asciiName = (name: string) => name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');

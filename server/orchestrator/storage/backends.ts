import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { PlatformConfig } from '../../platform/config.ts';

/** Where asset bytes live. Keys are `<ownerId>/<assetId>`; bytes arrive as a finished local temp file. */
export interface StorageBackend {
  name: 'filesystem' | 's3';
  put(key: string, file: string, size: number, contentType: string): Promise<void>;
  /** The bytes, or null when the object is gone. */
  get(key: string): Promise<Readable | null>;
  delete(key: string): Promise<void>;
}

export async function createStorageBackend(config: PlatformConfig): Promise<StorageBackend> {
  return config.storageBackend === 's3' ? createS3Backend(config) : createFilesystemBackend(config.storageDir);
}

function createFilesystemBackend(root: string): StorageBackend {
  const file = (key: string) => path.join(root, 'objects', ...key.split('/'));
  return {
    name: 'filesystem',
    async put(key, temp) {
      await fsp.mkdir(path.dirname(file(key)), { recursive: true });
      // Temp files live under the same root, so this is a rename, not a copy.
      await fsp.rename(temp, file(key));
    },
    async get(key) {
      try {
        await fsp.access(file(key));
      } catch {
        return null;
      }
      return fs.createReadStream(file(key));
    },
    async delete(key) {
      await fsp.rm(file(key), { force: true });
    },
  };
}

async function createS3Backend(config: PlatformConfig): Promise<StorageBackend> {
  // Loaded only when configured: the SDK is large. Its notice that later SDK versions need Node 22 is
  // for whoever upgrades it (package.json pins a version that supports Node 20), not for operators.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const s3 = await import('@aws-sdk/client-s3');
  const client = new s3.S3Client({
    region: config.s3Region,
    forcePathStyle: config.s3ForcePathStyle,
    // Checksums only where S3 requires them: many S3-compatible stores cannot read the SDK's default
    // aws-chunked uploads with trailing checksums, and would store the chunk framing as the bytes.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...(config.s3Endpoint ? { endpoint: config.s3Endpoint } : {}),
    ...(config.s3AccessKeyId
      ? { credentials: { accessKeyId: config.s3AccessKeyId, secretAccessKey: config.s3SecretAccessKey } }
      : {}),
  });
  const Bucket = config.s3Bucket;
  return {
    name: 's3',
    async put(key, temp, size, contentType) {
      try {
        await client.send(
          new s3.PutObjectCommand({
            Bucket,
            Key: key,
            Body: fs.createReadStream(temp),
            ContentLength: size,
            ContentType: contentType,
          }),
        );
      } finally {
        await fsp.rm(temp, { force: true });
      }
    },
    async get(key) {
      try {
        const object = await client.send(new s3.GetObjectCommand({ Bucket, Key: key }));
        return object.Body as Readable;
      } catch (err) {
        if ((err as { name?: string }).name === 'NoSuchKey') return null;
        throw err;
      }
    },
    async delete(key) {
      await client.send(new s3.DeleteObjectCommand({ Bucket, Key: key }));
    },
  };
}

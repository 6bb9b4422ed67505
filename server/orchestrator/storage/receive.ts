import busboy from 'busboy';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Request } from 'express';
import { AppError, badRequest, unprocessable } from '../../platform/http/errors.ts';
import { newId } from '../../platform/ids.ts';

/** An upload received into a local temp file, not yet checked against its purpose. */
export interface ReceivedFile {
  tempPath: string;
  size: number;
  fileName: string;
  declaredMimeType: string | null;
}

export const tooLarge = (limit: number) =>
  new AppError(413, 'storage.too_large', `The file is larger than the ${formatBytes(limit)} allowed for this purpose.`);

const formatBytes = (n: number) => (n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MB` : n % 1024 === 0 ? `${n / 1024} KB` : `${n} bytes`);

/** Copies a stream into a new temp file under `tmpDir`, refusing it (and removing the file) past `limit` bytes. */
async function toTempFile(source: Readable, tmpDir: string, limit: number): Promise<{ tempPath: string; size: number }> {
  await fsp.mkdir(tmpDir, { recursive: true });
  const tempPath = path.join(tmpDir, newId());
  let size = 0;
  try {
    await pipeline(
      source,
      async function* (chunks: AsyncIterable<Buffer>) {
        for await (const chunk of chunks) {
          size += chunk.length;
          if (size > limit) throw tooLarge(limit);
          yield chunk;
        }
      },
      fs.createWriteStream(tempPath),
    );
  } catch (err) {
    await fsp.rm(tempPath, { force: true });
    throw err;
  }
  return { tempPath, size };
}

/** The raw body of a PUT to an upload URL. */
export async function receiveBody(req: Request, tmpDir: string, limit: number): Promise<{ tempPath: string; size: number }> {
  if (Number(req.headers['content-length'] ?? 0) > limit) throw tooLarge(limit);
  return toTempFile(req, tmpDir, limit);
}

/**
 * A multipart/form-data body with exactly one file part named `file` and text fields. The file may
 * come before or after the fields, so it is held to `limit` (the largest any purpose allows) here and
 * checked against its purpose by the caller.
 */
export function receiveMultipart(req: Request, tmpDir: string, limit: number): Promise<{ file: ReceivedFile; fields: Record<string, string> }> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { files: 1, fileSize: limit, fields: 10, fieldSize: 1024, parts: 12 } });
    } catch {
      reject(badRequest('storage.multipart_invalid', 'The body is not valid multipart/form-data.'));
      return;
    }
    const fields: Record<string, string> = {};
    let received: Promise<ReceivedFile> | undefined;
    let failure: unknown;
    let settled = false;
    const fail = (err: unknown) => {
      failure ??= err;
    };
    const finish = async () => {
      if (settled) return;
      settled = true;
      const file = await received?.catch((err) => void fail(err));
      if (failure || !file) {
        if (file) await fsp.rm(file.tempPath, { force: true });
        req.unpipe(parser);
        req.resume();
        reject(failure ?? unprocessable('storage.file_missing', 'The request has no file: send it in a multipart part named "file".'));
        return;
      }
      resolve({ file, fields });
    };
    parser.on('field', (name, value) => {
      fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      if (name !== 'file') {
        fail(unprocessable('storage.file_missing', `Send the file in a part named "file", not "${name}".`));
        stream.resume();
        return;
      }
      received = toTempFile(stream, tmpDir, Infinity).then(async ({ tempPath, size }) => {
        // busboy stops at `fileSize` and marks the part truncated.
        if ((stream as { truncated?: boolean }).truncated) {
          await fsp.rm(tempPath, { force: true });
          throw tooLarge(limit);
        }
        return { tempPath, size, fileName: info.filename || 'file', declaredMimeType: info.mimeType || null };
      });
    });
    parser.on('filesLimit', () => fail(unprocessable('storage.too_many_files', 'Send one file per request.')));
    parser.on('error', () => {
      fail(badRequest('storage.multipart_invalid', 'The body is not valid multipart/form-data.'));
      void finish();
    });
    parser.on('close', () => void finish());
    req.pipe(parser);
  });
}

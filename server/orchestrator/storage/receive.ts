import busboy from 'busboy';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream';
import { finished as finishedWriting, pipeline } from 'node:stream/promises';
import type { Request } from 'express';
import { AppError, badRequest, unprocessable } from '../../platform/http/errors.ts';
import { writeFileFrom } from '../../platform/files.ts';
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

const formatBytes = (n: number) =>
  n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MB` : n % 1024 === 0 ? `${n / 1024} KB` : `${n} bytes`;

/** Copies a stream into a new temp file in `tmpDir` (which exists), refusing it past `limit` bytes; the file is removed if anything fails. */
async function toTempFile(
  source: Readable,
  tmpDir: string,
  limit: number,
): Promise<{ tempPath: string; size: number }> {
  const tempPath = path.join(tmpDir, newId());
  let size = 0;
  try {
    // No await before this: a source that fails early (a body cut short) must already have a
    // listener, or its error would end the process.
    await writeFileFrom(tempPath, 'w', (sink) =>
      pipeline(
        source,
        async function* (chunks: AsyncIterable<Buffer>) {
          for await (const chunk of chunks) {
            size += chunk.length;
            if (size > limit) throw tooLarge(limit);
            yield chunk;
          }
        },
        sink,
      ),
    );
  } catch (err) {
    await fsp.rm(tempPath, { force: true });
    throw err;
  }
  return { tempPath, size };
}

const invalidMultipart = () =>
  badRequest(
    'storage.multipart_invalid',
    'The body is not valid multipart/form-data, or it ended before its closing boundary; nothing was stored.',
  );

/** The raw body of a PUT to an upload URL. */
export async function receiveBody(
  req: Request,
  tmpDir: string,
  limit: number,
): Promise<{ tempPath: string; size: number }> {
  if (Number(req.headers['content-length'] ?? 0) > limit) throw tooLarge(limit);
  await fsp.mkdir(tmpDir, { recursive: true });
  try {
    return await toTempFile(req, tmpDir, limit);
  } catch (err) {
    if (err instanceof AppError || req.complete) throw err;
    throw badRequest('storage.body_incomplete', 'The request body ended before all of it arrived; nothing was stored.');
  }
}

/**
 * A multipart/form-data body with exactly one file part named `file` and text fields. The file may
 * come before or after the fields, so it is held to `limit` (the largest any purpose allows) here and
 * checked against its purpose by the caller. Answers only once the whole form is read and the file is
 * either complete or removed: a form that is malformed or cut short is 400 and leaves no file behind.
 */
export async function receiveMultipart(
  req: Request,
  tmpDir: string,
  limit: number,
): Promise<{ file: ReceivedFile; fields: Record<string, string> }> {
  await fsp.mkdir(tmpDir, { recursive: true });
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      limits: { files: 1, fileSize: limit, fields: 10, fieldSize: 1024, parts: 12 },
    });
  } catch {
    throw invalidMultipart();
  }
  const fields: Record<string, string> = {};
  let refusal: AppError | undefined;
  /** Why the file could not be written, when that (not the form) stopped the parser. */
  let writeFailure: unknown;
  // Never rejects: the outcome is read once the form has ended.
  let received: Promise<{ file?: ReceivedFile; err?: unknown }> | undefined;
  parser.on('field', (name, value) => {
    fields[name] = value;
  });
  parser.on('file', (name, stream, info) => {
    if (name !== 'file') {
      refusal ??= unprocessable('storage.file_missing', `Send the file in a part named "file", not "${name}".`);
      // Dropped unread; a part cut short is the form's failure, which the parser reports itself.
      stream.on('error', () => undefined).resume();
      return;
    }
    received = toTempFile(stream, tmpDir, Infinity)
      .then(async ({ tempPath, size }) => {
        // busboy stops at `fileSize` and marks the part truncated.
        if ((stream as { truncated?: boolean }).truncated) {
          await fsp.rm(tempPath, { force: true });
          throw tooLarge(limit);
        }
        return { tempPath, size, fileName: info.filename || 'file', declaredMimeType: info.mimeType || null };
      })
      .then(
        (file) => ({ file }),
        (err: unknown) => {
          // A file that could not be written stops the form too: busboy would wait for it for ever.
          if (!parser.destroyed) parser.destroy((writeFailure = err) as Error);
          return { err };
        },
      );
  });
  parser.on('filesLimit', () => (refusal ??= unprocessable('storage.too_many_files', 'Send one file per request.')));
  // A request cut short (the client went away) does not end the parser by itself.
  finished(req, (err) => err && parser.destroy(err));
  req.pipe(parser);
  const formError = await finishedWriting(parser).then(
    () => undefined,
    (err: unknown) => err ?? new Error('form failed'),
  );
  const outcome = await received;
  if (formError) {
    req.unpipe(parser);
    req.resume();
  }
  // The file's own failure (over the limit, or not writable) names the cause better than the form
  // error it caused; a form that is malformed or cut short is the client's mistake.
  const fileFailure = outcome?.err instanceof AppError || (writeFailure !== undefined && outcome?.err === writeFailure);
  const failure = fileFailure ? outcome!.err : formError ? invalidMultipart() : (refusal ?? outcome?.err);
  if (failure || !outcome?.file) {
    if (outcome?.file) await fsp.rm(outcome.file.tempPath, { force: true });
    throw (
      failure ??
      unprocessable('storage.file_missing', 'The request has no file: send it in a multipart part named "file".')
    );
  }
  return { file: outcome.file, fields };
}

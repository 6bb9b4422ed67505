import { status } from '@grpc/grpc-js';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { writeFileFrom } from '../platform/files.ts';
import { GrpcCallError } from '../platform/grpc/errors.ts';
import { AppError, unprocessable } from '../platform/http/errors.ts';
import { outboundHttp, type OutgoingFile } from '../platform/http/outbound.ts';
import { isUlid } from '../platform/ids.ts';
import type { Logger } from '../platform/logger.ts';

// The LMS's clients of the Orchestrator: payments over gRPC (orchestrator.v1.PaymentsService, the client
// CAP uses too, from server/contracts) and storage over HTTP with the service key. Addresses are read per
// call: in one process the Orchestrator's listeners are known only once they are up.

export { createPaymentsClient, type PaymentsClient } from '../contracts/payments-client.ts';

/** A failed payments call as an HTTP error: 503 when the Orchestrator could not be reached in time, 502 otherwise. Nothing was charged (or refunded) either way. */
export function paymentFailure(err: unknown): never {
  if (!(err instanceof GrpcCallError)) throw err;
  if (err.code === status.UNAVAILABLE || err.code === status.DEADLINE_EXCEEDED) {
    throw new AppError(
      503,
      'payment.unavailable',
      'The payment service is not reachable right now. Nothing was charged: try again in a moment.',
    );
  }
  throw new AppError(
    502,
    'payment.upstream_error',
    'The payment service failed unexpectedly. Nothing was charged: try again, and tell support if it keeps failing.',
  );
}

export function createStorageClient(baseUrl: () => string, serviceKey: string, logger: Logger) {
  const http = outboundHttp({ connectTimeout: 5_000, headersTimeout: 30_000, bodyTimeout: 60_000 });

  async function resolve(
    assetId: string,
    bearer?: string,
  ): Promise<{ assetId: string; url: string; mimeType: string } | undefined> {
    if (!isUlid(assetId)) return undefined;
    let res;
    try {
      res = await http.request(`${baseUrl()}/storage/resolve`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(bearer ? { authorization: `Bearer ${bearer}` } : { 'x-platform-service-key': serviceKey }),
        },
        body: JSON.stringify({ assetIds: [assetId] }),
      });
    } catch (err) {
      logger.warn({ err }, 'the Orchestrator could not be reached to resolve an asset');
      throw new AppError(
        503,
        'storage.unavailable',
        'File storage is not reachable right now. Nothing was changed: try again in a moment.',
      );
    }
    const body = (await res.body.json().catch(() => null)) as {
      data?: Array<{ assetId: string; url: string; mimeType: string }>;
    } | null;
    if (res.statusCode !== 200) {
      logger.warn({ status: res.statusCode }, 'the Orchestrator refused to resolve an asset');
      throw new AppError(
        502,
        'storage.upstream_error',
        'File storage failed unexpectedly. Nothing was changed: try again, and tell support if it keeps failing.',
      );
    }
    return body?.data?.find((asset) => asset.assetId === assetId);
  }

  return {
    /** A download URL of an asset (any owner), or undefined when it does not resolve. */
    assetUrl: async (assetId: string) => (await resolve(assetId))?.url,

    /** Whether the asset is the caller's own (resolved with their token: the Orchestrator answers only theirs). */
    ownsAsset: async (bearer: string, assetId: string) => Boolean(await resolve(assetId, bearer)),

    /**
     * Downloads an asset's bytes into `file` (any owner: the service key resolves it), refusing more
     * than `maxBytes`. Unknown or unconfirmed assets are 422 with `code`.
     */
    async download(assetId: string, file: string, maxBytes: number, code: string): Promise<void> {
      const asset = await resolve(assetId);
      if (!asset)
        throw unprocessable(code, `The asset ${assetId} does not exist or is not confirmed.`, [
          { field: 'packageAssetId', issue: 'is not a confirmed asset' },
        ]);
      const res = await http.request(asset.url);
      if (res.statusCode !== 200) {
        await res.body.dump();
        throw new AppError(
          502,
          'storage.upstream_error',
          `File storage answered ${res.statusCode} for the asset's bytes.`,
        );
      }
      let received = 0;
      const limit = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          received += chunk.length;
          done(received > maxBytes ? unprocessable(code, `The asset is over ${maxBytes} bytes.`) : null, chunk);
        },
      });
      try {
        await writeFileFrom(file, 'w', (sink) => pipeline(res.body, limit, sink));
      } catch (err) {
        if (err instanceof AppError) throw err;
        logger.warn({ err }, "the asset's bytes could not be read from the Orchestrator");
        throw new AppError(
          502,
          'storage.upstream_error',
          "File storage broke off while sending the asset's bytes. Nothing was changed: try again.",
        );
      }
    },

    /** Stores a file the LMS made (a certificate) as the user's own asset, with the service key; answers its id. */
    async storeFile(file: OutgoingFile & { ownerUserId: string; purpose: string }): Promise<string> {
      const res = await http.postFile(
        `${baseUrl()}/storage/upload`,
        { purpose: file.purpose, ownerUserId: file.ownerUserId },
        file,
        { 'x-platform-service-key': serviceKey },
      );
      const body = (await res.body.json().catch(() => null)) as {
        data?: { assetId?: string };
        error?: { code?: string };
      } | null;
      if (res.statusCode !== 201 || !body?.data?.assetId)
        throw new Error(`the Orchestrator refused to store a file: ${res.statusCode} ${body?.error?.code ?? ''}`);
      return body.data.assetId;
    },

    close: () => http.close(),
  };
}

export type StorageClient = ReturnType<typeof createStorageClient>;

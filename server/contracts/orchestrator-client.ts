import { status } from '@grpc/grpc-js';
import type { Readable } from 'node:stream';
import { callUnary } from '../platform/grpc/client.ts';
import { GrpcCallError } from '../platform/grpc/errors.ts';
import { serviceNames } from '../platform/grpc/proto.ts';
import type {
  FindAccountsResponse,
  ProvisionAccountRequest,
  ProvisionAccountResponse,
  VerifyIdentityRequest,
  VerifyIdentityResponse,
} from './identity-messages.ts';
import { AppError } from '../platform/http/errors.ts';
import { outboundHttp, type OutgoingFile } from '../platform/http/outbound.ts';
import { isUlid } from '../platform/ids.ts';
import type { Logger } from '../platform/logger.ts';

// CAP's client of orchestrator.v1.IdentityService (proto/orchestrator/v1/identity.proto). Fields left out
// of a request arrive as '' (proto3 defaults).

export type { VerifyIdentityResponse, ProvisionAccountResponse } from './identity-messages.ts';

/** `address` is read per call: in one process the Orchestrator's listener is known only once it is up. */
export function createIdentityClient(address: () => string, serviceKey: string) {
  const method = (name: string) => `${serviceNames.identity}.${name}`;
  return {
    verifyIdentity: (request: VerifyIdentityRequest) =>
      callUnary<VerifyIdentityResponse>(address(), serviceKey, method('VerifyIdentity'), request),
    provisionAccount: (
      request: Pick<ProvisionAccountRequest, 'email' | 'intents'> & Partial<ProvisionAccountRequest>,
    ) => callUnary<ProvisionAccountResponse>(address(), serviceKey, method('ProvisionAccount'), request),
    findAccounts: (emails: string[]) =>
      callUnary<FindAccountsResponse>(address(), serviceKey, method('FindAccounts'), { emails }),
  };
}

export type IdentityClient = ReturnType<typeof createIdentityClient>;

export { createPaymentsClient, type PaymentsClient } from './payments-client.ts';

/** Statuses that say "the Orchestrator could not answer now", as opposed to "it answered with an error". */
const transient = new Set<number>([status.UNAVAILABLE, status.DEADLINE_EXCEEDED]);

/**
 * A failed Orchestrator call as an HTTP error: 503 `<area>.…_unavailable` when it could not be reached
 * in time, 502 `<area>.upstream_error` for any other failure. Both are safe to retry. Anything that
 * is not a gRPC failure is rethrown as it is.
 */
export function upstreamFailure(err: unknown, codes: { unavailable: string; failed: string }, what: string): never {
  if (!(err instanceof GrpcCallError)) throw err;
  if (transient.has(err.code)) {
    throw new AppError(
      503,
      codes.unavailable,
      `${what} is not reachable right now. Nothing was changed: try again in a moment.`,
    );
  }
  throw new AppError(
    502,
    codes.failed,
    `${what} failed unexpectedly. Nothing was changed: try again, and tell support if it keeps failing.`,
  );
}

/** Resolved URLs of asset ids: `urlOf(id)` is null for no id, or one that no longer resolves. */
export type AssetUrls = (
  assetIds: Array<string | null | undefined>,
) => Promise<(assetId: string | null | undefined) => string | null>;

export interface BroadcastRequest {
  senderId: string;
  recipientIds: string[];
  message: string;
  subject?: string;
}

/**
 * CAP's HTTP client of the Orchestrator's service-key operations (`X-Platform-Service-Key`): storage
 * resolve and conversation broadcast. `baseUrl` is read per call, like the gRPC address.
 */
export function createOrchestratorHttp(baseUrl: () => string, serviceKey: string, logger: Logger) {
  const http = outboundHttp({ connectTimeout: 5_000, headersTimeout: 10_000, bodyTimeout: 10_000 });

  /** A POST with the service key, or on behalf of a user with their own bearer token. */
  async function post(path: string, body: unknown, bearer?: string): Promise<{ status: number; body: any }> {
    const res = await http.request(`${baseUrl()}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(bearer ? { authorization: `Bearer ${bearer}` } : { 'x-platform-service-key': serviceKey }),
      },
      body: JSON.stringify(body),
    });
    return { status: res.statusCode, body: await res.body.json().catch(() => null) };
  }

  /** One resolve call per 100 distinct ids (the Orchestrator's batch limit). A failure is logged, never thrown. */
  const assetUrls: AssetUrls = async (assetIds) => {
    // An id that is no asset id (not a ULID) cannot resolve, and would make the whole batch invalid.
    const ids = [...new Set(assetIds.filter((id): id is string => Boolean(id) && isUlid(id!)))];
    const urls = new Map<string, string>();
    for (let i = 0; i < ids.length; i += 100) {
      try {
        const res = await post('/storage/resolve', { assetIds: ids.slice(i, i + 100) });
        if (res.status !== 200)
          throw new Error(`storage resolve answered ${res.status} ${res.body?.error?.code ?? ''}`);
        for (const asset of res.body.data as Array<{ assetId: string; url: string }>)
          urls.set(asset.assetId, asset.url);
      } catch (err) {
        logger.warn({ err }, 'asset URLs could not be resolved by the Orchestrator: answering with null URLs');
      }
    }
    return (assetId) => (assetId ? (urls.get(assetId) ?? null) : null);
  };

  return {
    assetUrls,

    /**
     * Whether an asset is the user's own: resolved with the user's bearer token, the Orchestrator
     * answers only the caller's assets. Unreachable is 503 (the caller must not guess).
     */
    async ownsAsset(bearer: string, assetId: string): Promise<boolean> {
      if (!isUlid(assetId)) return false;
      let res;
      try {
        res = await post('/storage/resolve', { assetIds: [assetId] }, bearer);
      } catch (err) {
        logger.warn({ err }, 'the Orchestrator could not be reached to check an asset');
        throw new AppError(
          503,
          'storage.unavailable',
          'File storage is not reachable right now. Nothing was changed: try again in a moment.',
        );
      }
      return (
        res.status === 200 && (res.body.data as Array<{ assetId: string }>).some((asset) => asset.assetId === assetId)
      );
    },

    /**
     * The bytes of an asset, resolved with the service key and read from its signed link (for CAP's own
     * proxies: shared applications). Null when it does not resolve; unreachable is 503.
     */
    async readAsset(assetId: string): Promise<{ body: Readable; mimeType: string; fileName: string } | null> {
      const unreachable = (err: unknown) => {
        logger.warn({ err }, 'the Orchestrator could not be reached to read an asset');
        return new AppError(
          503,
          'storage.unavailable',
          'File storage is not reachable right now: try again in a moment.',
        );
      };
      let resolved;
      try {
        resolved = await post('/storage/resolve', { assetIds: [assetId] });
      } catch (err) {
        throw unreachable(err);
      }
      const asset =
        resolved.status === 200
          ? (resolved.body.data as Array<{ assetId: string; url: string; mimeType: string; fileName: string }>).find(
              (a) => a.assetId === assetId,
            )
          : undefined;
      if (!asset) return null;
      let file;
      try {
        file = await http.request(asset.url, { method: 'GET' });
      } catch (err) {
        throw unreachable(err);
      }
      if (file.statusCode !== 200) {
        await file.body.dump();
        return null;
      }
      return { body: file.body, mimeType: asset.mimeType, fileName: asset.fileName };
    },

    /** Stores a file CAP made (a certificate) as the user's own asset, with the service key; answers its id. */
    async storeFile(file: OutgoingFile & { ownerUserId: string; purpose: string }): Promise<string> {
      let res;
      try {
        res = await http.postFile(
          `${baseUrl()}/storage/upload`,
          { purpose: file.purpose, ownerUserId: file.ownerUserId },
          file,
          { 'x-platform-service-key': serviceKey },
        );
      } catch (err) {
        logger.warn({ err }, 'the Orchestrator could not be reached to store a file');
        throw new AppError(
          503,
          'storage.unavailable',
          'File storage is not reachable right now. Nothing was changed: try again in a moment.',
        );
      }
      const body = (await res.body.json().catch(() => null)) as {
        data?: { assetId?: string };
        error?: { code?: string };
      } | null;
      if (res.statusCode !== 201 || !body?.data?.assetId) {
        logger.warn({ status: res.statusCode, code: body?.error?.code }, 'the Orchestrator refused to store a file');
        throw new AppError(
          502,
          'storage.upstream_error',
          'File storage failed unexpectedly. Nothing was changed: try again, and tell support if it keeps failing.',
        );
      }
      return body.data.assetId;
    },

    /** One thread per recipient, through `POST /conversations/broadcast`. */
    async broadcast(input: BroadcastRequest): Promise<{ message: string; recipientCount: number }> {
      let res;
      try {
        res = await post('/conversations/broadcast', input);
      } catch (err) {
        logger.warn({ err }, 'the Orchestrator could not be reached for a broadcast');
        throw new AppError(
          503,
          'messaging.unavailable',
          'Messaging is not reachable right now. Nothing was sent: try again in a moment.',
        );
      }
      if (res.status !== 200) {
        logger.warn({ status: res.status, code: res.body?.error?.code }, 'the Orchestrator refused a broadcast');
        throw new AppError(
          502,
          'messaging.upstream_error',
          'Messaging failed unexpectedly. Nothing was sent: try again, and tell support if it keeps failing.',
        );
      }
      return res.body.data;
    },

    close: () => http.close(),
  };
}

export type OrchestratorHttp = ReturnType<typeof createOrchestratorHttp>;

import { status } from '@grpc/grpc-js';
import { callUnary } from '../platform/grpc/client.ts';
import { GrpcCallError } from '../platform/grpc/errors.ts';
import { serviceNames } from '../platform/grpc/proto.ts';
import type {
  ProvisionAccountRequest,
  ProvisionAccountResponse,
  VerifyIdentityRequest,
  VerifyIdentityResponse,
} from '../platform/grpc/identity-messages.ts';
import { AppError } from '../platform/http/errors.ts';

// CAP's client of orchestrator.v1.IdentityService (proto/orchestrator/v1/identity.proto). Fields left out
// of a request arrive as '' (proto3 defaults).

export type { VerifyIdentityResponse, ProvisionAccountResponse } from '../platform/grpc/identity-messages.ts';

/** `address` is read per call: in one process the Orchestrator's listener is known only once it is up. */
export function createIdentityClient(address: () => string, serviceKey: string) {
  const method = (name: string) => `${serviceNames.identity}.${name}`;
  return {
    verifyIdentity: (request: VerifyIdentityRequest) =>
      callUnary<VerifyIdentityResponse>(address(), serviceKey, method('VerifyIdentity'), request),
    provisionAccount: (request: Pick<ProvisionAccountRequest, 'email' | 'intents'> & Partial<ProvisionAccountRequest>) =>
      callUnary<ProvisionAccountResponse>(address(), serviceKey, method('ProvisionAccount'), request),
  };
}

export type IdentityClient = ReturnType<typeof createIdentityClient>;

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
    throw new AppError(503, codes.unavailable, `${what} is not reachable right now. Nothing was changed: try again in a moment.`);
  }
  throw new AppError(502, codes.failed, `${what} failed unexpectedly. Nothing was changed: try again, and tell support if it keeps failing.`);
}

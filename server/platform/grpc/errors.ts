import { status } from '@grpc/grpc-js';

/**
 * Thrown by a gRPC handler to answer with a specific status. The message is sent to the caller,
 * so it must not contain sensitive request data. Any other error becomes INTERNAL.
 */
export class GrpcError extends Error {
  override name = 'GrpcError';
  constructor(
    readonly code: status,
    message: string,
  ) {
    super(message);
  }
}

export const invalidArgument = (message: string) => new GrpcError(status.INVALID_ARGUMENT, message);
export const notFound = (message: string) => new GrpcError(status.NOT_FOUND, message);
export const alreadyExists = (message: string) => new GrpcError(status.ALREADY_EXISTS, message);
export const failedPrecondition = (message: string) => new GrpcError(status.FAILED_PRECONDITION, message);
export const permissionDenied = (message: string) => new GrpcError(status.PERMISSION_DENIED, message);
export const unauthenticated = (message: string) => new GrpcError(status.UNAUTHENTICATED, message);
export const unavailable = (message: string) => new GrpcError(status.UNAVAILABLE, message);

/** `UNAUTHENTICATED` for 16; `UNKNOWN(99)` for numbers outside the standard set. */
export function statusName(code: number): string {
  return status[code] ?? `UNKNOWN(${code})`;
}

/** What a client call rejects with: the gRPC status code and the server's details text. */
export class GrpcCallError extends Error {
  override name = 'GrpcCallError';
  constructor(
    readonly code: status,
    readonly details: string,
    readonly method: string,
  ) {
    super(`${method} failed: ${statusName(code)}: ${details}`);
  }
}

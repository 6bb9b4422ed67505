/** The work of `capctl grpc call` (grpc.ts defines the command). */
import { status } from '@grpc/grpc-js';
import { UnreachableError, UsageError, exitCodes, print } from '../output.ts';
import { callUnary, closeGrpcClients } from '../../server/platform/grpc/client.ts';
import { GrpcCallError, statusName } from '../../server/platform/grpc/errors.ts';
import { resolveMethod } from '../../server/platform/grpc/proto.ts';
import type { ResolvedMethod } from '../../server/platform/grpc/proto.ts';
import { devServiceKey, grpcAddresses } from '../grpc-address.ts';
import { resolveBaseUrl } from '../session.ts';

export interface CallOptions {
  data: string;
  address?: string;
  baseUrl?: string;
  serviceKey?: string;
  timeout: string;
  json?: boolean;
}

function fieldNames(method: ResolvedMethod): string[] {
  const descriptor = (method.definition.requestType as { type?: { field?: { name: string }[] } }).type;
  return (descriptor?.field ?? []).map((field) => field.name);
}

/** Parses --data into a request the proto accepts, or throws a UsageError saying what is wrong. */
function parseRequest(method: ResolvedMethod, data: string): object {
  let request: unknown;
  try {
    request = JSON.parse(data);
  } catch (err) {
    throw new UsageError(`--data is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    throw new UsageError('--data must be a JSON object');
  }
  // The proto encoder silently drops unknown keys; a typo (userId for user_id) deserves an error.
  const known = fieldNames(method);
  const unknown = Object.keys(request).filter((key) => !known.includes(key));
  if (unknown.length > 0) {
    throw new UsageError(
      `${method.service}.${method.method} has no field ${unknown.join(', ')}; fields: ${known.join(', ')}`,
    );
  }
  try {
    method.definition.requestSerialize(request);
  } catch (err) {
    throw new UsageError(`--data does not fit the request message: ${(err as Error).message}`);
  }
  return request;
}

export async function runCall(methodName: string, options: CallOptions): Promise<void> {
  let method: ResolvedMethod;
  try {
    method = resolveMethod(methodName);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const request = parseRequest(method, options.data);
  const deadlineMs = Number(options.timeout);
  if (!Number.isInteger(deadlineMs) || deadlineMs <= 0) {
    throw new UsageError('--timeout must be a positive whole number of milliseconds');
  }
  const explicit = options.address ?? process.env.CAPCTL_GRPC_ADDRESS;
  let address: string;
  try {
    const addresses = await grpcAddresses(explicit, resolveBaseUrl(options.baseUrl));
    address = addresses.addressFor(method.service);
  } catch (err) {
    if (!(err instanceof UnreachableError)) throw err;
    process.stderr.write(`capctl: ${err.message} (give the gRPC address with --address)\n`);
    process.exitCode = exitCodes.unreachable;
    return;
  }
  const serviceKey = options.serviceKey ?? process.env.ORCHESTRATOR_SERVICE_API_KEY ?? devServiceKey;
  const label = `${method.service}.${method.method}`;

  try {
    const response = await callUnary(address, serviceKey, label, request, { deadlineMs });
    print(response, Boolean(options.json), () => JSON.stringify(response, null, 2));
  } catch (err) {
    if (!(err instanceof GrpcCallError)) throw err;
    const unreachable = err.code === status.UNAVAILABLE;
    if (options.json) {
      print({ error: { code: err.code, status: statusName(err.code), details: err.details } }, true, () => '');
    } else {
      const hint = unreachable ? ` (is the gRPC server running at ${address}?)` : '';
      process.stderr.write(`capctl: ${label} failed: ${statusName(err.code)}: ${err.details}${hint}\n`);
    }
    process.exitCode = unreachable ? exitCodes.unreachable : exitCodes.failed;
  } finally {
    closeGrpcClients();
  }
}

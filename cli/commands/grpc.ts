import type { Command } from 'commander';
import { status } from '@grpc/grpc-js';
import { UsageError, exitCodes, print } from '../output.ts';
import { callUnary, closeGrpcClients } from '../../server/platform/grpc/client.ts';
import { GrpcCallError, statusName } from '../../server/platform/grpc/errors.ts';
import { allMethodNames, resolveMethod } from '../../server/platform/grpc/proto.ts';
import type { ResolvedMethod } from '../../server/platform/grpc/proto.ts';

const defaultAddress = '127.0.0.1:4400';
// The development default of ORCHESTRATOR_SERVICE_API_KEY; production servers refuse it.
const devServiceKey = 'dev-service-key';

interface CallOptions {
  data: string;
  address?: string;
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

async function runCall(methodName: string, options: CallOptions): Promise<void> {
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
  const address = options.address ?? process.env.CAPCTL_GRPC_ADDRESS ?? defaultAddress;
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

/** `capctl grpc call|methods`: reflection-free calls built from the protos in proto/. */
export function registerGrpc(program: Command): void {
  const grpc = program.command('grpc').description('Call the platform gRPC services (built from proto/)');

  grpc
    .command('call')
    .description('Call one unary RPC with the service key and print the response')
    .argument('<method>', 'Service.Method, e.g. IdentityService.ProvisionAccount or its full name')
    .option('-d, --data <json>', 'request message as JSON, with the proto field names (snake_case)', '{}')
    .option('-a, --address <host:port>', `server address (env CAPCTL_GRPC_ADDRESS, default ${defaultAddress})`)
    .option('-k, --service-key <key>', 'service key sent as x-platform-service-key (env ORCHESTRATOR_SERVICE_API_KEY)')
    .option('--timeout <ms>', 'deadline for the call in milliseconds', '10000')
    .option('--json', 'print machine-readable JSON only')
    .addHelpText(
      'after',
      '\nExit codes: 0 ok, 1 the RPC returned an error status, 2 usage error, 3 server unreachable.',
    )
    .action((method: string, options: CallOptions) => runCall(method, options));

  grpc
    .command('methods')
    .description('List the RPCs that `grpc call` knows')
    .option('--json', 'print machine-readable JSON only')
    .action((options: { json?: boolean }) => {
      const methods = allMethodNames();
      print(methods, Boolean(options.json), () => methods.join('\n'));
    });
}

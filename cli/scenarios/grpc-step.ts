/**
 * gRPC steps, through the platform's own client (server/platform/grpc/client.ts). Loaded on first use so
 * scenarios without gRPC steps never load grpc-js.
 */
import { UnreachableError } from '../output.ts';

async function importGrpc() {
  const [client, errors, proto] = await Promise.all([
    import('../../server/platform/grpc/client.ts'),
    import('../../server/platform/grpc/errors.ts'),
    import('../../server/platform/grpc/proto.ts'),
  ]);
  return { ...client, ...errors, ...proto };
}

let loaded: ReturnType<typeof importGrpc> | undefined;
const grpcModules = () => (loaded ??= importGrpc());

/** A gRPC answer in the runner's terms: `status` is the gRPC status code (0 = OK). */
export interface GrpcOutcome {
  status: number;
  body: unknown;
}

const UNAVAILABLE = 14;

export async function callGrpc(
  address: string,
  serviceKey: string,
  method: string,
  request: object,
): Promise<GrpcOutcome> {
  const grpc = await grpcModules();
  try {
    return { status: 0, body: await grpc.callUnary(address, serviceKey, method, request) };
  } catch (err) {
    if (!(err instanceof grpc.GrpcCallError)) throw err;
    if (err.code === UNAVAILABLE && /connect|ECONNREFUSED|ENOTFOUND/i.test(err.details)) {
      throw new UnreachableError(`cannot reach gRPC at ${address} (${err.details})`);
    }
    return { status: err.code, body: { error: { code: grpc.statusName(err.code), message: err.details } } };
  }
}

/** Why a method name does not resolve against proto/, or undefined when it does. */
export async function grpcMethodProblem(method: string): Promise<string | undefined> {
  const grpc = await grpcModules();
  try {
    grpc.resolveMethod(method);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** The full name of the service a method belongs to (`orchestrator.v1.IdentityService`). */
export async function grpcServiceOf(method: string): Promise<string> {
  return (await grpcModules()).resolveMethod(method).service;
}

/** Closes the gRPC channels (if any were opened) so the process can exit. */
export async function closeGrpc(): Promise<void> {
  if (loaded) (await loaded).closeGrpcClients();
}

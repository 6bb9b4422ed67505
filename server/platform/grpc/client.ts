import * as grpc from '@grpc/grpc-js';
import { GrpcCallError } from './errors.ts';
import { resolveMethod, serviceDefinition, serviceKeyMetadata } from './proto.ts';

export interface UnaryCallOptions {
  /** Time allowed for the whole call. Default 10000 ms. */
  deadlineMs?: number;
}

const defaultDeadlineMs = 10_000;

// One grpc-js client (and so one channel) per address, shared by every service and caller.
const clients = new Map<string, grpc.Client>();

function clientFor(address: string): grpc.Client {
  let client = clients.get(address);
  if (!client) {
    client = new grpc.Client(address, grpc.credentials.createInsecure());
    clients.set(address, client);
  }
  return client;
}

/** Closes every cached channel (lets a CLI process exit; tests call it in `after`). */
export function closeGrpcClients(): void {
  for (const client of clients.values()) client.close();
  clients.clear();
}

/**
 * Calls one unary RPC of our protos with the service key in metadata. `method` is written as
 * `IdentityService.ProvisionAccount`, `orchestrator.v1.IdentityService.ProvisionAccount` or its
 * `/service/Method` path. Resolves to the response object (snake_case keys, int64 as strings);
 * rejects with a GrpcCallError carrying `code` and `details`. An unknown method throws at once.
 */
export function callUnary<Res = Record<string, unknown>>(
  address: string,
  serviceKey: string,
  method: string,
  request: object,
  options: UnaryCallOptions = {},
): Promise<Res> {
  const resolved = resolveMethod(method);
  const { definition } = resolved;
  const metadata = new grpc.Metadata();
  metadata.set(serviceKeyMetadata, serviceKey);
  const deadline = Date.now() + (options.deadlineMs ?? defaultDeadlineMs);
  const label = `${resolved.service}.${resolved.method}`;
  return new Promise<Res>((resolve, reject) => {
    clientFor(address).makeUnaryRequest<object, object>(
      definition.path,
      definition.requestSerialize,
      definition.responseDeserialize,
      request,
      metadata,
      { deadline },
      (err, response) => {
        if (err) reject(new GrpcCallError(err.code, err.details, label));
        else resolve(response as Res);
      },
    );
  });
}

export type GrpcClient<Methods extends Record<string, { request: object; response: object }>> = {
  [Name in keyof Methods]: (
    request: Methods[Name]['request'],
    options?: UnaryCallOptions,
  ) => Promise<Methods[Name]['response']>;
};

/**
 * A client for one service of our protos, with one promise-returning function per RPC, e.g.
 * `createGrpcClient<IdentityMethods>(serviceNames.identity, address, key).ProvisionAccount({...})`.
 * Describe the messages with the type parameter; without it requests and responses are loose objects.
 */
export function createGrpcClient<
  Methods extends Record<string, { request: object; response: object }> = Record<
    string,
    { request: Record<string, unknown>; response: Record<string, unknown> }
  >,
>(serviceFullName: string, address: string, serviceKey: string): GrpcClient<Methods> {
  const client: Record<string, (request: object, options?: UnaryCallOptions) => Promise<object>> = {};
  for (const methodName of Object.keys(serviceDefinition(serviceFullName))) {
    client[methodName] = (request, options) =>
      callUnary(address, serviceKey, `${serviceFullName}.${methodName}`, request, options);
  }
  return client as GrpcClient<Methods>;
}

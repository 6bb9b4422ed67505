import { createHash, timingSafeEqual } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import * as grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';
import type { PackageDefinition, ServiceDefinition } from '@grpc/proto-loader';
import { HealthImplementation, protoPath as healthProtoPath } from 'grpc-health-check';
import type { ServingStatusMap } from 'grpc-health-check';
import type { Logger } from 'pino';
import { isConnectionFailure } from '../db/connection-failure.ts';
import type { DatabaseWatch } from '../db/watch.ts';
import { PortInUseError } from '../ports.ts';
import { GrpcError, statusName } from './errors.ts';
import { platformPackageDefinition, protoLoaderOptions, serviceKeyMetadata, serviceNameOf } from './proto.ts';

const healthServiceName = 'grpc.health.v1.Health';

export interface GrpcCallContext {
  /** `/orchestrator.v1.IdentityService/VerifyIdentity` */
  method: string;
  metadata: grpc.Metadata;
  /** The caller's address, for diagnostics. */
  peer: string;
}

// Requests and responses are plain objects shaped by the proto (snake_case keys).
export type UnaryHandler<Req = any, Res = any> = (request: Req, ctx: GrpcCallContext) => Promise<Res>;

export interface GrpcServiceEntry {
  /** From proto.ts, e.g. `serviceDefinition(serviceNames.identity)`. */
  definition: ServiceDefinition;
  /** One handler per RPC of the definition, keyed by the proto method name. */
  implementation: Record<string, UnaryHandler>;
}

export interface GrpcServerOptions {
  host: string;
  /** 0 picks a free port; read the result from `address`. */
  port: number;
  serviceKey: string;
  logger: Logger;
  services: GrpcServiceEntry[];
  /** The listener's name in messages (e.g. `grpc-lms`). */
  label?: string;
  /** How long stop() lets calls in flight finish before closing them. Default 5000. */
  shutdownTimeoutMs?: number;
  /** Told about a call that failed because the database could not be reached (answered UNAVAILABLE). */
  database?: DatabaseWatch;
}

export interface GrpcServerHandle {
  /** `host:port` with the port actually bound. */
  address: string;
  stop(): Promise<void>;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Throws UNAUTHENTICATED unless the call carries the expected key. Digests make the lengths equal. */
function checkServiceKey(metadata: grpc.Metadata, expectedDigest: Buffer): void {
  const given = metadata.get(serviceKeyMetadata)[0];
  if (typeof given !== 'string' || given === '') {
    throw new GrpcError(grpc.status.UNAUTHENTICATED, `missing ${serviceKeyMetadata} metadata`);
  }
  if (!timingSafeEqual(digest(given), expectedDigest)) {
    throw new GrpcError(grpc.status.UNAUTHENTICATED, `invalid service key in ${serviceKeyMetadata} metadata`);
  }
}

/**
 * Turns `async (request, ctx) => response` into a grpc-js unary handler with the key check,
 * error mapping and one log line per call. The response is serialized here (the definition
 * handed to grpc-js passes bytes through) so that a malformed response is an INTERNAL we log.
 */
function adaptUnary(
  path: string,
  handler: UnaryHandler,
  serialize: (value: object) => Buffer,
  expectedKeyDigest: Buffer,
  logger: Logger,
  database: DatabaseWatch | undefined,
): grpc.handleUnaryCall<object, Buffer> {
  return (call, callback) => {
    const started = performance.now();
    const finish = (code: grpc.status) =>
      logger.info(
        { grpcMethod: path, grpcCode: statusName(code), ms: Math.round((performance.now() - started) * 10) / 10 },
        'grpc call',
      );
    void (async () => {
      try {
        checkServiceKey(call.metadata, expectedKeyDigest);
        const response = await handler(call.request, { method: path, metadata: call.metadata, peer: call.getPeer() });
        const bytes = serialize(response);
        callback(null, bytes);
        finish(grpc.status.OK);
      } catch (err) {
        if (err instanceof GrpcError) {
          callback({ code: err.code, details: err.message });
          finish(err.code);
          return;
        }
        if (isConnectionFailure(err)) {
          // The watch logs the outage once; the caller may try again.
          database?.report(err);
          callback({ code: grpc.status.UNAVAILABLE, details: 'the database cannot be reached at the moment' });
          finish(grpc.status.UNAVAILABLE);
          return;
        }
        logger.error({ err, grpcMethod: path }, 'grpc handler failed');
        callback({ code: grpc.status.INTERNAL, details: 'internal error' });
        finish(grpc.status.INTERNAL);
      }
    })();
  };
}

let reflectionDefinition: PackageDefinition | undefined;

/** Our protos plus the health proto, so reflection can describe every service we serve. */
function reflectionPackageDefinition(): PackageDefinition {
  reflectionDefinition ??= {
    ...platformPackageDefinition(),
    ...protoLoader.loadSync('health/v1/health.proto', {
      ...protoLoaderOptions,
      includeDirs: [healthProtoPath.replace(/[\\/]health[\\/]v1[\\/]health\.proto$/, '')],
    }),
  };
  return reflectionDefinition;
}

let reflectionServices: ServiceDefinition[] | undefined;

/**
 * The definitions of the two reflection services @grpc/reflection serves (v1 and v1alpha), read once
 * per process from its protos with its loading options, so that a server registers them without
 * loading the library.
 */
function reflectionServiceDefinitions(): ServiceDefinition[] {
  if (reflectionServices) return reflectionServices;
  const protoDir = path.join(
    path.dirname(createRequire(import.meta.url).resolve('@grpc/reflection/package.json')),
    'build/proto/grpc/reflection',
  );
  reflectionServices = ['v1', 'v1alpha'].map(
    (version) =>
      protoLoader.loadSync(path.join(protoDir, version, 'reflection.proto'), {
        longs: String,
        enums: String,
        bytes: Array,
        defaults: true,
        oneofs: true,
      })[`grpc.reflection.${version}.ServerReflection`] as ServiceDefinition,
  );
  return reflectionServices;
}

/**
 * Server reflection for `services`, made when its first call arrives: describing the services (decoding
 * and indexing every descriptor, for each of the two versions) was a fifth of a gRPC server's start,
 * and most servers are never asked. The library registers its handlers on a stand-in for the server;
 * each call is handed to the one of its method.
 */
function addReflection(server: grpc.Server, services: string[], logger: Logger): void {
  let handlers: Promise<Map<string, grpc.handleBidiStreamingCall<object, object>>> | undefined;
  const load = () =>
    (handlers ??= import('@grpc/reflection').then(({ ReflectionService }) => {
      const byPath = new Map<string, grpc.handleBidiStreamingCall<object, object>>();
      new ReflectionService(reflectionPackageDefinition(), { services }).addToServer({
        addService: (definition, implementation) => {
          for (const [name, method] of Object.entries(definition))
            byPath.set(method.path, implementation[name] as grpc.handleBidiStreamingCall<object, object>);
        },
      });
      return byPath;
    }));
  for (const definition of reflectionServiceDefinitions()) {
    const implementation: grpc.UntypedServiceImplementation = {};
    for (const [name, method] of Object.entries(definition)) {
      implementation[name] = (call: grpc.ServerDuplexStream<object, object>) =>
        void load().then(
          (loaded) => loaded.get(method.path)!(call),
          (err: unknown) => {
            logger.error({ err }, 'grpc reflection could not be loaded');
            call.emit('error', { code: grpc.status.INTERNAL, details: 'internal error' });
          },
        );
    }
    server.addService(definition, implementation);
  }
}

function formatAddress(host: string, port: number): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
}

function bind(server: grpc.Server, host: string, port: number, label: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(formatAddress(host, port), grpc.ServerCredentials.createInsecure(), (err, boundPort) => {
      if (!err) return resolve(boundPort);
      if (/EADDRINUSE|address already in use/i.test(err.message)) {
        return reject(
          new PortInUseError(
            `gRPC port ${port} (${label}) is already in use on ${host}; choose another with its flag`,
            { cause: err },
          ),
        );
      }
      if (/EACCES|permission denied/i.test(err.message)) {
        return reject(
          new PortInUseError(`not allowed to listen on gRPC port ${port} (${label}) on ${host}`, { cause: err }),
        );
      }
      reject(new Error(`cannot bind gRPC server to ${host}:${port}: ${err.message}`, { cause: err }));
    });
  });
}

/**
 * Starts a gRPC server for the given services, with server reflection and the standard health
 * service (both open; every other call needs the service key in metadata).
 */
export async function createGrpcServer(options: GrpcServerOptions): Promise<GrpcServerHandle> {
  const { host, port, serviceKey, logger, services } = options;
  if (!serviceKey) throw new Error('createGrpcServer needs a non-empty serviceKey');
  const expectedKeyDigest = digest(serviceKey);

  // grpc-js writes its own diagnostics to stderr (an `E ...` line for a port in use, which start-up
  // reports as one line of its own): they go to this process's log instead, at debug level.
  grpc.setLogger({ error: (...args: unknown[]) => logger.debug({ grpc: args.map(String).join(' ') }, 'grpc-js') });
  // Without this, Linux lets a second grpc-js server silently share the port.
  const server = new grpc.Server({ 'grpc.so_reuseport': 0 });
  const served: string[] = [];

  for (const { definition, implementation } of services) {
    const serviceName = serviceNameOf(definition);
    const passThrough: Record<string, grpc.MethodDefinition<any, any>> = {};
    const handlers: grpc.UntypedServiceImplementation = {};
    for (const [methodName, method] of Object.entries(definition)) {
      const handler = implementation[methodName];
      if (method.requestStream || method.responseStream) {
        throw new Error(`${method.path}: only unary RPCs are supported`);
      }
      if (typeof handler !== 'function') throw new Error(`${method.path}: no handler given`);
      passThrough[methodName] = { ...method, responseSerialize: (bytes: Buffer) => bytes };
      handlers[methodName] = adaptUnary(
        method.path,
        handler,
        method.responseSerialize,
        expectedKeyDigest,
        logger,
        options.database,
      );
    }
    const extra = Object.keys(implementation).filter((name) => !(name in definition));
    if (extra.length > 0) throw new Error(`${serviceName} has no RPC named ${extra.join(', ')}`);
    server.addService(passThrough, handlers);
    served.push(serviceName);
  }

  const statuses: ServingStatusMap = { '': 'SERVING' };
  for (const name of served) statuses[name] = 'SERVING';
  const health = new HealthImplementation(statuses);
  health.addToServer(server);
  addReflection(server, [...served, healthServiceName], logger);

  let boundPort: number;
  try {
    boundPort = await bind(server, host, port, options.label ?? 'grpc');
  } catch (err) {
    server.forceShutdown();
    throw err;
  }
  const address = formatAddress(host, boundPort);
  logger.info({ address, services: served }, 'grpc server listening');

  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? 5000;
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= new Promise<void>((resolve) => {
      for (const name of Object.keys(statuses)) health.setStatus(name, 'NOT_SERVING');
      const timer = setTimeout(() => {
        logger.warn({ address }, 'grpc server did not drain in time; closing open calls');
        server.forceShutdown();
        resolve();
      }, shutdownTimeoutMs);
      timer.unref();
      server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    return stopping;
  };

  return { address, stop };
}

import protoLoader from '@grpc/proto-loader';
import type { MethodDefinition, PackageDefinition, ServiceDefinition } from '@grpc/proto-loader';
import { projectPath } from '../paths.ts';

/** The proto/ folder at the repository root: the gRPC source of truth. */
export const protoRoot = projectPath('proto') + '/';

/** Every .proto file of the platform, relative to protoRoot. */
export const protoFiles = [
  'orchestrator/v1/identity.proto',
  'orchestrator/v1/payments.proto',
  'lms/v1/recommendations.proto',
] as const;

/** Metadata entry that carries the shared service key (ORCHESTRATOR_SERVICE_API_KEY) on every call. */
export const serviceKeyMetadata = 'x-platform-service-key';

/** Full names of the platform's gRPC services. */
export const serviceNames = {
  identity: 'orchestrator.v1.IdentityService',
  payments: 'orchestrator.v1.PaymentsService',
  recommendations: 'lms.v1.RecommendationsService',
} as const;

/**
 * keepCase keeps the proto's snake_case names on the JS objects; int64 values arrive as strings
 * (no precision loss) and enums as their names; unset scalars come back as their defaults.
 */
export const protoLoaderOptions: protoLoader.Options = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [protoRoot],
};

let cached: PackageDefinition | undefined;

/** All platform services and messages, loaded once from proto/. */
export function platformPackageDefinition(): PackageDefinition {
  cached ??= protoLoader.loadSync([...protoFiles], protoLoaderOptions);
  return cached;
}

function isServiceDefinition(value: unknown): value is ServiceDefinition {
  return typeof value === 'object' && value !== null && !('format' in value) && !('fileDescriptorProtos' in value);
}

/** Full names of every service declared in proto/. */
export function allServiceNames(): string[] {
  return Object.entries(platformPackageDefinition())
    .filter(([, value]) => isServiceDefinition(value))
    .map(([name]) => name)
    .sort();
}

/** The grpc-js definition of a service by its full name, e.g. `orchestrator.v1.IdentityService`. */
export function serviceDefinition(fullName: string): ServiceDefinition {
  const value = platformPackageDefinition()[fullName];
  if (!isServiceDefinition(value)) {
    throw new Error(`unknown gRPC service ${fullName} (known: ${allServiceNames().join(', ')})`);
  }
  return value;
}

/** The full service name a definition belongs to, read from its method paths. */
export function serviceNameOf(definition: ServiceDefinition): string {
  const first = Object.values(definition)[0];
  if (!first) throw new Error('gRPC service definition has no methods');
  return first.path.split('/')[1]!;
}

export interface ResolvedMethod {
  /** `orchestrator.v1.IdentityService` */
  service: string;
  /** `ProvisionAccount` */
  method: string;
  /** `/orchestrator.v1.IdentityService/ProvisionAccount`, the HTTP/2 path */
  path: string;
  definition: MethodDefinition<object, object>;
}

/**
 * Finds a method from any of the names people write: `IdentityService.ProvisionAccount`,
 * `orchestrator.v1.IdentityService.ProvisionAccount` or `/orchestrator.v1.IdentityService/ProvisionAccount`.
 * Throws an Error naming the known methods when there is no single match.
 */
export function resolveMethod(name: string): ResolvedMethod {
  const normalised = name.trim().replace(/^\//, '').replace('/', '.');
  const split = normalised.lastIndexOf('.');
  const servicePart = split > 0 ? normalised.slice(0, split) : '';
  const methodPart = normalised.slice(split + 1);
  const candidates = allServiceNames().filter((full) => full === servicePart || full.endsWith(`.${servicePart}`));
  const matches = candidates.filter((full) => methodPart in serviceDefinition(full));
  if (matches.length !== 1) {
    const reason = matches.length > 1 ? 'is ambiguous' : 'is not a known method';
    throw new Error(`gRPC method "${name}" ${reason}; known methods: ${allMethodNames().join(', ')}`);
  }
  const service = matches[0]!;
  const definition = serviceDefinition(service)[methodPart] as MethodDefinition<object, object>;
  return { service, method: methodPart, path: definition.path, definition };
}

/** `Service.Method` for every method, full service names. */
export function allMethodNames(): string[] {
  return allServiceNames().flatMap((service) =>
    Object.keys(serviceDefinition(service)).map((method) => `${service}.${method}`),
  );
}

/**
 * Where the platform's gRPC services listen. An explicit address (a flag or an environment variable)
 * wins; otherwise the platform says (`GET /v1/ol/.well-known/grpc-services`), so the HTTP base URL is
 * enough; a platform that does not (another implementation) is taken to listen on the default.
 */
import { Agent } from 'undici';
import { isSuccess, send } from './scenarios/http.ts';
import { UnreachableError } from './output.ts';

export const defaultGrpcAddress = '127.0.0.1:4400';
// The development default of ORCHESTRATOR_SERVICE_API_KEY; production servers refuse it.
export const devServiceKey = 'dev-service-key';
export const grpcServicesPath = '/v1/ol/.well-known/grpc-services';

export interface GrpcAddresses {
  /** The address of a service by its full name (`orchestrator.v1.IdentityService`). */
  addressFor(service: string): string;
}

/** One address for every service. */
export const fixedGrpcAddress = (address: string): GrpcAddresses => ({ addressFor: () => address });

/**
 * Asks the platform at `baseUrl`. A platform that cannot be reached throws UnreachableError; one
 * without the discovery operation gives the default address.
 */
export async function discoverGrpcAddresses(baseUrl: string, dispatcher?: Agent): Promise<GrpcAddresses> {
  const url = `${baseUrl.replace(/\/+$/, '')}${grpcServicesPath}`;
  const own = dispatcher ? undefined : new Agent({ connect: { timeout: 5_000 } });
  let res;
  try {
    res = await send({ method: 'GET', url, headers: { accept: 'application/json' } }, (dispatcher ?? own)!);
  } finally {
    await own?.close();
  }
  const services = (res.body as { data?: { services?: Array<{ service: string; address: string }> } })?.data?.services;
  if (!isSuccess(res.status) || !Array.isArray(services)) {
    return fixedGrpcAddress(defaultGrpcAddress);
  }
  const known = new Map(services.map((s) => [s.service, s.address]));
  return {
    addressFor(service) {
      const address = known.get(service);
      if (address === undefined) {
        throw new UnreachableError(
          `the platform lists no gRPC listener for ${service} (${url} lists ${[...known.keys()].join(', ') || 'none'})`,
        );
      }
      return address;
    },
  };
}

/** The explicit address if given, else what the platform says. */
export async function grpcAddresses(
  explicit: string | undefined,
  baseUrl: string,
  dispatcher?: Agent,
): Promise<GrpcAddresses> {
  if (explicit) return fixedGrpcAddress(explicit);
  return discoverGrpcAddresses(baseUrl, dispatcher);
}

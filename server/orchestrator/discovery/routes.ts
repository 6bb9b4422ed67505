import { serviceNames } from '../../platform/grpc/proto.ts';
import type { operations } from '../../contracts/openapi/ol.ts';
import type { Handlers } from '../../platform/http/operations.ts';
import { ok } from '../../platform/http/reply.ts';
import type { Peers } from '../../platform/service.ts';

const everyInterface = /^(0\.0\.0\.0|\[::\]|::)$/;

/** `host:port` as the caller can reach it: a listener on every interface is named by the host the caller used. */
export function reachableAddress(address: string, callerHost: string): string {
  const at = address.lastIndexOf(':');
  const host = address.slice(0, at);
  return everyInterface.test(host) && callerHost ? `${callerHost}:${address.slice(at + 1)}` : address;
}

/** `GET /.well-known/grpc-services`: where each gRPC service of the platform listens. */
export function discoveryRoutes(peers: Peers): Handlers<operations> {
  const listeners: Array<[string[], () => string]> = [
    [[serviceNames.identity, serviceNames.payments], () => peers.olGrpcAddress()],
    [[serviceNames.recommendations], () => peers.lmsGrpcAddress()],
  ];
  return {
    getGrpcServices: (call) => {
      const services = listeners.flatMap(([names, address]) => {
        let found: string;
        try {
          found = address();
        } catch {
          return []; // a listener this process neither runs nor was told of
        }
        return names.map((service) => ({ service, address: reachableAddress(found, call.req.hostname ?? '') }));
      });
      return ok({ services });
    },
  };
}

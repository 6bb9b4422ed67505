import { createBearerAuth } from '../platform/auth/bearer.ts';
import { devEventsHandler } from '../platform/events/dev-events.ts';
import { createGrpcServer, type GrpcServerHandle } from '../platform/grpc/server.ts';
import { composeModules } from '../platform/modules.ts';
import type { Service, ServiceDeps } from '../platform/service.ts';
import { createBackOffice } from './back-office/index.ts';
import { createCatalogue } from './catalogue/index.ts';
import { lmsProviderStateRoutes } from './dev/provider-states.ts';
import { createLearning } from './learning/index.ts';
import { scormContentTokenAuth } from './learning/index.ts';
import { createStorageClient } from './orchestrator.ts';
import { createPeople } from './people/index.ts';

/** The LMS: its modules (people, catalogue and authoring, learning, back office), composed. */
export async function createLms(deps: ServiceDeps): Promise<Service> {
  const storage = createStorageClient(() => deps.peers.url('ol'), deps.config.serviceApiKey, deps.logger);
  const people = createPeople(deps);
  const catalogue = createCatalogue(deps, people, storage);
  const learning = createLearning(deps, people, catalogue, storage);
  const backOffice = createBackOffice(deps, people, catalogue, learning);
  const dev = {
    handlers: {
      ...lmsProviderStateRoutes(deps),
      listDevEvents: devEventsHandler(deps.sequelize, 'lms', deps.config.devMode),
    },
  };
  let grpcServer: GrpcServerHandle | undefined;
  const grpc = {
    handlers: {},
    async start() {
      grpcServer = await createGrpcServer({
        host: deps.config.host,
        port: deps.config.lmsGrpcPort,
        serviceKey: deps.config.serviceApiKey,
        logger: deps.logger,
        database: deps.database,
        label: 'grpc-lms',
        services: [catalogue.recommendations],
      });
      return { 'grpc-lms': grpcServer.address };
    },
    stop: async () => grpcServer?.stop(),
  };
  // Started in this order (the callers people keeps, then gRPC) and stopped in reverse.
  const modules = composeModules([people.module, catalogue.module, learning.module, backOffice.module, dev, grpc]);

  return {
    name: 'lms',
    handlers: modules.handlers,
    security: {
      bearerAuth: createBearerAuth({
        jwksUrl: () => `${deps.peers.url('ol')}/.well-known/jwks.json`,
        issuer: deps.config.jwtIssuer,
        audience: deps.config.jwtAudience,
        allowedBeforePasswordChange: ['getMe'],
      }),
      scormContentToken: scormContentTokenAuth(learning.player),
    },
    start: modules.start,
    async stop() {
      await modules.stop();
      await storage.close();
    },
    settled: modules.settled,
  };
}

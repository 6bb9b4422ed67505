import type { Sequelize } from 'sequelize';
import { pactMessages } from './platform/dev/pact-messages.ts';
import { createCap } from './cap/index.ts';
import { createLms } from './lms/index.ts';
import { createOrchestrator } from './orchestrator/index.ts';
import type { PlatformConfig, ServiceName } from './platform/config.ts';
import { createSequelize } from './platform/db/database.ts';
import { createMigrator, migrate, type Migrator } from './platform/db/migrations.ts';
import { createDatabaseWatch } from './platform/db/watch.ts';
import { createEventRuntime } from './platform/events/runtime.ts';
import { createHttpApp, listen, type Listener, type Mount } from './platform/http/app.ts';
import { loadApiDocument } from './platform/http/openapi.ts';
import { closeClientConnections } from './platform/http/outbound.ts';
import { bindOperations, type OperationRouter } from './platform/http/operations.ts';
import { standardHandlers } from './platform/http/standard.ts';
import type { Logger } from './platform/logger.ts';
import { serverCodePath } from './platform/paths.ts';
import type { Peers, Service, ServiceDeps } from './platform/service.ts';

/** Each service: its schema, its folder, its factory. */
const catalogue: Record<ServiceName, { schema: string; folder: string; create(deps: ServiceDeps): Promise<Service> }> =
  {
    ol: { schema: 'ol', folder: 'orchestrator', create: createOrchestrator },
    cap: { schema: 'cap', folder: 'cap', create: createCap },
    lms: { schema: 'lms', folder: 'lms', create: createLms },
  };

export interface RunningServices {
  /** Every URL this process serves, by name: gateway, ol, cap, lms. */
  urls: Record<string, string>;
  /** The router of each running service, as mounted on every listener. */
  routers: Partial<Record<ServiceName, OperationRouter>>;
  /** Resolves once every change committed to the database before the call shows in every service's caches. */
  settled(): Promise<void>;
}

/**
 * Services -> events -> listeners, on a database that is up. Whatever starts pushes its cleanup onto
 * `cleanups`; the caller runs them in reverse to stop, also when a later step fails.
 */
export async function startServices(
  config: PlatformConfig,
  databaseUrl: string,
  logger: Logger,
  cleanups: Array<() => Promise<void>>,
): Promise<RunningServices> {
  // Every connection reports its errors to this one watch: an outage is logged once and background
  // work waits for the database instead of failing in a loop. It stops after everything else.
  const database = createDatabaseWatch(databaseUrl, logger.child({ component: 'database' }));
  cleanups.push(async () => database.stop());
  // Opens no connection until `start`; its cleanup is pushed then, so it stops before the Sequelize pools close.
  const events = createEventRuntime(databaseUrl, logger.child({ component: 'events' }), {
    database,
    pollingIntervalSeconds: config.eventPollingSeconds,
  });
  const urls: Record<string, string> = {};
  const peers = createPeers(config, urls);
  const mounts: Record<string, Mount> = {};
  const services: Service[] = [];
  // The services are independent until they run (each has its own schema and migration lock), so
  // they are prepared side by side; start-up time is what a person waits for.
  const prepared = await Promise.all(
    config.only.map(async (name) => {
      const entry = catalogue[name];
      const sequelize: Sequelize = createSequelize(databaseUrl, entry.schema, undefined, database);
      cleanups.push(() => sequelize.close());
      const migrator = migratorOf(name, sequelize);
      const [, doc] = await Promise.all([migrate(sequelize, entry.schema, migrator), loadApiDocument(name)]);
      const service = await entry.create({
        config,
        logger: logger.child({ service: name }),
        sequelize,
        database,
        migrator,
        peers,
        events: events.forService(name, entry.schema, sequelize),
      });
      const router = bindOperations(
        name,
        doc,
        { ...standardHandlers(name, doc, sequelize, migrator), ...service.handlers },
        {
          security: service.security,
          checkResponses: config.devMode,
          devMode: config.devMode,
        },
      );
      return { name, service, router };
    }),
  );
  for (const { name, service, router } of prepared) {
    mounts[name] = { prefix: `/v1/${name}`, router };
    services.push(service);
  }

  // Background work starts before the listeners, so stopping in reverse closes the listeners first.
  // Each service's background work and event delivery start side by side (every subscription is
  // registered by now, so events already in an outbox reach all consumers); what started is stopped
  // in the same order as if they had started one after the other, also when one of them failed.
  const started = await Promise.allSettled([
    ...services.map(async (service) => (await service.start?.()) ?? {}),
    events.start(),
  ]);
  services.forEach((service, i) => {
    const result = started[i]!;
    if (result.status === 'fulfilled') Object.assign(urls, result.value);
    if (result.status === 'fulfilled' && service.stop) cleanups.push(() => service.stop!());
  });
  if (started.at(-1)!.status === 'fulfilled') cleanups.push(() => events.stop());
  const failed = started.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  // Every listener stops accepting at the same moment, and each drains its requests (listen's close).
  // The process's own idle client connections (a service calling a peer through this gateway) close
  // meanwhile, or each listener would wait out its grace for them.
  const listeners: Listener[] = [];
  cleanups.push(
    async () => void (await Promise.all([...listeners.map((listener) => listener.close()), closeClientConnections()])),
  );
  const open = async (name: string, app: ReturnType<typeof createHttpApp>, port: number) => {
    const listener = await listen(app, config.host, port, name, config.httpKeepAliveTimeoutSeconds);
    listeners.push(listener);
    urls[name] = listener.url;
  };
  const http = {
    bodyLimitBytes: config.bodyLimitBytes,
    corsOrigins: config.corsOrigins,
    devMode: config.devMode,
    countQueries: config.devMode,
    trustProxy: config.trustProxy,
    database,
  };
  // Development mode: Pact's message verification asks the gateway's `/` for a message.
  const gatewayMounts = config.devMode
    ? [...Object.values(mounts), { prefix: '/', router: pactMessages((service) => peers.url(service)) }]
    : Object.values(mounts);
  await open('gateway', createHttpApp(gatewayMounts, logger, http), config.port);
  if (config.servicePorts) {
    const ports: Record<ServiceName, number> = { ol: config.olPort, cap: config.capPort, lms: config.lmsPort };
    for (const name of config.only) {
      await open(name, createHttpApp([{ prefix: '/v1', router: mounts[name]!.router }], logger, http), ports[name]);
    }
  }
  const routers = Object.fromEntries(prepared.map(({ name, router }) => [name, router]));
  const settled = async () => void (await Promise.all(services.map((service) => service.settled?.())));
  return { urls, routers, settled };
}

function migratorOf(name: ServiceName, sequelize: Sequelize): Migrator {
  const entry = catalogue[name];
  return createMigrator(sequelize, entry.schema, serverCodePath(entry.folder, 'migrations'));
}

/**
 * Applies the pending migrations of `names` to a database, as a start does, and closes its connections:
 * the test run prepares one migrated database this way and clones it for each test file.
 */
export async function migrateDatabase(databaseUrl: string, names: readonly ServiceName[]): Promise<void> {
  await Promise.all(
    names.map(async (name) => {
      const sequelize = createSequelize(databaseUrl, catalogue[name].schema);
      try {
        await migrate(sequelize, catalogue[name].schema, migratorOf(name, sequelize));
      } finally {
        await sequelize.close();
      }
    }),
  );
}

function createPeers(config: PlatformConfig, urls: Record<string, string>): Peers {
  const configured: Record<ServiceName, string> = { ol: config.olUrl, cap: config.capUrl, lms: config.lmsUrl };
  return {
    url(service) {
      if (configured[service]) return configured[service];
      if (!config.only.includes(service))
        throw new Error(`${service} does not run in this process: set its URL (see README, Configuration)`);
      if (!urls.gateway) throw new Error('listeners are not up yet');
      return `${urls.gateway}/v1/${service}`;
    },
    olGrpcAddress() {
      if (config.olGrpcAddress) return config.olGrpcAddress;
      if (!urls.grpc)
        throw new Error('the Orchestrator gRPC listener is not running in this process: set ORCHESTRATOR_GRPC_ADDRESS');
      return urls.grpc;
    },
    lmsGrpcAddress() {
      if (config.lmsGrpcAddress) return config.lmsGrpcAddress;
      if (!urls['grpc-lms'])
        throw new Error('the LMS gRPC listener is not running in this process: set LMS_GRPC_ADDRESS');
      return urls['grpc-lms'];
    },
  };
}

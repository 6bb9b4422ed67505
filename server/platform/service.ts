import type { Sequelize } from 'sequelize';
import type { PlatformConfig, ServiceName } from './config.ts';
import type { Migrator } from './db/migrations.ts';
import type { DatabaseWatch } from './db/watch.ts';
import type { ServiceEvents } from './events/types.ts';
import type { Logger } from './logger.ts';
import type { Handler, SecurityHandler } from './http/operations.ts';

/**
 * Where the other services are. In one process these are this process's own listeners (known once
 * they are up, so call these when handling a request, not while constructing a service); with
 * `--only`, the configured URLs (ORCHESTRATOR_URL, CAP_URL, LMS_URL, ORCHESTRATOR_GRPC_ADDRESS).
 */
export interface Peers {
  /** Base URL of a service including its prefix, e.g. `http://127.0.0.1:4000/v1/ol`. */
  url(service: ServiceName): string;
  /** host:port of the Orchestrator's gRPC listener. */
  olGrpcAddress(): string;
  /** host:port of the LMS's gRPC listener (LMS_GRPC_ADDRESS, else the one this process runs). */
  lmsGrpcAddress(): string;
}

/** What the composition root hands each service. */
export interface ServiceDeps {
  config: PlatformConfig;
  logger: Logger;
  sequelize: Sequelize;
  /** Whether the database can be reached: report connection errors of connections of your own here, and wait on it. */
  database: DatabaseWatch;
  migrator: Migrator;
  peers: Peers;
  /** This service's side of the event bus: its outbox (publish) and its consumers (subscribe). */
  events: ServiceEvents;
}

/** A running service as the composition root sees it: its operations and its lifecycle. */
export interface Service {
  name: ServiceName;
  /** Handlers by operationId of `openapi/<name>.yaml` (the standard health and docs ones are added for it). */
  handlers: Record<string, Handler>;
  /** Handlers for the document's security schemes. */
  security?: Record<string, SecurityHandler>;
  /** Starts background work (event delivery, gRPC listeners); returns any URLs it serves, by name. */
  start?(): Promise<Record<string, string> | void>;
  stop?(): Promise<void>;
  /** Resolves once every change committed to the database before the call shows in the service's caches. */
  settled?(): Promise<void>;
}

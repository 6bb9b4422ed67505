import type { Sequelize } from 'sequelize';
import type { PlatformConfig, ServiceName } from './config.ts';
import type { Migrator } from './db/migrations.ts';
import type { Logger } from './logger.ts';
import type { Handler, SecurityHandler } from './http/operations.ts';

/** What the composition root hands each service. */
export interface ServiceDeps {
  config: PlatformConfig;
  logger: Logger;
  sequelize: Sequelize;
  migrator: Migrator;
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
}

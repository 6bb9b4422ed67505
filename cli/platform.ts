import { Command } from 'commander';
import { ConfigError, resolveConfig, type ConfigInput, type PlatformConfig } from '../server/platform/config.ts';
import { isConnectionFailure } from '../server/platform/db/connection-failure.ts';
import { UsageError } from './output.ts';

/** The platform options shared by `serve` and `demo`. Values are validated by resolveConfig, not here. */
export function withPlatformOptions(command: Command): Command {
  return command
    .option(
      '--host <host>',
      'address to listen on (env CAPCTL_HOST); in development mode, loopback only unless --dev-mode-on-network',
    )
    .option(
      '--dev-mode-on-network',
      'allow development mode (dev mailbox, provider states, dev service key) on a non-loopback --host (env CAPCTL_DEV_MODE_ON_NETWORK)',
    )
    .option('--port <port>', 'gateway port serving /v1/ol, /v1/cap and /v1/lms (env PORT, default 4000)')
    .option('--ol-port <port>', 'Orchestrator listener, prefix /v1 (env OL_PORT, default 4300)')
    .option('--cap-port <port>', 'CAP listener, prefix /v1 (env CAP_PORT, default 4100)')
    .option('--lms-port <port>', 'LMS listener, prefix /v1 (env LMS_PORT, default 4200)')
    .option('--grpc-port <port>', 'Orchestrator gRPC listener (env GRPC_PORT, default 4400)')
    .option('--lms-grpc-port <port>', 'LMS gRPC listener (env LMS_GRPC_PORT, default 4401)')
    .option('--no-service-ports', 'serve only the gateway port')
    .option(
      '--only <service>',
      'run only this service: ol, cap or lms (repeatable)',
      (v: string, all: string[] = []) => [...all, v],
    )
    .option('--data-dir <dir>', 'where the embedded PostgreSQL keeps its data (env CAPCTL_DATA_DIR, default ./.capctl)')
    .option('--database-url <url>', 'use this PostgreSQL instead of the embedded one (env DATABASE_URL)')
    .option(
      '--trust-proxy <value>',
      'proxies trusted to report the client address (X-Forwarded-For): a hop count, or comma-separated addresses, CIDR ranges, loopback, linklocal, uniquelocal (env TRUST_PROXY, default none)',
    )
    .option(
      '--password-hash-cost <cost>',
      'argon2id cost of new password hashes: production or minimum (env PASSWORD_HASH_COST, default minimum in development mode, production otherwise)',
    )
    .option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent (env LOG_LEVEL, default info)');
}

/** Commander's parsed options -> validated configuration. A bad value is a usage error (exit 2). */
export function configFromOptions(options: Record<string, unknown>, overrides: ConfigInput = {}): PlatformConfig {
  const input: ConfigInput = {
    host: options.host,
    devModeOnNetwork: options.devModeOnNetwork,
    port: options.port,
    olPort: options.olPort,
    capPort: options.capPort,
    lmsPort: options.lmsPort,
    grpcPort: options.grpcPort,
    lmsGrpcPort: options.lmsGrpcPort,
    servicePorts: options.servicePorts === false ? false : undefined,
    only: options.only,
    dataDir: options.dataDir,
    databaseUrl: options.databaseUrl,
    passwordHashCost: options.passwordHashCost,
    logLevel: options.logLevel,
    trustProxy: options.trustProxy,
    ...overrides,
  };
  try {
    return resolveConfig(input);
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
}

/** Start failures a person can act on, as one line; anything else is rethrown with its stack. */
export function startFailure(err: unknown): string | undefined {
  // Matched by name so that loading the CLI does not load the server.
  const name = (err as Error)?.name;
  if (name === 'DataDirBusyError' || name === 'PortInUseError') return (err as Error).message;
  const code = (err as NodeJS.ErrnoException)?.code;
  if (isConnectionFailure(err) || code === '28P01' || code === '3D000') {
    return `cannot use the database: ${(err as Error).message}`;
  }
  return undefined;
}

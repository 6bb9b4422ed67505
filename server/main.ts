import type { PlatformConfig } from './platform/config.ts';
import { startEmbeddedPostgres, type EmbeddedOptions } from './platform/db/embedded.ts';
import { createLogger, type Logger } from './platform/logger.ts';
import type { RunningServices } from './services.ts';

const stopStepLimitMs = 15_000;

export interface RunningPlatform extends RunningServices {
  databaseUrl: string;
  logger: Logger;
  stop(): Promise<void>;
}

/**
 * The composition root: configuration -> database -> services (server/services.ts). Whatever was
 * started is stopped again if a later step fails, so a failed start leaves nothing running.
 */
export async function startPlatform(
  config: PlatformConfig,
  logger: Logger = createLogger(config.logLevel),
  embeddedOptions: EmbeddedOptions = {},
): Promise<RunningPlatform> {
  const cleanups: Array<() => Promise<void>> = [];
  // Each step gets a bounded time (listeners already allow in-flight requests 10 s), so a stuck step
  // is logged and skipped instead of keeping the process from ever exiting. A second call (a signal
  // and the command's own end) waits for the first.
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= stopAll());
  const stopAll = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          logger.error({ ms: stopStepLimitMs }, 'a stop step did not finish in time; going on');
          resolve();
        }, stopStepLimitMs);
      });
      await Promise.race([cleanup().catch((err) => logger.error({ err }, 'error while stopping')), limit]);
      clearTimeout(timer);
    }
  };
  // The services' modules (most of a start's CPU) load while the embedded PostgreSQL starts in its own
  // process; this module imports neither, so loading it is quick.
  const services = import('./services.ts');
  services.catch(() => undefined); // its failure is reported below, if we get that far
  try {
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      const embedded = await startEmbeddedPostgres(config.dataDir, logger, embeddedOptions);
      cleanups.push(() => embedded.stop());
      databaseUrl = embedded.url;
    }
    const { startServices } = await services;
    return { ...(await startServices(config, databaseUrl, logger, cleanups)), databaseUrl, logger, stop };
  } catch (err) {
    await stop();
    // A start refused early (a busy data directory) must not leave the services' modules loading:
    // the process would stay alive, reading files, after reporting its one line.
    await services.catch(() => undefined);
    throw err;
  }
}

/** The one line `capctl serve` prints when the platform is ready. */
export function readyLine(urls: Record<string, string>): string {
  const parts = Object.entries(urls).map(([name, url]) => {
    if (name === 'gateway') return `gateway=${url}`;
    if (name.startsWith('grpc')) return `${name}=${url}`;
    return `${name}=${url}/v1`;
  });
  return `ready ${parts.join(' ')}`;
}

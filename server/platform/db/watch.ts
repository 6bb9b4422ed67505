import pg from 'pg';
import type { Logger } from '../logger.ts';
import { isConnectionFailure } from './connection-failure.ts';

/**
 * Whether the platform's database can be reached, as this process sees it. Every part that holds a
 * connection (the Sequelize pools, the event bus, listening connections) reports its connection
 * errors here; the first one starts a probe. If the database answers the probe, the connections were
 * only cut (an administrator ended them) and nothing more happens; if not, it is an outage: logged
 * once, probed with a growing pause (up to `maxProbeMs`) until the database answers, logged once
 * more when it is back. Background work waits for `whenUp` instead of failing in a loop.
 */
export interface DatabaseWatch {
  /** Reports an error of a database connection; true when it says the database cannot be reached. */
  report(err: unknown): boolean;
  /** False from a reported connection failure until the database answers again. */
  readonly up: boolean;
  /** When the database last became reachable again (ms since the epoch; the watch's creation at first). */
  readonly upSince: number;
  /** Resolves once the database is up (at once when it is), when `signal` aborts, or when the watch stops. */
  whenUp(signal?: AbortSignal): Promise<void>;
  /** Stops probing; what still waits is released. Failures reported from then on are not logged. */
  stop(): void;
}

export interface DatabaseWatchOptions {
  /** The first pause between probes during an outage; doubled after each failed probe. */
  probeMs?: number;
  maxProbeMs?: number;
}

export function createDatabaseWatch(url: string, logger: Logger, options: DatabaseWatchOptions = {}): DatabaseWatch {
  const firstPause = options.probeMs ?? 100;
  const maxPause = options.maxProbeMs ?? 1000;
  let state: 'up' | 'checking' | 'down' | 'stopped' = 'up';
  let upSince = Date.now();
  const waiters = new Set<() => void>();
  let wakeProbe: (() => void) | undefined;
  /** (A function, so that the state set by `stop` while a probe runs is read afresh.) */
  const stopped = () => state === 'stopped';

  const summary = (err: unknown) => {
    const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
    return {
      code: typeof code === 'string' ? code : undefined,
      message: typeof message === 'string' ? message : String(err),
    };
  };

  const becameUp = () => {
    state = 'up';
    upSince = Date.now();
    for (const resolve of waiters) resolve();
    waiters.clear();
  };

  /** Answers the probe's failure, or undefined when the database answered. */
  async function probe(): Promise<unknown> {
    const client = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: 3000,
      application_name: 'capctl-probe',
    });
    client.on('error', () => undefined); // the outcome of connect and query is what counts
    try {
      await client.connect();
      await client.query('SELECT 1');
      return undefined;
    } catch (err) {
      return err ?? new Error('probe failed');
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  async function check(reported: unknown): Promise<void> {
    let failure = await probe();
    if (stopped()) return;
    if (!failure) {
      logger.warn({ reason: summary(reported) }, 'database connections were cut; the database answers');
      return becameUp();
    }
    state = 'down';
    const downSince = Date.now();
    logger.warn(
      { reason: summary(failure) },
      'database unreachable: requests answer 503 service.unavailable until it is back',
    );
    for (let pause = firstPause; failure; pause = Math.min(pause * 2, maxPause)) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pause);
        wakeProbe = () => (clearTimeout(timer), resolve());
      });
      wakeProbe = undefined;
      if (stopped()) return;
      failure = await probe();
      if (stopped()) return;
    }
    logger.info({ downMs: Date.now() - downSince }, 'database back');
    becameUp();
  }

  return {
    report(err) {
      if (!isConnectionFailure(err)) return false;
      if (state === 'up') {
        state = 'checking';
        void check(err);
      }
      return true;
    },
    get up() {
      return state === 'up';
    },
    get upSince() {
      return upSince;
    },
    whenUp(signal) {
      if (state === 'up' || state === 'stopped' || signal?.aborted) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const done = () => {
          waiters.delete(done);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        waiters.add(done);
        signal?.addEventListener('abort', done, { once: true });
      });
    },
    stop() {
      state = 'stopped';
      wakeProbe?.();
      for (const resolve of [...waiters]) resolve();
      waiters.clear();
    },
  };
}

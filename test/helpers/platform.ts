import pg from 'pg';
import { Agent, getGlobalDispatcher, request, setGlobalDispatcher, type Dispatcher } from 'undici';
import { anyFreePorts, resolveConfig, type ConfigInput, type PlatformConfig } from '../../server/platform/config.ts';
import { closeGrpcClients } from '../../server/platform/grpc/client.ts';
import { startPlatform, type RunningPlatform } from '../../server/main.ts';
import pino from 'pino';
import type { Logger } from '../../server/platform/logger.ts';
import { testDatabase } from './postgres.ts';

export interface TestPlatform extends RunningPlatform {
  config: PlatformConfig;
  /** Gateway URL + path, e.g. `url('/v1/cap/me')`. */
  url(path: string): string;
}

// Every listener on a free port. An idle event worker looks for jobs every 10 s instead of 5 s: a
// platform has about 28 of them, and what they poll for wakes them anyway (jobs queued by any
// process, retries when due); polling only bounds what a lost notification would miss.
const testSettings = {
  ...anyFreePorts,
  eventPollingSeconds: 10,
};

/** Platforms of this test process that are starting or running (a start under load can take longer than 15 s). */
let running = 0;

/**
 * A test process whose platforms have all stopped but that something still keeps alive (a library
 * timer or socket, as `capctl serve` has met after a stop) ends 15 s later, naming what was pending,
 * instead of holding the whole run until ava's timeout. The timer is unref'd: a process that exits by
 * itself never sees it.
 */
function endIfLingering(): void {
  setTimeout(() => {
    if (running > 0) return;
    process.stderr.write(
      `test process alive 15 s after its platforms stopped; pending: ${process.getActiveResourcesInfo().join(', ')}\n`,
    );
    process.exit(0);
  }, 15_000).unref();
}

/**
 * Starts the real platform for one test file on its own database (on the run's embedded PostgreSQL,
 * see test/run.ts), every listener on a free port. `stop` drops the database. The database is a copy
 * of the run's template: the database a first start leaves (test/run.ts), without the wait.
 */
export async function startTestPlatform(
  overrides: ConfigInput = {},
  options: { logger?: Logger } = {},
): Promise<TestPlatform> {
  const database = await testDatabase();
  const databaseUrl = database.url;
  const config = resolveConfig({
    ...testSettings,
    logLevel: process.env.TEST_LOG_LEVEL ?? 'silent',
    databaseUrl,
    ...overrides,
  });
  let platform: RunningPlatform;
  running++;
  try {
    platform = await startPlatform(config, options.logger);
  } catch (err) {
    running--;
    await database.drop();
    throw err;
  }
  return {
    ...platform,
    config,
    url: (path: string) => `${platform.urls.gateway}${path}`,
    async stop() {
      let timer: NodeJS.Timeout | undefined;
      try {
        await closeIdleClientConnections();
        // A stop that hangs fails the file's teardown, named, rather than holding the run.
        await Promise.race([
          platform.stop(),
          new Promise(
            (_, reject) =>
              (timer = setTimeout(() => reject(new Error('the platform did not stop within 30 s')), 30_000)),
          ),
        ]);
      } finally {
        clearTimeout(timer);
        running--;
        endIfLingering();
        // The gRPC channels are cached per process (the platform's own and the test's): an open one
        // would keep the test process from exiting.
        closeGrpcClients();
        await endIdleConnection(databaseUrl);
        // WITH (FORCE) also ends any connection a stuck stop step left open, so the test process can exit.
        await database.drop();
      }
    },
  };
}

/**
 * A stopping listener leaves idle keep-alive connections open for 2 s, for requests already on their
 * way; this process's own (undici's global pool, which `fetch` and `call` share) are idle once its
 * test is done. Closing them first lets a stop end as soon as the platform's own work has: a new pool
 * takes the calls made after this, and the old one finishes any call under way before it closes.
 */
async function closeIdleClientConnections(): Promise<void> {
  const pool = getGlobalDispatcher();
  setGlobalDispatcher(new Agent());
  await pool.close();
}

/**
 * A second replica of a test platform: another platform process's worth of services on the same
 * database, every listener on a free port. Stop it before the platform (whose stop drops the database).
 */
export async function startReplica(of: TestPlatform, overrides: ConfigInput = {}): Promise<TestPlatform> {
  const config = resolveConfig({
    ...testSettings,
    logLevel: process.env.TEST_LOG_LEVEL ?? 'silent',
    databaseUrl: of.databaseUrl,
    ...overrides,
  });
  const replica = await startPlatform(config);
  return {
    ...replica,
    config,
    url: (path: string) => `${replica.urls.gateway}${path}`,
    async stop() {
      await closeIdleClientConnections();
      await replica.stop();
    },
  };
}

/** A logger that keeps every line (trace level, nothing redacted) for tests that check what is logged. */
export function captureLogs(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) }), lines };
}

export interface JsonResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  text: string;
}

/** One HTTP call with a JSON body (or a raw string body), answered with status, headers and parsed body. */
export async function call(
  method: Dispatcher.HttpMethod,
  url: string,
  options: { json?: unknown; body?: string; headers?: Record<string, string>; token?: string } = {},
): Promise<JsonResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  const res = await request(url, { method, headers, body });
  const text = await res.body.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.statusCode, headers: res.headers, body: parsed, text };
}

/**
 * A query on the platform's database, for what the API does not show (row counts, fixtures). A change
 * is awaited until the platform's caches show it (a caller kept by CAP whose row was changed here is
 * dropped when the database notifies CAP), so the next call sees it as it would a change made by the API.
 */
export async function sql<T = Record<string, unknown>>(
  platform: { databaseUrl: string; settled?: () => Promise<void> },
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  try {
    return (await queryOnce(platform.databaseUrl, text, values)) as T[];
  } finally {
    if (!/^\s*SELECT\b/i.test(text)) await platform.settled?.();
  }
}

/**
 * One idle connection kept per database for `sql`: a new connection costs the database server about
 * 8 ms of CPU (a process, the password check) against 0.1 ms for a query on an open one, and tests
 * poll with `sql` inside `eventually`. It does not keep the test process alive, and a connection the
 * server has ended meanwhile (a stopped or restarted server) is replaced by a new one for the query.
 */
const idle = new Map<string, pg.Pool>();
async function queryOnce(databaseUrl: string, text: string, values: unknown[]): Promise<unknown[]> {
  let pool = idle.get(databaseUrl);
  if (!pool) {
    pool = new pg.Pool({ connectionString: databaseUrl, max: 1, allowExitOnIdle: true });
    pool.on('error', () => undefined); // an idle connection ended by the server: the next query opens another
    idle.set(databaseUrl, pool);
  }
  try {
    return (await pool.query(text, values)).rows;
  } catch (err) {
    // The server's own errors (a bad statement, a constraint) have a SQLSTATE; a lost connection has none.
    if (typeof (err as { code?: unknown }).code === 'string' && /^[0-9A-Z]{5}$/.test((err as { code: string }).code))
      throw err;
    idle.delete(databaseUrl);
    void pool.end().catch(() => undefined);
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return (await client.query(text, values)).rows;
    } finally {
      await client.end();
    }
  }
}

/** Ends the connection `sql` keeps for this database (before it is dropped). */
async function endIdleConnection(databaseUrl: string): Promise<void> {
  const pool = idle.get(databaseUrl);
  idle.delete(databaseUrl);
  await pool?.end().catch(() => undefined);
}

/** Polls until `check` holds (events are delivered asynchronously). */
export async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { isConnectionFailure } from '../db/connection-failure.ts';
import type { DatabaseWatch } from '../db/watch.ts';
import { newId } from '../ids.ts';
import type { Logger } from '../logger.ts';
import { requestScope, withRequestScope } from '../request-scope.ts';
import { browserPolicy, type BrowserPolicy } from './browser.ts';
import { PortInUseError } from '../ports.ts';
import { AppError, serviceUnavailable } from './errors.ts';
import { writeJson } from './reply.ts';

export interface Mount {
  prefix: string;
  router: RequestHandler;
}

const saneRequestId = /^[A-Za-z0-9._:-]{1,128}$/;

export interface HttpOptions extends BrowserPolicy {
  /** Largest accepted JSON body, in bytes. */
  bodyLimitBytes: number;
  /**
   * Count each request's SQL statements into its access line (development mode). The count needs an
   * async context around every request, which costs a few per cent of throughput, so production
   * leaves it out.
   */
  countQueries: boolean;
  /** Told about a request that failed because the database could not be reached (which then answers 503). */
  database?: DatabaseWatch;
  /** Express's `trust proxy`: which proxies may report the client's address and scheme (PlatformConfig.trustProxy). */
  trustProxy: boolean | number | string[];
}

/**
 * One HTTP listener's app: request ids, access log, the browser policy (CORS and security headers),
 * JSON bodies, the mounted service routers, and the error envelope for everything that goes wrong,
 * including routes nobody serves.
 */
export function createHttpApp(mounts: Mount[], logger: Logger, options: HttpOptions): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.set('trust proxy', options.trustProxy);
  app.locals.logger = logger;

  // The access line names only the client, method, path, status, time and query count: nothing to redact.
  const accessLog = logger.child({}, { redact: [] });
  const policy = browserPolicy(options);
  const json = express.json({
    limit: options.bodyLimitBytes,
    type: ['application/json', 'application/*+json'],
    verify: keepRawBody,
  });
  const route = dispatch(mounts);
  const start = (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && saneRequestId.test(incoming) ? incoming : newId();
    const started = performance.now();
    const path = req.path;
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    const scope = requestScope();
    const client = clientAddress(req); // now: by the time the answer is sent, the socket may be gone
    res.on('finish', () => {
      const ms = performance.now() - started;
      accessLog.info(
        {
          requestId,
          client,
          method: req.method,
          path,
          status: res.statusCode,
          ms: Math.round(ms * 10) / 10,
          queries: scope?.queries,
        },
        'request',
      );
    });
    policy(req, res, (err?: unknown) => (err ? next(err) : body(req, res, next)));
  };
  // A request without a body skips the JSON parser. Once the parser has read a body (a callback of its
  // own, outside the layer Express guards), a route that throws is passed on as Express would.
  const body = (req: Request, res: Response, next: NextFunction) =>
    req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined
      ? route(req, res, next)
      : json(req, res, (err?: unknown) => {
          if (err || nestedDeeperThan(req.body, maxJsonDepth)) return next(err ?? tooDeep());
          try {
            route(req, res, next);
          } catch (thrown) {
            next(thrown);
          }
        });
  // One layer of Express's router runs all of ours (stepping through a layer each cost as much as our own code).
  app.use(
    options.countQueries
      ? (req, res, next) => withRequestScope(() => start(req, res, next))
      : (req, res, next) => start(req, res, next),
  );
  app.use(() => {
    throw new AppError(404, 'http.not_found', 'No route serves this path.');
  });
  app.use(errorHandler(options.database));
  return app;
}

/**
 * How deep a JSON body may nest objects and arrays. No request of ours needs more than a dozen
 * levels; a deeper one is refused before any code walks it (a recursive walk of a body nested
 * 50,000 deep overflows the stack).
 */
export const maxJsonDepth = 64;

const tooDeep = () =>
  new AppError(
    400,
    'http.json_too_deep',
    `The JSON body nests objects or arrays more than ${maxJsonDepth} levels deep.`,
  );

/** Whether a parsed JSON value nests objects and arrays deeper than `max`, found with a stack of our own (never recursion). */
function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<{ node: object; depth: number }> =
    value !== null && typeof value === 'object' ? [{ node: value, depth: 1 }] : [];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (depth > max) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push({ node: child, depth: depth + 1 });
    }
  }
  return false;
}

/**
 * The client's address: the connection's peer, or, when that peer is a proxy trusted by `trustProxy`,
 * the address it reports in `X-Forwarded-For` (through every trusted hop). Anything that counts or logs
 * clients reads it here.
 */
export function clientAddress(req: Request): string {
  const kept = req as Request & { [clientKey]?: string };
  // Express reads the peer from the socket, which a client that went away has already taken with it.
  // Without X-Forwarded-For, Express's answer is the peer whatever proxies are trusted: read it straight.
  return (kept[clientKey] ??=
    (req.headers['x-forwarded-for'] === undefined ? req.socket?.remoteAddress : req.socket ? req.ip : undefined) ??
    'unknown');
}
/** Each request's client, read once while its socket is there (the access log reads it after the answer). */
const clientKey = Symbol('client');

/** Keeps the exact bytes of a JSON body beside the parsed one, for signatures over the raw body (a payment webhook). */
function keepRawBody(req: http.IncomingMessage, _res: http.ServerResponse, body: Buffer): void {
  (req as { rawBody?: Buffer }).rawBody = body;
}

/** The exact bytes of the request's JSON body as received (undefined when it had none). */
export function rawBody(req: Request): Buffer | undefined {
  return (req as { rawBody?: Buffer }).rawBody;
}

/**
 * The request's logger, carrying its request id; made when something first logs for the request
 * (most requests log only their access line).
 */
export function requestLog(res: Response): Logger {
  return (res.locals.log ??= (res.app.locals.logger as Logger).child({ requestId: res.locals.requestId }));
}

/**
 * Maps any error to the error envelope. Only a real bug gives a 500 (logged). A request that failed
 * because the database could not be reached is a 503 with `Retry-After`; the watch logs the outage
 * once, so such a request is not logged on its own.
 */
function errorHandler(database: DatabaseWatch | undefined) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const appError = toAppError(err);
    if (appError === databaseUnavailable) database?.report(err);
    // A 503 is a deliberate answer (not ready, unavailable), not a failure to look into.
    else if (appError.status >= 500 && appError.status !== 503) requestLog(res).error({ err }, 'request failed');
    if (res.headersSent) {
      res.end();
      return;
    }
    for (const [name, value] of Object.entries(appError.headers ?? {})) res.setHeader(name, value);
    const error = {
      code: appError.code,
      message: appError.message,
      ...(appError.details ? { details: appError.details } : {}),
    };
    writeJson(res, appError.status, JSON.stringify({ success: false, error, requestId: res.locals.requestId }));
  };
}

/** How long a client is asked to wait before trying again while the database cannot be reached. */
const databaseRetryAfterSeconds = 2;
const databaseUnavailable = serviceUnavailable(
  'service.unavailable',
  'The database cannot be reached at the moment; try again shortly.',
  databaseRetryAfterSeconds,
);

/**
 * Routes a request to the service whose prefix starts its path (`/v1/cap/...` to CAP), with the
 * prefix moved from the URL to `req.baseUrl` as a mounted router expects, and put back if the service
 * passes it on.
 * One look-up instead of one router layer per service.
 */
function dispatch(mounts: Mount[]): RequestHandler {
  return (req, res, next) => {
    const url = req.url;
    const mount = mounts.find(
      ({ prefix }) =>
        url.startsWith(prefix) &&
        (url.length === prefix.length || url[prefix.length] === '/' || url[prefix.length] === '?'),
    );
    if (!mount) return next();
    const baseUrl = req.baseUrl;
    req.url = url.slice(mount.prefix.length) || '/';
    if (req.url.startsWith('?')) req.url = `/${req.url}`;
    req.baseUrl = baseUrl + mount.prefix;
    mount.router(req, res, (err?: unknown) => {
      req.url = url;
      req.baseUrl = baseUrl;
      next(err);
    });
  };
}

function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (isConnectionFailure(err)) return databaseUnavailable;
  const e = err as { type?: string; status?: number; statusCode?: number; limit?: number };
  switch (e?.type) {
    case 'entity.parse.failed':
      return new AppError(400, 'http.bad_json', 'The request body is not valid JSON.');
    case 'entity.too.large':
      return new AppError(
        413,
        'http.payload_too_large',
        `The request body is larger than the limit of ${e.limit} bytes.`,
      );
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError(
        415,
        'http.unsupported_media_type',
        'The request body uses an encoding the server does not accept.',
      );
  }
  const status = e?.status ?? e?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new AppError(400, 'http.bad_request', 'The request is malformed.');
  }
  return new AppError(
    500,
    'internal.error',
    'Something went wrong on our side. The request id identifies it in the logs.',
  );
}

export interface Listener {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Starts an HTTP listener. An idle connection is kept `keepAliveTimeoutSeconds` (default 65: longer
 * than a load balancer's 60, see HTTP_KEEP_ALIVE_TIMEOUT_SECONDS); the headers of a request on it may
 * take a second longer, as Node needs the headers timeout above the keep-alive one.
 *
 * `close` answers every request sent before it. It stops accepting connections only once those the
 * kernel has already accepted are taken in (Node takes in about one a turn of its event loop when it
 * is busy, and closing the listening socket refuses the rest): when a turn of the loop took in no new
 * connection, or after `acceptLimitMs`. Requests that arrive on open connections meanwhile are
 * answered with `Connection: close`. Idle connections are closed only after `drainGraceMs` (one that
 * looks idle may hold a request not read yet, and closing it would reset that request). It resolves
 * once every connection has closed; after 10 s the rest are cut.
 */
export function listen(
  app: express.Express,
  host: string,
  port: number,
  label: string,
  keepAliveTimeoutSeconds = 65,
): Promise<Listener> {
  const keepAliveMs = keepAliveTimeoutSeconds * 1000;
  const server = http.createServer({
    keepAliveTimeout: keepAliveMs,
    headersTimeout: keepAliveMs + 1000,
    requestTimeout: Math.max(300_000, keepAliveMs + 2000),
  });
  let draining = false;
  // One listener (each more is an array copied on every request); the header goes on before the app runs.
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (draining) res.setHeader('Connection', 'close');
    app(req, res);
  });
  let connections = 0;
  server.on('connection', () => void (connections += 1));
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE')
        reject(
          new PortInUseError(`port ${port} (${label}) is already in use on ${host}; choose another with its flag`),
        );
      else if (err.code === 'EACCES')
        reject(new PortInUseError(`not allowed to listen on port ${port} (${label}) on ${host}`));
      else reject(err);
    });
    server.listen(port, host, () => {
      // From now on a listener's error (a failed accept when file descriptors run out, say) is logged;
      // the listener keeps serving.
      server.removeAllListeners('error');
      server.on('error', (err) => (app.locals.logger as Logger).error({ err, listener: label }, 'listener error'));
      const bound = (server.address() as AddressInfo).port;
      resolve({
        url: `http://${host}:${bound}`,
        port: bound,
        close: () =>
          new Promise<void>((done) => {
            draining = true;
            let sweep: NodeJS.Timeout | undefined;
            const grace = setTimeout(() => {
              server.closeIdleConnections();
              sweep = setInterval(() => server.closeIdleConnections(), 100);
            }, drainGraceMs);
            const force = setTimeout(() => server.closeAllConnections(), 10_000);
            // net's close, not http's: http's closes the idle connections at once.
            const stopAccepting = () =>
              net.Server.prototype.close.call(server, () => {
                clearTimeout(grace);
                clearInterval(sweep);
                clearTimeout(force);
                done();
              });
            // Two turns of setImmediate have a poll of the event loop (where connections are taken in) between them.
            const acceptingUntil = Date.now() + acceptLimitMs;
            const whenQuiet = () => {
              const before = connections;
              setImmediate(() =>
                setImmediate(() =>
                  connections === before || Date.now() > acceptingUntil ? stopAccepting() : whenQuiet(),
                ),
              );
            };
            whenQuiet();
          }),
      });
    });
  });
}

/** How long a closing listener leaves idle connections open for requests already sent on them. */
const drainGraceMs = 2000;
/** How long a closing listener goes on taking in connections the kernel accepted (a busy process takes in about one a turn). */
const acceptLimitMs = 5000;

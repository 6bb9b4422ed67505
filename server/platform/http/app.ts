import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { newId } from '../ids.ts';
import type { Logger } from '../logger.ts';
import { requestScope, withRequestScope } from '../request-scope.ts';
import { browserPolicy, type BrowserPolicy } from './browser.ts';
import { AppError } from './errors.ts';
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
  app.use(options.countQueries ? (req, res, next) => withRequestScope(() => start(req, res, next)) : (req, res, next) => start(req, res, next));
  const start = (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && saneRequestId.test(incoming) ? incoming : newId();
    const started = process.hrtime.bigint();
    const path = req.path;
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    const scope = requestScope();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      accessLog.info({ requestId, client: clientAddress(req), method: req.method, path, status: res.statusCode, ms: Math.round(ms * 10) / 10, queries: scope?.queries }, 'request');
    });
    next();
  };
  app.use(browserPolicy(options));
  const json = express.json({ limit: options.bodyLimitBytes, type: ['application/json', 'application/*+json'], verify: keepRawBody });
  app.use((req, res, next) => (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined ? next() : json(req, res, next)));
  app.use(dispatch(mounts));
  app.use(() => {
    throw new AppError(404, 'http.not_found', 'No route serves this path.');
  });
  app.use(errorHandler);
  return app;
}

/**
 * The client's address: the connection's peer, or, when that peer is a proxy trusted by `trustProxy`,
 * the address it reports in `X-Forwarded-For` (through every trusted hop). Anything that counts or logs
 * clients reads it here.
 */
export function clientAddress(req: Request): string {
  return req.ip ?? 'unknown';
}

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

/** Maps any error to the error envelope. Only a real bug gives a 500. */
function errorHandler(err: unknown, req: Request, res: Response, _next: NextFunction): void {
  const appError = toAppError(err);
  if (appError.status >= 500) requestLog(res).error({ err }, 'request failed');
  if (res.headersSent) {
    res.end();
    return;
  }
  for (const [name, value] of Object.entries(appError.headers ?? {})) res.setHeader(name, value);
  const error = { code: appError.code, message: appError.message, ...(appError.details ? { details: appError.details } : {}) };
  writeJson(res, appError.status, JSON.stringify({ success: false, error, requestId: res.locals.requestId }));
}

/**
 * Routes a request to the service whose prefix starts its path (`/v1/cap/...` to CAP), with the
 * prefix moved from the URL to `req.baseUrl` as a mounted router expects, and put back if the service
 * passes it on.
 * One look-up instead of one router layer per service.
 */
function dispatch(mounts: Mount[]): RequestHandler {
  return (req, res, next) => {
    const url = req.url;
    const mount = mounts.find(({ prefix }) => url.startsWith(prefix) && (url.length === prefix.length || url[prefix.length] === '/' || url[prefix.length] === '?'));
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
  const e = err as { type?: string; status?: number; statusCode?: number; limit?: number };
  switch (e?.type) {
    case 'entity.parse.failed':
      return new AppError(400, 'http.bad_json', 'The request body is not valid JSON.');
    case 'entity.too.large':
      return new AppError(413, 'http.payload_too_large', `The request body is larger than the limit of ${e.limit} bytes.`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError(415, 'http.unsupported_media_type', 'The request body uses an encoding the server does not accept.');
  }
  const status = e?.status ?? e?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new AppError(400, 'http.bad_request', 'The request is malformed.');
  }
  return new AppError(500, 'internal.error', 'Something went wrong on our side. The request id identifies it in the logs.');
}

/** The port a listener could not bind: reported as one clear line, not a stack trace. */
export class PortInUseError extends Error {
  override name = 'PortInUseError';
}

export interface Listener {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Starts an HTTP listener; `close` stops accepting, lets in-flight requests finish, then closes. */
export function listen(app: express.Express, host: string, port: number, label: string): Promise<Listener> {
  const server = http.createServer(app);
  server.keepAliveTimeout = 5_000;
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') reject(new PortInUseError(`port ${port} (${label}) is already in use on ${host}; choose another with its flag`));
      else if (err.code === 'EACCES') reject(new PortInUseError(`not allowed to listen on port ${port} (${label}) on ${host}`));
      else reject(err);
    });
    server.listen(port, host, () => {
      const bound = (server.address() as AddressInfo).port;
      resolve({
        url: `http://${host}:${bound}`,
        port: bound,
        close: () =>
          new Promise<void>((done) => {
            const force = setTimeout(() => server.closeAllConnections(), 10_000);
            server.close(() => {
              clearTimeout(force);
              done();
            });
            server.closeIdleConnections();
          }),
      });
    });
  });
}

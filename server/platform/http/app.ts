import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { newId } from '../ids.ts';
import type { Logger } from '../logger.ts';
import { requestScope, withRequestScope } from '../request-scope.ts';
import { browserPolicy, type BrowserPolicy } from './browser.ts';
import { AppError } from './errors.ts';

export interface Mount {
  prefix: string;
  router: RequestHandler;
}

const saneRequestId = /^[A-Za-z0-9._:-]{1,128}$/;

export interface HttpOptions extends BrowserPolicy {
  /** Largest accepted JSON body, in bytes. */
  bodyLimitBytes: number;
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

  app.use((req, res, next) => {
    withRequestScope(() => start(req, res, next));
  });
  const start = (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.get('x-request-id');
    const requestId = incoming && saneRequestId.test(incoming) ? incoming : newId();
    const started = process.hrtime.bigint();
    res.locals.requestId = requestId;
    res.locals.log = logger.child({ requestId });
    res.setHeader('X-Request-Id', requestId);
    const scope = requestScope();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      (res.locals.log as Logger).info({ method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10, queries: scope?.queries }, 'request');
    });
    next();
  };
  app.use(browserPolicy(options));
  app.use(express.json({ limit: options.bodyLimitBytes, type: ['application/json', 'application/*+json'], verify: keepRawBody }));
  for (const { prefix, router } of mounts) app.use(prefix, router);
  app.use(() => {
    throw new AppError(404, 'http.not_found', 'No route serves this path.');
  });
  app.use(errorHandler);
  return app;
}

/** Keeps the exact bytes of a JSON body beside the parsed one, for signatures over the raw body (a payment webhook). */
function keepRawBody(req: http.IncomingMessage, _res: http.ServerResponse, body: Buffer): void {
  (req as { rawBody?: Buffer }).rawBody = body;
}

/** The exact bytes of the request's JSON body as received (undefined when it had none). */
export function rawBody(req: Request): Buffer | undefined {
  return (req as { rawBody?: Buffer }).rawBody;
}

/** Maps any error to the error envelope. Only a real bug gives a 500. */
function errorHandler(err: unknown, req: Request, res: Response, _next: NextFunction): void {
  const log = (res.locals.log as Logger | undefined) ?? console;
  const appError = toAppError(err);
  if (appError.status >= 500) (log as Logger).error({ err }, 'request failed');
  if (res.headersSent) {
    res.end();
    return;
  }
  for (const [name, value] of Object.entries(appError.headers ?? {})) res.setHeader(name, value);
  res.status(appError.status).json({
    success: false,
    error: { code: appError.code, message: appError.message, ...(appError.details ? { details: appError.details } : {}) },
    requestId: res.locals.requestId,
  });
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

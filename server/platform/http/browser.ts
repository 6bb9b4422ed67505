import cors from 'cors';
import type { RequestHandler } from 'express';
import helmet from 'helmet';

/** What browsers are told on every listener: which origins may call, and the security headers. */
export interface BrowserPolicy {
  /** Exact origins, or `*`; empty means the development default (local origins) or none. */
  corsOrigins: string[];
  devMode: boolean;
}

/** Any port of the local machine: where a developer runs the web clients. */
const localOrigin = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;

/** The request headers the real web clients send, besides the CORS-safelisted ones. */
const allowedHeaders = ['Authorization', 'Content-Type', 'X-CAP-PERSONA', 'X-CAP-CENTRE-ID', 'X-Request-Id'];
/** Response headers a script may read: the request id, how long to wait after a 429, a download's name. */
const exposedHeaders = ['X-Request-Id', 'Retry-After', 'Content-Disposition'];

/** Whether a browser origin is one the allow-list admits (also where a payer may be sent back to). */
export function originAllowed(policy: BrowserPolicy): (origin: string) => boolean {
  const allowAll = policy.corsOrigins.includes('*');
  const listed = new Set(policy.corsOrigins);
  return (origin) =>
    allowAll || listed.has(origin) || (policy.devMode && policy.corsOrigins.length === 0 && localOrigin.test(origin));
}

/**
 * The middleware every listener runs before routing:
 * - CORS from one allow-list (the clients authenticate with bearer tokens, never cookies, so no
 *   credentials); a preflight is answered 204 here, with the allow headers when the origin is
 *   allowed and without them otherwise, and never reaches the operations;
 * - the security headers of a JSON API on every reply (`apiHeaders`); replies a browser may render
 *   (pages, assets, stored files) add those of a document (`documentHeaders`);
 * - `Cache-Control: no-store` on every reply unless an operation says otherwise: replies carry
 *   tokens, codes and personal data.
 */
export function browserPolicy(policy: BrowserPolicy): RequestHandler {
  const allowed = originAllowed(policy);
  const corsCheck = cors({
    origin: (origin, callback) => callback(null, origin !== undefined && allowed(origin) ? origin : false),
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders,
    exposedHeaders,
    credentials: false,
    maxAge: 600,
    optionsSuccessStatus: 204,
  });
  const afterCors: RequestHandler = (req, res, next) => {
    // A preflight from an origin that is not allowed: answered, without permission.
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
      res.setHeader('Vary', 'Origin');
      res.status(204).end();
      return;
    }
    res.setHeaders(apiHeaders);
    next();
  };
  return (req, res, next) => {
    // No Origin: not a browser's cross-origin call, and CORS would add nothing (as the cors package
    // itself does for an origin it refuses); the security headers still go on.
    if (req.headers.origin === undefined && req.method !== 'OPTIONS') {
      res.setHeaders(apiHeaders);
      next();
      return;
    }
    corsCheck(req, res, (err?: unknown) => (err ? next(err) : afterCors(req, res, next)));
  };
}

/**
 * helmet's headers, for the replies a browser renders: a content security policy without inline
 * scripts, frame protection, and resources that other origins may embed (signed asset URLs in
 * `<img>`). An operation's own headers (a page's policy with its nonce) are set after these.
 */
export const documentHeaders = securityHeaders();

/**
 * What a JSON reply needs (the OWASP set for REST APIs): no caching, no framing, and, as helmet writes
 * them, HTTPS only and no sniffing. The rest of helmet's set guards HTML a browser renders and would
 * only add bytes to every JSON reply (about 400 of them).
 */
const apiHeaders = new Map([
  ['Cache-Control', 'no-store'],
  ['Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'"],
  ['X-Frame-Options', 'DENY'],
  ...(['Strict-Transport-Security', 'X-Content-Type-Options'] as const).map(
    (name) => [name, documentHeaders.get(name)!] as const,
  ),
]);

/**
 * helmet's headers depend only on its options, so they are taken once, from a response that records
 * what helmet sets, and then set in one call.
 */
function securityHeaders(): Map<string, string> {
  const recorded = new Map<string, string>();
  const recorder = {
    setHeader: (name: string, value: string | number) => recorded.set(name, String(value)),
    removeHeader: (name: string) => recorded.delete(name),
  };
  let done = false;
  helmet({ crossOriginResourcePolicy: { policy: 'cross-origin' } })(
    {} as never,
    recorder as never,
    () => (done = true),
  );
  if (!done || recorded.size === 0) throw new Error('helmet did not set its headers synchronously');
  return recorded;
}

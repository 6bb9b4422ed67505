/** The HTTP side of the runner: sending requests (undici), reachability and redaction. */
import { Agent, request } from 'undici';
import { UnreachableError } from '../output.ts';

export interface HttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** A JSON value, or raw text when the content type is not JSON. */
  body?: unknown;
  /** Bytes sent instead of `body` (a multipart upload), which then only describes them for reports. */
  raw?: Buffer;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

const connectionErrorCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'EPIPE',
]);

function connectionErrorCode(err: unknown): string | undefined {
  for (let e = err as { code?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.code && connectionErrorCodes.has(e.code)) return e.code;
  }
  return undefined;
}

export function createDispatcher(): Agent {
  return new Agent({ connect: { timeout: 5_000 }, headersTimeout: 60_000, bodyTimeout: 60_000 });
}

/**
 * A kept-alive connection the server closed while the request was on its way in fails this way.
 * The server saw no request on it, so a safe request may be sent again on a new connection.
 */
const closedConnectionCodes = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);
const safeMethods = new Set(['GET', 'HEAD']);

/**
 * Sends one request; a connection failure becomes UnreachableError, any HTTP answer is returned.
 * A GET or HEAD whose connection was closed under it is sent once more; other methods are not, as
 * the server may have acted on them.
 */
export async function send(req: HttpRequest, dispatcher: Agent): Promise<HttpResponse> {
  const isJson = /json/i.test(req.headers['content-type'] ?? 'application/json');
  const payload =
    req.raw ??
    (req.body === undefined
      ? undefined
      : typeof req.body === 'string' && !isJson
        ? req.body
        : JSON.stringify(req.body));
  const attempt = async (): Promise<HttpResponse> => {
    const res = await request(req.url, {
      method: req.method as 'GET',
      headers: req.headers,
      body: payload,
      dispatcher,
    });
    const text = await res.body.text();
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(res.headers)) {
      if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
    }
    return { status: res.statusCode, headers, body: parseBody(text, headers['content-type']) };
  };
  try {
    try {
      return await attempt();
    } catch (err) {
      const code = connectionErrorCode(err);
      if (!code || !closedConnectionCodes.has(code) || !safeMethods.has(req.method.toUpperCase())) throw err;
      return await attempt();
    }
  } catch (err) {
    const code = connectionErrorCode(err);
    if (code) throw new UnreachableError(`cannot reach ${new URL(req.url).origin} (${code})`);
    throw err;
  }
}

function parseBody(text: string, contentType: string | undefined): unknown {
  if (text === '') return undefined;
  if (!/json/i.test(contentType ?? '')) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Fails with UnreachableError unless `<base>/v1/ol/healthz` answers 2xx. */
export async function checkReachable(baseUrl: string, dispatcher: Agent): Promise<void> {
  const url = `${baseUrl}/v1/ol/healthz`;
  const res = await send({ method: 'GET', url, headers: { accept: 'application/json' } }, dispatcher);
  if (!isSuccess(res.status)) {
    throw new UnreachableError(`the platform at ${baseUrl} is not healthy (GET /v1/ol/healthz answered ${res.status})`);
  }
}

const secretHeaders = new Set(['authorization', 'x-platform-service-key', 'cookie']);

/** A copy of a request fit for reports: credentials replaced. */
export function redact(req: HttpRequest): HttpRequest {
  const headers = Object.fromEntries(
    Object.entries(req.headers).map(([name, value]) => [
      name,
      !secretHeaders.has(name) ? value : /^bearer /i.test(value) ? 'Bearer [redacted]' : '[redacted]',
    ]),
  );
  return { ...req, headers };
}

/** A step could not complete; the request and response (when there was one) show why. */
export class StepError extends Error {
  override name = 'StepError';
  constructor(
    message: string,
    readonly request?: HttpRequest,
    readonly response?: HttpResponse,
  ) {
    super(message);
  }
}

export const isSuccess = (status: number) => status >= 200 && status <= 299;

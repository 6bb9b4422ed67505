import type express from 'express';
import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import type { Logger } from '../logger.ts';
import { requestLog } from './app.ts';
import { documentHeaders } from './browser.ts';
import { AppError, validationFailed } from './errors.ts';
import type { ApiDocument, Operation, Parameter } from './openapi.ts';
import { successText, writeJson, type Reply } from './reply.ts';
import { compileOperation, toDetails, type OperationValidators } from './validation.ts';

/** Who is calling, as established by the operation's security scheme. */
export interface Principal {
  kind: 'user' | 'service';
  userId?: string;
  email?: string;
  intents?: string[];
  claims?: Record<string, unknown>;
}

/** The inputs of a call: path parameters, query and body. Loose (`any`) unless typed from a document. */
export interface CallInput {
  params: any;
  query: any;
  body: any;
}

/** A validated request, as a handler sees it. No response object: handlers return a Reply. */
export interface Call<In extends CallInput = { params: Record<string, any>; query: Record<string, any>; body: any }> {
  operationId: string;
  params: In['params'];
  query: In['query'];
  /** The documented headers, lower-cased and validated. */
  headers: Record<string, any>;
  body: In['body'];
  requestId: string;
  log: Logger;
  principal?: Principal;
  /** The underlying request, for the few handlers that need more (raw body of a signed webhook). */
  req: Request;
}

export type Handler<In extends CallInput = any> = (call: Call<In>) => Promise<Reply> | Reply;

/**
 * The inputs of one operation of a document's generated types (server/contracts/openapi/<service>.ts,
 * `npm run types`): its path parameters, its query, and its JSON request body (`undefined` when the
 * body is optional and absent). A body that is not JSON (a multipart upload, a file's bytes) is left
 * to the handler to read from `call.req`, as `unknown`.
 */
export interface InputOf<Op> {
  params: Part<Op, 'path'>;
  query: Part<Op, 'query'>;
  body: BodyOf<Op>;
}

type BodyOf<Op> = Op extends { requestBody?: infer R }
  ? [NonNullable<R>] extends [never]
    ? undefined
    : NonNullable<R> extends { content: { 'application/json': infer B } }
      ? Op extends { requestBody: unknown }
        ? B
        : B | undefined
      : unknown
  : undefined;

type Part<Op, K extends 'path' | 'query'> = Op extends { parameters: infer P }
  ? K extends keyof P
    ? [NonNullable<P[K]>] extends [never]
      ? Record<string, never>
      : NonNullable<P[K]>
    : Record<string, never>
  : Record<string, never>;

/** The call of one operation of a document's `operations` type. */
export type CallOf<Op> = Call<InputOf<Op>>;

/**
 * Handlers keyed by operationId, each typed from its operation in a document's generated types:
 * `const handlers: Handlers<operations> = { createThing: (call) => ... call.body.name ... }`.
 */
export type Handlers<Ops> = { [Id in keyof Ops]?: Handler<InputOf<Ops[Id]>> };

/** Establishes `call.principal` for one security scheme of the document, or throws an AppError. */
export type SecurityHandler = (call: Call) => Promise<void> | void;

export interface BindOptions {
  security?: Record<string, SecurityHandler>;
  /** Check every JSON reply against the documented response schema; a mismatch is a 500 (our bug). */
  checkResponses?: boolean;
  /** Development mode: request links (`format: uri`) may be `http://` too. */
  devMode?: boolean;
}

/** A service's operations as one middleware, and the routes it serves ("GET /centre/staff/{id}"). */
export interface OperationRouter extends express.RequestHandler {
  readonly routes: string[];
}

/**
 * Builds the router of an OpenAPI document: every documented operation is routed to the handler of
 * the same operationId. A documented operation without a handler, or a handler for an operation the
 * document does not have, stops the service from starting: the two cannot drift apart. Routing is a
 * table lookup (a map for literal paths, then templated paths, most literal first), not a walk
 * through one route per operation: a service has hundreds.
 */
export function bindOperations(
  service: string,
  doc: ApiDocument,
  handlers: Record<string, Handler | undefined>,
  options: BindOptions = {},
): OperationRouter {
  const documented = new Set(doc.operations.map((o) => o.operationId));
  const unrouted = [...documented].filter((id) => !handlers[id]);
  const undocumented = Object.keys(handlers).filter((id) => !documented.has(id));
  if (unrouted.length || undocumented.length) {
    throw new Error(
      `${service}: the OpenAPI document and the handlers disagree` +
        (unrouted.length ? `; documented but not routed: ${unrouted.join(', ')}` : '') +
        (undocumented.length ? `; routed but not documented: ${undocumented.join(', ')}` : ''),
    );
  }
  const byPath = new Map<string, PathEntry>();
  for (const op of doc.operations) {
    const entry = byPath.get(op.path) ?? { pattern: pathPattern(op.path, op.parameters), methods: new Map() };
    entry.methods.set(op.method.toUpperCase(), handlerFor(op, handlers[op.operationId]!, options));
    byPath.set(op.path, entry);
  }
  const literal = new Map([...byPath].filter(([p]) => !p.includes('{')).map(([p, e]) => [p, e]));
  // Literal segments before templated ones, so `/centre/staff/summary` wins over `/centre/staff/{id}`.
  const templated = [...byPath]
    .filter(([p]) => p.includes('{'))
    .sort(([a], [b]) => specificity(b) - specificity(a))
    .map(([, e]) => e);

  const router = ((req, res, next) => {
    const path = req.path.length > 1 && req.path.endsWith('/') ? req.path.slice(0, -1) : req.path;
    let entry = literal.get(path);
    let params: Record<string, string> = {};
    if (!entry) {
      for (const candidate of templated) {
        const match = candidate.pattern.regex.exec(path);
        if (!match) continue;
        entry = candidate;
        params = Object.fromEntries(
          candidate.pattern.names.map((name, i) => [name, decodeSegment(match[i + 1] ?? '')]),
        );
        break;
      }
    }
    if (!entry) return next();
    const handle = entry.methods.get(req.method) ?? (req.method === 'HEAD' ? entry.methods.get('GET') : undefined);
    if (!handle) {
      const allow = [...entry.methods.keys()].join(', ');
      return next(
        new AppError(405, 'http.method_not_allowed', `This path allows ${allow}.`, undefined, { Allow: allow }),
      );
    }
    req.params = params;
    try {
      handle(req, res)?.catch(next);
    } catch (err) {
      next(err);
    }
  }) as OperationRouter;
  Object.defineProperty(router, 'routes', { value: doc.operations.map((o) => `${o.method.toUpperCase()} ${o.path}`) });
  return router;
}

interface PathEntry {
  pattern: { regex: RegExp; names: string[] };
  methods: Map<string, (req: Request, res: Response) => Promise<void> | void>;
}

/**
 * `/centre/staff/{id}` -> a regex matching one segment per template, and the template names. A last
 * template whose path parameter says `x-multi-segment: true` takes the rest of the path, slashes
 * included, and may be empty (`/content`, `/content/`, `/content/pages/a.html`): a file path inside
 * a package, say.
 */
function pathPattern(openapiPath: string, parameters: Parameter[] = []): PathEntry['pattern'] {
  const names: string[] = [];
  const segments = openapiPath.split('/');
  const source = segments
    .map((segment, i) => {
      const template = /^\{([^}]+)\}$/.exec(segment);
      if (!template) return (i > 0 ? '/' : '') + segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(template[1]!);
      const multi =
        i === segments.length - 1 &&
        parameters.some(
          (p) => p.in === 'path' && p.name === template[1] && (p as { 'x-multi-segment'?: boolean })['x-multi-segment'],
        );
      return multi ? '(?:/(.*))?' : '/([^/]+)';
    })
    .join('');
  return { regex: new RegExp(`^${source}$`), names };
}

/** A path segment as sent, percent-decoded; a malformed escape is the client's mistake. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new AppError(400, 'http.bad_request', 'The request path has a malformed percent-escape.');
  }
}

function specificity(p: string): number {
  return p.split('/').reduce((score, segment) => score * 2 + (segment.startsWith('{') ? 0 : 1), 1);
}

/**
 * The request handling of one operation. It returns a promise only when something had to be waited
 * for (a token not verified before, a handler that queries): each `await` is a turn of the microtask
 * queue and a promise, and a kept caller's read needs none.
 */
function handlerFor(
  op: Operation,
  handler: Handler,
  options: BindOptions,
): (req: Request, res: Response) => Promise<void> | void {
  // Compiled on the first request: compiling every schema up front costs start-up time
  // (test/platform/openapi-documents.test.ts compiles them all, so a broken schema still fails the tests).
  let validators: OperationValidators | undefined;
  const security = op.security?.length ? op.security.map((alternative) => Object.keys(alternative)) : undefined;
  const checkResponses = options.checkResponses ?? false;
  const reply = (res: Response, v: OperationValidators, replied: Reply) => send(res, replied, op, v, checkResponses);
  const run = (res: Response, v: OperationValidators, call: Call): Promise<void> | void => {
    if (!v.header(call.headers)) throw validationFailed(toDetails(v.header.errors, 'header'));
    if (!v.query(call.query)) throw validationFailed(toDetails(v.query.errors, 'query'));
    checkBody(op, v, call);
    const replied = handler(call);
    if (replied instanceof Promise) return replied.then((r) => reply(res, v, r));
    reply(res, v, replied);
  };
  return (req: Request, res: Response) => {
    const v = (validators ??= compileOperation(op, { devMode: options.devMode }));
    const call = new RequestCall(op, req, res);
    const unsafe: Array<{ field: string; issue: string }> = [];
    unsafeText(call.params, 'path', unsafe);
    unsafeText(call.query, 'query', unsafe);
    unsafeText(call.body, '', unsafe);
    if (unsafe.length) throw validationFailed(unsafe);
    if (!v.path(call.params)) throw validationFailed(toDetails(v.path.errors, 'path'));
    const authenticating = security ? authenticate(security, call, options.security ?? {}) : undefined;
    return authenticating ? authenticating.then(() => run(res, v, call)) : run(res, v, call);
  };
}

/**
 * The Call of a request. A class rather than an object literal: a literal with a getter (`log`) is
 * built on V8's slow path, a few microseconds on every request.
 */
class RequestCall implements Call {
  readonly operationId: string;
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  body: unknown;
  readonly requestId: string;
  principal?: Principal = undefined;
  readonly #res: Response;

  constructor(
    op: Operation,
    readonly req: Request,
    res: Response,
  ) {
    this.operationId = op.operationId;
    this.params = { ...req.params };
    this.query = { ...(req.query as Record<string, unknown>) };
    this.headers = pickHeaders(req, op);
    this.body = req.body;
    this.requestId = res.locals.requestId as string;
    this.#res = res;
  }

  get log(): Logger {
    return requestLog(this.#res);
  }
}

// A NUL character, or half of a surrogate pair: no text of ours holds either (PostgreSQL cannot store
// a NUL, and a lone surrogate is not Unicode), so a request carrying one is refused before anything runs.
const badCharacter = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const unsafeIssue = 'must not contain a NUL character or an unpaired surrogate';

/** Adds every string (and object key) of a request part that holds a bad character to `found`, as validation details. */
function unsafeText(node: unknown, path: string, found: Array<{ field: string; issue: string }>): void {
  if (typeof node === 'string') {
    if (badCharacter.test(node)) found.push({ field: path || 'body', issue: unsafeIssue });
  } else if (Array.isArray(node)) {
    node.forEach((item, i) => unsafeText(item, `${path}[${i}]`, found));
  } else if (node && typeof node === 'object') {
    for (const [key, item] of Object.entries(node)) {
      if (badCharacter.test(key)) found.push({ field: path || 'body', issue: unsafeIssue });
      else unsafeText(item, path ? `${path}.${key}` : key, found);
    }
  }
}

function pickHeaders(req: Request, op: Operation): Record<string, unknown> {
  const headers: Record<string, unknown> = {};
  for (const p of op.parameters) {
    if (p.in !== 'header') continue;
    const value = req.headers[p.name.toLowerCase()];
    if (value !== undefined) headers[p.name.toLowerCase()] = value;
  }
  return headers;
}

/**
 * Runs the operation's security (its alternatives, each a list of scheme names): the first alternative
 * whose schemes all admit the call wins, else the first alternative's error stands. Schemes that admit
 * the call synchronously (a token verified before) are not waited for: the result is a promise only
 * from the first scheme that returned one.
 */
function authenticate(
  alternatives: string[][],
  call: Call,
  schemes: Record<string, SecurityHandler>,
): Promise<void> | void {
  let firstError: unknown;
  const refused = (err: unknown) => {
    firstError ??= err;
    call.principal = undefined;
  };
  const from = (alternative: number, scheme: number): Promise<void> | void => {
    for (; alternative < alternatives.length; alternative++, scheme = 0) {
      const names = alternatives[alternative]!;
      try {
        for (; scheme < names.length; scheme++) {
          const verify = schemes[names[scheme]!];
          if (!verify) throw new Error(`security scheme ${names[scheme]} has no handler`);
          const pending = verify(call);
          if (pending) {
            const next = alternative + 1;
            const rest = scheme + 1;
            const current = alternative;
            return pending.then(
              () => from(current, rest),
              (err: unknown) => {
                refused(err);
                return from(next, 0);
              },
            );
          }
        }
        return;
      } catch (err) {
        refused(err);
      }
    }
    throw firstError;
  };
  return from(0, 0);
}

function checkBody(op: Operation, v: OperationValidators, call: Call): void {
  if (!op.requestBody) return;
  const hasBody =
    Number(call.req.headers['content-length'] ?? 0) > 0 || call.req.headers['transfer-encoding'] !== undefined;
  const types = Object.keys(op.requestBody.content);
  if (!types.includes('application/json')) {
    // A streamed body (a multipart upload, a file's bytes): the handler reads and checks it itself.
    if (hasBody && !types.some((type) => type === '*/*' || call.req.is(type))) {
      throw new AppError(415, 'http.unsupported_media_type', `Send the request body as ${types.join(' or ')}.`);
    }
    if (!hasBody && v.bodyRequired)
      throw validationFailed([{ field: 'body', issue: 'is required' }], 'The request needs a body.');
    return;
  }
  // A body that declares no type is no JSON body (some clients send an empty chunked body with a bare
  // POST): an optional body is then absent, a required one a 422 below.
  if (
    hasBody &&
    call.req.headers['content-type'] !== undefined &&
    !call.req.is('application/json') &&
    !call.req.is('application/*+json')
  ) {
    throw new AppError(415, 'http.unsupported_media_type', 'Send the request body as application/json.');
  }
  if (call.body === undefined) {
    if (v.bodyRequired)
      throw validationFailed([{ field: 'body', issue: 'is required' }], 'The request needs a JSON body.');
    return;
  }
  if (v.body && !v.body(call.body)) throw validationFailed(toDetails(v.body.errors, 'body'));
}

function send(res: Response, reply: Reply, op: Operation, v: OperationValidators, checkResponses: boolean): void {
  if (reply.kind !== 'json') res.setHeaders(documentHeaders);
  if (reply.headers) for (const [name, value] of Object.entries(reply.headers)) res.setHeader(name, value);
  if (reply.kind === 'stream') {
    res.status(reply.status).type(reply.contentType);
    pipeline(reply.body, res).catch((err) => requestLog(res).warn({ err }, 'streamed reply cut short'));
    return;
  }
  if (reply.kind === 'raw') {
    res.status(reply.status).type(reply.contentType).send(reply.body);
    return;
  }
  // Serialised once: the check reads the reply as the client will (dates as strings, no undefined).
  const text = successText(reply.data, reply.meta);
  if (checkResponses) {
    const check = v.reply(String(reply.status));
    if (check === undefined)
      throw new Error(`${op.operationId} replied ${reply.status}, which its document does not describe`);
    if (check && !check(JSON.parse(text))) {
      requestLog(res).error({ operationId: op.operationId, errors: check.errors }, 'reply does not match the document');
      throw new AppError(
        500,
        'internal.response_contract',
        `The server built a reply that breaks its own API document (${op.operationId}).`,
      );
    }
  }
  writeJson(res, reply.status, text);
}

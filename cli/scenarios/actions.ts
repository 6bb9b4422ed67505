/** What each kind of step does: an HTTP call, a gRPC call, a mailbox read or a wait for an event. */
import { performance } from 'node:perf_hooks';
import type { Agent } from 'undici';
import type { GrpcAddresses } from '../grpc-address.ts';
import type { ActorSession } from './actors.ts';
import { parseDuration, sleep } from './duration.ts';
import { evaluate, ExpressionError, type ExpressionContext } from './expressions.ts';
import { callGrpc, grpcServiceOf } from './grpc-step.ts';
import { isSuccess, send, StepError, type HttpRequest, type HttpResponse } from './http.ts';
import type { StatusRules } from './matchers.ts';
import type { Operation, OperationCatalog } from './operations.ts';
import { getPath, parsePath } from './paths.ts';
import { multipartBody } from '../multipart.ts';
import type { HttpAction, Step } from './types.ts';

/** The platform being driven, resolved once per run. */
export interface Platform {
  baseUrl: string;
  dispatcher: Agent;
  operations: Map<string, Operation>;
  /** The live OpenAPI documents, for matching a request to its operation and checking the reply. */
  catalog: OperationCatalog;
  /** Whether replies are checked against their operation's schema. */
  checkSchemas: boolean;
  grpc: { addresses: GrpcAddresses; serviceKey: string };
}

/** The state of one scenario while it runs. */
export interface ScenarioRun {
  platform: Platform;
  context: ExpressionContext;
  sessions: Map<string, ActorSession>;
  /** When each step started (epoch ms), for `mail.since` and `event.since`. */
  startedAt: Map<string, number>;
  /** Aborted when the run is interrupted: waits end at once. */
  signal?: AbortSignal;
}

export interface Exchange {
  request: HttpRequest;
  response: HttpResponse;
  /** How this kind of step tells success (or an error) when the expectation names no status. */
  statuses: StatusRules;
  /** How long the action took in ms: for an HTTP call, its request (not the actor's sign-in before it). */
  durationMs?: number;
}

/** Carries out a step's action once. */
export async function perform(step: Step, run: ScenarioRun): Promise<Exchange & { durationMs: number }> {
  const started = performance.now();
  const exchange = await (step.http
    ? performHttp(step, step.http, run)
    : step.grpc
      ? performGrpc(step, run)
      : step.event
        ? performEvent(step, run)
        : performMail(step, run));
  return { ...exchange, durationMs: exchange.durationMs ?? Math.round(performance.now() - started) };
}

const httpStatuses: StatusRules = {
  success: { test: isSuccess, description: 'a 2xx status' },
  error: { test: (status) => status >= 400, description: 'an error status (4xx or 5xx)' },
};
const grpcStatuses: StatusRules = {
  success: { test: (status) => status === 0, description: 'status 0 (OK)' },
  error: { test: (status) => status !== 0, description: 'an error status (not 0)' },
};

async function performHttp(step: Step, action: HttpAction, run: ScenarioRun): Promise<Exchange> {
  const { platform } = run;
  const http = evaluate(action, run.context) as HttpAction;
  const operation = http.operation === undefined ? undefined : platform.operations.get(http.operation)!;
  const method = operation?.method ?? http.method!;
  const path = fillPath(operation?.path ?? http.path!, http.params ?? {});
  const request: HttpRequest = {
    method,
    url: `${platform.baseUrl}${path}${queryString(http.query ?? {}, path)}`,
    headers: { accept: 'application/json' },
  };
  if (http.body !== undefined) {
    request.headers['content-type'] = 'application/json';
    request.body = http.body;
  }
  if (http.upload) Object.assign(request, await multipart(http.upload));
  const session = step.as === undefined ? undefined : run.sessions.get(step.as)!;
  let bearer: string | undefined;
  if (session) {
    bearer = `Bearer ${await session.accessToken()}`;
    request.headers.authorization = bearer;
    if (path.startsWith('/v1/cap/')) {
      if (session.actor.persona) request.headers['x-cap-persona'] = session.actor.persona;
      if (session.actor.centre) request.headers['x-cap-centre-id'] = session.actor.centre;
    }
  }
  for (const [name, value] of Object.entries(http.headers ?? {})) {
    if (value === null) delete request.headers[name.toLowerCase()];
    else request.headers[name.toLowerCase()] = String(value);
  }
  let sent = performance.now();
  let response = await send(request, platform.dispatcher);
  // Refresh only the token we sent ourselves, once, and replay once.
  if (response.status === 401 && session && request.headers.authorization === bearer && (await session.refresh())) {
    request.headers.authorization = `Bearer ${await session.accessToken()}`;
    sent = performance.now();
    response = await send(request, platform.dispatcher);
  }
  return { request, response, statuses: httpStatuses, durationMs: Math.round(performance.now() - sent) };
}

function fillPath(template: string, params: Record<string, unknown>): string {
  return template.replace(/(?<!\$)\{([A-Za-z0-9_]+)\}/g, (_, name: string) => {
    if (params[name] === undefined) throw new ExpressionError(`path parameter {${name}} has no value in params`);
    return encodeURIComponent(String(params[name]));
  });
}

function queryString(query: Record<string, unknown>, path: string): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== null && item !== undefined) search.append(name, String(item));
    }
  }
  const text = search.toString();
  return text === '' ? '' : `${path.includes('?') ? '&' : '?'}${text}`;
}

async function performGrpc(step: Step, run: ScenarioRun): Promise<Exchange> {
  const grpc = evaluate(step.grpc, run.context) as NonNullable<Step['grpc']>;
  const address = grpc.address ?? run.platform.grpc.addresses.addressFor(await grpcServiceOf(grpc.method));
  const request = (grpc.request ?? {}) as object;
  const outcome = await callGrpc(address, run.platform.grpc.serviceKey, grpc.method, request);
  return {
    request: {
      method: 'GRPC',
      url: `grpc://${address}/${grpc.method}`,
      headers: { 'x-platform-service-key': run.platform.grpc.serviceKey },
      body: request,
    },
    response: { status: outcome.status, headers: {}, body: outcome.body },
    statuses: grpcStatuses,
  };
}

/**
 * How long a mail or event step waits before its next look: 10 ms after the first, doubling up to
 * 250 ms. Mail and events arrive within tens of milliseconds on an idle platform, so a fixed 250 ms
 * made such a step last 250 ms; a slow platform is still asked at most four times a second.
 */
export const pollDelayMs = (attempt: number) => Math.min(250, 10 * 2 ** attempt);

interface Mail {
  to: string;
  subject: string;
  text: string;
  sentAt: string;
  otp?: string;
  password?: string;
}

/** A multipart/form-data body of one file (part `file`) and text fields; reports show what it holds, not its bytes. */
async function multipart(
  upload: NonNullable<HttpAction['upload']>,
): Promise<Pick<HttpRequest, 'headers' | 'body' | 'raw'>> {
  const { readFile } = await import('node:fs/promises');
  const { basename } = await import('node:path');
  const bytes = await readFile(upload.file).catch((err: NodeJS.ErrnoException) => {
    throw new StepError(`cannot read the upload file ${upload.file} (${err.code ?? err.message})`);
  });
  const fields = Object.fromEntries(Object.entries(upload.fields ?? {}).map(([name, value]) => [name, String(value)]));
  const form = multipartBody(basename(upload.file), bytes, fields);
  return {
    headers: { accept: 'application/json', 'content-type': form.contentType },
    body: { upload: upload.file, size: bytes.length, fields: upload.fields ?? {} },
    raw: form.bytes,
  };
}

/** Reads the newest mail to an address from the dev mailbox, polling until `wait` runs out. */
async function performMail(step: Step, run: ScenarioRun): Promise<Exchange> {
  const mail = step.mail!;
  const to = String(evaluate(mail.to, run.context));
  const since = mail.since === undefined ? undefined : run.startedAt.get(mail.since)!;
  const deadline = Date.now() + (mail.wait === undefined ? 0 : parseDuration(mail.wait));
  const request: HttpRequest = {
    method: 'GET',
    url: `${run.platform.baseUrl}/v1/ol/dev/mailbox?${new URLSearchParams({ to })}`,
    headers: { accept: 'application/json' },
  };
  for (let attempt = 0; ; attempt++) {
    const response = await send(request, run.platform.dispatcher);
    if (!isSuccess(response.status)) {
      throw new StepError(`the dev mailbox answered ${response.status}`, request, response);
    }
    const mails = (getPath(response.body, ['data']) ?? []) as Mail[];
    const latest = mails.find((m) => since === undefined || Date.parse(m.sentAt) >= since);
    if (latest) return { request, response: { ...response, body: latest }, statuses: httpStatuses };
    if (Date.now() >= deadline || run.signal?.aborted) {
      const after = mail.since === undefined ? '' : ` sent after step ${mail.since} started`;
      const within = mail.wait === undefined ? '' : ` within ${mail.wait}`;
      throw new StepError(`no mail to ${to}${after}${within}`, request, response);
    }
    await sleep(Math.min(pollDelayMs(attempt), Math.max(0, deadline - Date.now())), run.signal);
  }
}

interface PublishedEvent {
  id: string;
  type: string;
  occurredAt: string;
  data: unknown;
}

/**
 * Waits for an event of a type that a service published (`GET /v1/<service>/dev/events`, development
 * mode only), whose data has the values `where` names, polling until `wait` runs out.
 */
async function performEvent(step: Step, run: ScenarioRun): Promise<Exchange> {
  const action = step.event!;
  const where = Object.entries(action.where ?? {}).map(
    ([path, value]) => [parsePath(path), String(evaluate(value, run.context))] as const,
  );
  const since = action.since === undefined ? undefined : run.startedAt.get(action.since)!;
  const deadline = Date.now() + (action.wait === undefined ? 0 : parseDuration(action.wait));
  const request: HttpRequest = {
    method: 'GET',
    url: `${run.platform.baseUrl}/v1/${action.service}/dev/events?${new URLSearchParams({ type: action.type })}`,
    headers: { accept: 'application/json' },
  };
  for (let attempt = 0; ; attempt++) {
    const response = await send(request, run.platform.dispatcher);
    if (!isSuccess(response.status))
      throw new StepError(`the dev events answered ${response.status}`, request, response);
    const events = (getPath(response.body, ['data']) ?? []) as PublishedEvent[];
    const found = events.find(
      (e) =>
        (since === undefined || Date.parse(e.occurredAt) >= since) &&
        where.every(([path, value]) => String(getPath(e.data, path)) === value),
    );
    if (found) return { request, response: { ...response, body: found }, statuses: httpStatuses };
    if (Date.now() >= deadline || run.signal?.aborted) {
      const matching = where.length
        ? ` with ${where.map(([path, value]) => `${path.join('.')}=${value}`).join(', ')}`
        : '';
      throw new StepError(
        `no ${action.type} event from ${action.service}${matching}${action.wait ? ` within ${action.wait}` : ''}`,
        request,
        response,
      );
    }
    await sleep(Math.min(pollDelayMs(attempt), Math.max(0, deadline - Date.now())), run.signal);
  }
}

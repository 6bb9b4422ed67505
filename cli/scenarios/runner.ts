/**
 * Runs scenarios: scenarios in parallel (up to `concurrency`), the steps of one scenario in order. The
 * first failed step ends its scenario and the steps after it are reported as skipped, unless the step
 * may fail (`continueOnFail`, `continueOnError`): then only the steps that take values from it are.
 */
import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import { defaultGrpcAddress, devServiceKey, discoverGrpcAddresses, fixedGrpcAddress } from '../grpc-address.ts';
import { exitCodes, UsageError } from '../output.ts';
import { perform, type Exchange, type Platform, type ScenarioRun } from './actions.ts';
import { ActorSession } from './actors.ts';
import { parseDuration, sleep } from './duration.ts';
import { evaluate, evaluateExpectation, evaluateText, type ExpressionContext } from './expressions.ts';
import { grpcMethodProblem } from './grpc-step.ts';
import { checkReachable, createDispatcher, redact, StepError, type HttpRequest, type HttpResponse } from './http.ts';
import { UnreachableError } from '../output.ts';
import { checkExpectation, type Mismatch } from './matchers.ts';
import { OperationCatalog, type Operation } from './operations.ts';
import { getPath, parsePath } from './paths.ts';
import { dependenciesOf, notSelectedByOnly, unselectedSteps } from './selection.ts';
import { placeholders } from './validate.ts';
import { query } from './query.ts';
import type { Actor, Capture, Scenario, Step } from './types.ts';

export interface RunOptions {
  baseUrl: string;
  /**
   * `address`: one address for every gRPC step (a flag or CAPCTL_GRPC_ADDRESS); without it the platform
   * says where each service listens. `serviceKey`: default ORCHESTRATOR_SERVICE_API_KEY, else the dev key.
   */
  grpc?: { address?: string; serviceKey?: string };
  /** Scenarios run at the same time (default 1). */
  concurrency?: number;
  only?: string[];
  skip?: string[];
  /** Go on after a failed step (as every step's continueOnFail would); steps that use it are skipped. */
  continueOnError?: boolean;
  /** Aborting stops the run: the running step is cut short, nothing more starts, and the report says so. */
  signal?: AbortSignal;
  /** false: check no HTTP reply against its operation's documented schema (default true; a step opts out with expect.schema). */
  checkSchemas?: boolean;
  env?: Record<string, string | undefined>;
  onEvent?: (event: RunEvent) => void;
}

export type RunEvent =
  | { type: 'run-start'; scenarios: Scenario[] }
  | { type: 'scenario-start'; scenario: Scenario }
  | { type: 'step-start'; scenario: Scenario; step: Step }
  | { type: 'step-end'; scenario: Scenario; result: StepResult }
  | { type: 'scenario-end'; scenario: Scenario; result: ScenarioResult };

export type StepStatus = 'passed' | 'failed' | 'skipped';

export interface StepResult {
  id: string;
  name: string;
  status: StepStatus;
  durationMs: number;
  attempts: number;
  /** Why a step failed without a mismatch, or why it was skipped. */
  message?: string;
  /** What was sent (credentials redacted) and what came back; reports show them for failed steps, or all with --verbose. */
  request?: HttpRequest;
  response?: HttpResponse;
  mismatches?: Mismatch[];
}

export interface ScenarioResult {
  name: string;
  file: string;
  /** The row of a data-driven run (1-based) and its values. */
  row?: { index: number; values: Record<string, unknown> };
  /** `unreachable`: the platform stopped answering during the scenario; `interrupted`: the run was stopped (Ctrl-C). */
  status: 'passed' | 'failed' | 'unreachable' | 'interrupted';
  /** ISO 8601 time the scenario started. */
  startedAt: string;
  durationMs: number;
  steps: StepResult[];
}

export interface RunReport {
  scenarios: ScenarioResult[];
  durationMs: number;
  /** 0 all passed, 1 an expectation failed, 3 the platform could not be reached, 130 interrupted. */
  exitCode: typeof exitCodes.ok | typeof exitCodes.failed | typeof exitCodes.unreachable | typeof exitCodes.interrupted;
  /** The run was stopped before its end (its scenarios are those that had started). */
  interrupted?: boolean;
}

/**
 * Checks the platform is reachable and every operation and gRPC method exists, then runs. Throws
 * UnreachableError (exit 3) or UsageError (exit 2) before any step runs.
 */
export async function runScenarios(scenarios: Scenario[], options: RunOptions): Promise<RunReport> {
  const started = performance.now();
  const only = options.only ?? [];
  const skip = options.skip ?? [];
  for (const id of [...only, ...skip]) {
    if (!scenarios.some((s) => s.steps.some((step) => step.id === id))) {
      throw new UsageError(`no scenario has a step "${id}"`);
    }
  }
  const planned = scenarios.flatMap((scenario) => {
    const unselected = unselectedSteps(scenario, only, skip);
    return unselected ? [{ scenario, unselected }] : [];
  });

  await checkGrpcMethods(scenarios);

  const dispatcher = createDispatcher();
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const { signal, dispose } = runSignal(options.signal, options.concurrency ?? 1);
  try {
    await checkReachable(baseUrl, dispatcher);
    const env = options.env ?? process.env;
    const needsDiscovery =
      !options.grpc?.address && scenarios.some((s) => s.steps.some((step) => step.grpc && !step.grpc.address));
    const catalog = new OperationCatalog(baseUrl, dispatcher);
    const platform: Platform = {
      baseUrl,
      dispatcher,
      operations: await resolveOperations(scenarios, catalog, options.checkSchemas ?? true),
      catalog,
      checkSchemas: options.checkSchemas ?? true,
      grpc: {
        addresses: needsDiscovery
          ? await discoverGrpcAddresses(baseUrl, dispatcher)
          : fixedGrpcAddress(options.grpc?.address ?? defaultGrpcAddress),
        serviceKey: options.grpc?.serviceKey ?? (env.ORCHESTRATOR_SERVICE_API_KEY || devServiceKey),
      },
    };
    const emit = options.onEvent ?? (() => {});
    emit({ type: 'run-start', scenarios: planned.map((p) => p.scenario) });
    const results = await inParallel(planned, options.concurrency ?? 1, signal, ({ scenario, unselected }) =>
      runScenario(scenario, unselected, platform, env, emit, {
        continueOnError: options.continueOnError ?? false,
        signal,
      }),
    );
    const exitCode = signal.aborted
      ? exitCodes.interrupted
      : results.some((r) => r.status === 'unreachable')
        ? exitCodes.unreachable
        : results.some((r) => r.status === 'failed')
          ? exitCodes.failed
          : exitCodes.ok;
    return {
      scenarios: results,
      durationMs: elapsed(started),
      exitCode,
      ...(signal.aborted ? { interrupted: true } : {}),
    };
  } finally {
    dispose();
    // A step cut short by an interruption may still be waiting on its request.
    if (options.signal?.aborted) await dispatcher.destroy();
    else await dispatcher.close();
  }
}

async function resolveOperations(
  scenarios: Scenario[],
  catalog: OperationCatalog,
  checkSchemas: boolean,
): Promise<Map<string, Operation>> {
  const operations = new Map<string, Operation>();
  const problems: string[] = [];
  for (const scenario of scenarios) {
    for (const [index, step] of scenario.steps.entries()) {
      const service = /^\/v1\/(ol|cap|lms)\b/.exec(step.http?.path ?? '')?.[1];
      if (service && checkSchemas) await catalog.load(service); // for the reply's schema check; a platform without the document is not checked
      const name = step.http?.operation;
      if (name === undefined) continue;
      const at = ['steps', index, 'http', 'operation'];
      try {
        const found = operations.get(name) ?? (await catalog.find(name));
        if (!found) {
          problems.push(fileProblem(scenario, at, `${name}: no such operationId in ${catalog.documentPath(name)}`));
          continue;
        }
        operations.set(name, found);
        for (const param of placeholders(found.path).filter((p) => step.http?.params?.[p] === undefined)) {
          problems.push(fileProblem(scenario, at, `${name} (${found.path}) needs params.${param}`));
        }
      } catch (err) {
        if (err instanceof UnreachableError) throw err;
        problems.push(fileProblem(scenario, at, (err as Error).message));
      }
    }
  }
  if (problems.length > 0) throw new UsageError(problems.join('\n'));
  return operations;
}

async function checkGrpcMethods(scenarios: Scenario[]): Promise<void> {
  const problems: string[] = [];
  for (const scenario of scenarios) {
    for (const [index, step] of scenario.steps.entries()) {
      const problem = step.grpc && (await grpcMethodProblem(step.grpc.method));
      if (problem) problems.push(fileProblem(scenario, ['steps', index, 'grpc', 'method'], problem));
    }
  }
  if (problems.length > 0) throw new UsageError(problems.join('\n'));
}

function fileProblem(scenario: Scenario, path: Array<string | number>, message: string): string {
  const { line, column } = scenario.locate(path);
  return `${scenario.file}:${line}:${column}: ${message}`;
}

async function runScenario(
  scenario: Scenario,
  unselected: Map<string, string>,
  platform: Platform,
  env: Record<string, string | undefined>,
  emit: (event: RunEvent) => void,
  { continueOnError, signal }: { continueOnError: boolean; signal: AbortSignal },
): Promise<ScenarioResult> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  emit({ type: 'scenario-start', scenario });
  const steps: StepResult[] = [];
  let status: ScenarioResult['status'] = 'passed';
  /** A failure that ends the scenario happened. */
  let stopped = false;
  /** Steps that failed or were skipped for it, and why, for the steps that take values from them. */
  const notRun = new Map<string, string>();
  // An actor made by a step that --only left out cannot sign in: say so when it fails.
  const leftOut = [...unselected.values()].includes(notSelectedByOnly);
  const run = {
    ...startRun(
      scenario,
      platform,
      env,
      leftOut ? 'steps left out by --only may be the ones that create this account' : undefined,
    ),
    signal,
  };
  for (const step of scenario.steps) {
    const missing = [...dependenciesOf(step)].find((id) => notRun.has(id));
    const reason =
      unselected.get(step.id) ??
      (signal.aborted
        ? 'the run was interrupted'
        : stopped
          ? 'an earlier step failed'
          : missing
            ? `uses step ${missing}, which ${notRun.get(missing)}`
            : undefined);
    if (reason !== undefined) {
      const result: StepResult = { ...stepNames(step), status: 'skipped', durationMs: 0, attempts: 0, message: reason };
      steps.push(result);
      if (missing) notRun.set(step.id, 'did not run');
      emit({ type: 'step-end', scenario, result });
      continue;
    }
    emit({ type: 'step-start', scenario, step });
    const stepStarted = performance.now();
    const { result, unreachable } = await untilAborted(runStep(step, run), signal, () => ({
      result: {
        ...stepNames(step),
        status: 'skipped' as const,
        durationMs: elapsed(stepStarted),
        attempts: 0,
        message: 'interrupted while it ran',
      },
      unreachable: false,
    }));
    steps.push(result);
    emit({ type: 'step-end', scenario, result });
    if (result.status === 'failed') {
      status = unreachable ? 'unreachable' : 'failed';
      notRun.set(step.id, 'failed');
      stopped = unreachable || !(continueOnError || step.continueOnFail === true);
    }
  }
  const result: ScenarioResult = {
    name: scenario.name,
    file: scenario.file,
    ...(scenario.row ? { row: scenario.row } : {}),
    status: signal.aborted && status === 'passed' ? 'interrupted' : status,
    startedAt,
    durationMs: elapsed(started),
    steps,
  };
  emit({ type: 'scenario-end', scenario, result });
  return result;
}

/** Evaluates vars (env and generators) and then actors (vars too), once per run. */
function startRun(
  scenario: Scenario,
  platform: Platform,
  env: Record<string, string | undefined>,
  loginHint?: string,
): ScenarioRun {
  const context: ExpressionContext = { vars: {}, env, actors: {}, steps: {} };
  context.vars = evaluate(scenario.vars ?? {}, context) as Record<string, unknown>;
  context.actors = evaluate(scenario.actors ?? {}, context) as Record<string, unknown>;
  const sessions = new Map(
    Object.entries(context.actors as Record<string, Actor>).map(([name, actor]) => [
      name,
      new ActorSession(name, actor, platform.baseUrl, platform.dispatcher, loginHint),
    ]),
  );
  return { platform, context, sessions, startedAt: new Map() };
}

async function runStep(step: Step, run: ScenarioRun): Promise<{ result: StepResult; unreachable: boolean }> {
  const started = performance.now();
  run.startedAt.set(step.id, Date.now());
  const base = stepNames(step);
  let attempts = 0;
  let exchange: Exchange | undefined;
  try {
    if (step.wait !== undefined) {
      await sleep(parseDuration(step.wait), run.signal);
      return { result: { ...base, status: 'passed', durationMs: elapsed(started), attempts: 1 }, unreachable: false };
    }
    let untilMismatches: Mismatch[] = [];
    for (;;) {
      attempts += 1;
      exchange = await perform(step, run);
      if (!step.retry) break;
      const until = evaluateExpectation(step.retry.until, run.context)!;
      untilMismatches = checkExpectation(until, observed(exchange), exchange.statuses);
      if (untilMismatches.length === 0 || attempts >= step.retry.times) break;
      await sleep(parseDuration(step.retry.interval ?? '500ms'), run.signal);
    }
    const expectation = evaluateExpectation(step.expect, run.context);
    const mismatches = [
      ...untilMismatches.map((m) => ({ ...m, target: `retry until ${m.target}` })),
      ...checkExpectation(expectation, observed(exchange), exchange.statuses),
      ...(step.http && run.platform.checkSchemas && expectation?.schema !== false
        ? await schemaMismatches(step, exchange, run.platform)
        : []),
    ];
    const { status, headers, body } = exchange.response;
    const record: Record<string, unknown> = { status, headers, body };
    for (const [name, capture] of Object.entries(step.capture ?? {})) {
      const value = captured(record, capture, run.context);
      if (value !== undefined) record[name] = value;
      else
        mismatches.push({
          target: `capture ${name}`,
          expected: `a value at ${typeof capture === 'string' ? capture : `jmespath ${capture.jmespath}`}`,
          actual: undefined,
        });
    }
    run.context.steps[step.id] = record;
    const durationMs = elapsed(started);
    const shown = { request: redact(exchange.request), response: exchange.response };
    if (mismatches.length === 0) {
      return { result: { ...base, status: 'passed', durationMs, attempts, ...shown }, unreachable: false };
    }
    return { result: { ...base, status: 'failed', durationMs, attempts, ...shown, mismatches }, unreachable: false };
  } catch (err) {
    if (!(err instanceof Error)) throw err;
    const shown = err instanceof StepError ? err : exchange;
    const result: StepResult = {
      ...base,
      status: 'failed',
      durationMs: elapsed(started),
      attempts,
      message: err.message,
      ...(shown?.request ? { request: redact(shown.request) } : {}),
      ...(shown?.response ? { response: shown.response } : {}),
    };
    return { result, unreachable: err instanceof UnreachableError };
  }
}

/** The reply against the schema its operation documents for the status (in the live document). */
async function schemaMismatches(step: Step, exchange: Exchange, platform: Platform): Promise<Mismatch[]> {
  const { request, response } = exchange;
  if (!/json/i.test(response.headers['content-type'] ?? '')) return [];
  const name = step.http?.operation;
  const operation = name ? platform.operations.get(name) : await platform.catalog.match(request.method, request.url);
  if (!operation) return [];
  const problems = await platform.catalog.replyProblems(operation, response.status, response.body);
  if (problems.length === 0) return [];
  return [
    {
      target: 'schema',
      expected: `the ${response.status} reply ${operation.name} documents`,
      actual: problems.join('; '),
    },
  ];
}

function captured(record: Record<string, unknown>, capture: Capture, context: ExpressionContext): unknown {
  if (typeof capture === 'string') return getPath(record, parsePath(capture));
  return query(record, evaluateText(capture.jmespath, context));
}

/**
 * The run's own signal, aborted with the caller's. Each running scenario listens on it twice at most
 * (its step, and a wait inside the step), so it may have more listeners than the 10 at which Node warns
 * of a leak.
 */
function runSignal(outer: AbortSignal | undefined, concurrency: number) {
  const own = new AbortController();
  setMaxListeners(2 * concurrency + 1, own.signal);
  const abort = () => own.abort();
  if (outer?.aborted) abort();
  else outer?.addEventListener('abort', abort, { once: true });
  return { signal: own.signal, dispose: () => outer?.removeEventListener('abort', abort) };
}

/** Runs `work` over the items, at most `limit` at a time, in order; none starts once `signal` is aborted. */
async function inParallel<T, R>(
  items: T[],
  limit: number,
  signal: AbortSignal,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length && !signal.aborted) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results.filter((result) => result !== undefined);
}

/** The work's result, or `instead()` as soon as the signal is aborted (the work is left to end by itself). */
function untilAborted<R>(work: Promise<R>, signal: AbortSignal, instead: () => R): Promise<R> {
  if (signal.aborted) return Promise.resolve(instead());
  return new Promise((resolve) => {
    const abort = () => resolve(instead());
    signal.addEventListener('abort', abort, { once: true });
    void work.then((result) => {
      signal.removeEventListener('abort', abort);
      resolve(result);
    });
  });
}

const observed = (exchange: Exchange) => ({ ...exchange.response, durationMs: exchange.durationMs });

const stepNames = (step: Step) => ({ id: step.id, name: step.name ?? step.id });

const elapsed = (since: number) => Math.round(performance.now() - since);

/** Rules of a scenario file that a JSON Schema cannot express; each problem carries its path in the file. */
import { ExpressionError, referencesIn, type ExpressionRoot, type Reference } from './expressions.ts';
import { parsePath, type PathSegment } from './paths.ts';
import { queryProblem } from './query.ts';
import type { Issue } from '../yaml-file.ts';
import type { Actor, Expectation, HttpAction, ScenarioDocument, Step } from './types.ts';

export type { Issue } from '../yaml-file.ts';

export interface CheckOptions {
  env: Record<string, string | undefined>;
  /** Variables given on the command line: their values are not in the file. */
  commandLineVars: Set<string>;
}

/** What a step record offers to `${steps.<id>.…}` besides its captures. */
export const stepRecordFields = ['status', 'headers', 'body'] as const;
const actorFields = ['email', 'password', 'persona', 'centre'] as const;

interface Scope {
  roots: ExpressionRoot[];
  /** Steps that have run before the one being checked, by id. */
  earlier: Map<string, Step>;
}

/** What the file defines, for checking references. */
interface Known {
  vars: Record<string, unknown>;
  actors: Record<string, Actor>;
  stepIds: Set<string>;
  env: Record<string, string | undefined>;
}

export function checkScenario(scenario: ScenarioDocument, options: CheckOptions): Issue[] {
  const issues: Issue[] = [];
  const known: Known = {
    vars: scenario.vars ?? {},
    actors: scenario.actors ?? {},
    stepIds: new Set(scenario.steps.map((s) => s.id)),
    env: options.env,
  };
  const checkValue = (value: unknown, at: PathSegment[], scope: Scope, part?: 'key') => {
    for (const { reference, error, path } of expressionsIn(value, at)) {
      const message = error ?? referenceProblem(reference!, scope, known);
      if (message) issues.push({ path, message, ...(part ? { part } : {}) });
    }
  };

  const earlier = new Map<string, Step>();
  for (const [name, value] of Object.entries(scenario.vars ?? {})) {
    if (!options.commandLineVars.has(name)) checkValue(value, ['vars', name], { roots: ['env', 'gen'], earlier });
  }
  for (const [name, actor] of Object.entries(scenario.actors ?? {})) {
    checkValue(actor, ['actors', name], { roots: ['vars', 'env', 'gen'], earlier });
  }

  scenario.steps.forEach((step, index) => {
    const at: PathSegment[] = ['steps', index];
    const issue = (path: PathSegment[], message: string, part?: 'key') =>
      issues.push({ path: [...at, ...path], message, ...(part ? { part } : {}) });

    if (earlier.has(step.id)) issue(['id'], `duplicate step id "${step.id}"`);
    if (step.as !== undefined && !scenario.actors?.[step.as]) issue(['as'], `no actor named "${step.as}"`);
    if (step.wait !== undefined) {
      for (const field of ['as', 'expect', 'capture', 'retry'] as const) {
        if (step[field] !== undefined) issue([field], `a wait step takes no "${field}"`, 'key');
      }
    }
    for (const problem of step.http ? httpProblems(step.http) : []) {
      issue(['http', ...problem.path], problem.message, problem.part);
    }
    if (step.mail?.since !== undefined && step.mail.since !== step.id && !earlier.has(step.mail.since)) {
      issue(['mail', 'since'], `"${step.mail.since}" is not this step or an earlier one`);
    }
    if (step.event?.since !== undefined && step.event.since !== step.id && !earlier.has(step.event.since)) {
      issue(['event', 'since'], `"${step.event.since}" is not this step or an earlier one`);
    }
    const expectations: Array<[PathSegment[], Expectation | undefined]> = [
      [['expect'], step.expect],
      [['retry', 'until'], step.retry?.until],
    ];
    const scope: Scope = { roots: ['vars', 'steps', 'env', 'actors', 'gen'], earlier };
    for (const [base, expectation] of expectations) {
      for (const problem of expectationProblems(expectation)) issue([...base, ...problem.path], problem.message, 'key');
      // A query's expressions are in its key.
      for (const key of Object.keys(expectation?.jmespath ?? {}))
        checkValue(key, [...at, ...base, 'jmespath', key], scope, 'key');
    }
    for (const [name, capture] of Object.entries(step.capture ?? {})) {
      if ((stepRecordFields as readonly string[]).includes(name)) {
        issue(['capture', name], `capture name "${name}" is reserved (${stepRecordFields.join(', ')})`, 'key');
      }
      const problem =
        typeof capture === 'string' ? responsePathProblem(capture) : templateQueryProblem(capture.jmespath);
      if (problem) issue(['capture', name], problem);
    }
    const { http, grpc, mail, event, expect, retry, capture } = step;
    checkValue({ http, grpc, mail, event, expect, retry, capture }, at, scope);
    if (!earlier.has(step.id)) earlier.set(step.id, step);
  });
  return issues;
}

/** Problems of variables given on the command line; like the file's vars they use only env and gen. */
export function commandLineVarProblems(
  vars: Record<string, unknown>,
  env: Record<string, string | undefined>,
): string[] {
  const scope: Scope = { roots: ['env', 'gen'], earlier: new Map() };
  const known: Known = { vars: {}, actors: {}, stepIds: new Set(), env };
  return Object.entries(vars).flatMap(([name, value]) =>
    expressionsIn(value, [])
      .map(({ reference, error }) => error ?? referenceProblem(reference!, scope, known))
      .filter((problem) => problem !== undefined)
      .map((problem) => `variable ${name}: ${problem}`),
  );
}

function expressionsIn(value: unknown, at: PathSegment[]) {
  try {
    return referencesIn(value, at).map(({ reference, at: path }) => ({ reference, path, error: undefined }));
  } catch (err) {
    if (!(err instanceof ExpressionError)) throw err;
    // Report the first malformed expression; find which string holds it.
    return [{ reference: undefined, path: firstMalformed(value, at), error: err.message }];
  }
}

function firstMalformed(value: unknown, at: PathSegment[]): PathSegment[] {
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const path = [...at, Array.isArray(value) ? Number(key) : key];
      try {
        referencesIn(item, path);
      } catch {
        return firstMalformed(item, path);
      }
    }
  }
  return at;
}

function referenceProblem(reference: Reference, scope: Scope, known: Known): string | undefined {
  const text = `\${${reference.source}}`;
  if (!scope.roots.includes(reference.root)) {
    return `${text}: only ${scope.roots.join(', ')} can be used here`;
  }
  const [first, second] = reference.path.map(String);
  switch (reference.root) {
    case 'vars':
      return first! in known.vars ? undefined : `${text}: no variable "${first}" (vars or --var)`;
    case 'env':
      if (reference.path.length > 1) return `${text}: an environment variable has no fields`;
      return known.env[first!] === undefined ? `${text}: environment variable ${first} is not set` : undefined;
    case 'actors': {
      const actor = known.actors[first!];
      if (!actor) return `${text}: no actor named "${first}"`;
      if (!(actorFields as readonly string[]).includes(second ?? '') || reference.path.length !== 2) {
        return `${text}: an actor offers ${actorFields.join(', ')}`;
      }
      return actor[second as keyof typeof actor] === undefined ? `${text}: actor ${first} has no ${second}` : undefined;
    }
    case 'steps': {
      const step = scope.earlier.get(first!);
      if (!step) {
        return known.stepIds.has(first!)
          ? `${text}: step "${first}" has not run yet at this point`
          : `${text}: no step with id "${first}"`;
      }
      const offered = [...stepRecordFields, ...Object.keys(step.capture ?? {})];
      if (second !== undefined && !offered.includes(second)) {
        return `${text}: step "${first}" offers ${offered.join(', ')}`;
      }
      return undefined;
    }
    case 'gen':
      return undefined;
    case 'params':
      return `${text}: params exist only in the steps of a group`;
  }
}

type Problem = { path: PathSegment[]; message: string; part?: 'key' };

/** An http step names an operation, or a method and a path whose placeholders match `params`. */
function httpProblems({ operation, method, path, params }: HttpAction): Problem[] {
  if (operation !== undefined && (method !== undefined || path !== undefined)) {
    return [{ path: ['operation'], message: 'give either operation or method and path, not both', part: 'key' }];
  }
  if (operation === undefined && (method === undefined || path === undefined)) {
    return [{ path: [], message: 'an http step needs operation, or method and path' }];
  }
  if (path === undefined) return [];
  const names = placeholders(path);
  return [
    ...names
      .filter((name) => params?.[name] === undefined)
      .map((name) => ({ path: ['path'], message: `path parameter {${name}} has no value in params` })),
    ...Object.keys(params ?? {})
      .filter((name) => !names.includes(name))
      .map((name): Problem => ({ path: ['params', name], message: `path has no {${name}}`, part: 'key' })),
  ];
}

function expectationProblems(expectation: Expectation | undefined): Problem[] {
  const problems = bodyProblems(expectation?.body ?? {}, ['body']);
  for (const [name, matcher] of Object.entries(expectation?.headers ?? {})) {
    problems.push(...regexProblems(matcher, ['headers', name]));
  }
  for (const [expression, matcher] of Object.entries(expectation?.jmespath ?? {})) {
    const problem = templateQueryProblem(expression);
    if (problem) problems.push({ path: ['jmespath', expression], message: problem });
    problems.push(...regexProblems(matcher, ['jmespath', expression]));
  }
  return problems;
}

/** Paths and regexes of body matchers, and of the item matchers of a `some`, at `at`. */
function bodyProblems(body: Record<string, unknown>, at: PathSegment[]): Problem[] {
  const problems: Problem[] = [];
  for (const [key, matcher] of Object.entries(body)) {
    try {
      parsePath(key);
    } catch (err) {
      problems.push({ path: [...at, key], message: (err as Error).message });
    }
    problems.push(...regexProblems(matcher, [...at, key]));
    const { some } = (matcher ?? {}) as { some?: unknown };
    if (some !== null && typeof some === 'object')
      problems.push(...bodyProblems(some as Record<string, unknown>, [...at, key, 'some']));
  }
  return problems;
}

/** A query with expressions in it is checked when they have values, at run time. */
const templateQueryProblem = (expression: string) => (expression.includes('${') ? undefined : queryProblem(expression));

function regexProblems(matcher: unknown, path: PathSegment[]): Problem[] {
  const regex = (matcher as { regex?: unknown } | null)?.regex;
  if (typeof regex !== 'string' || regex.includes('${')) return [];
  try {
    new RegExp(regex);
    return [];
  } catch (err) {
    return [{ path, message: `invalid regex: ${(err as Error).message}` }];
  }
}

/** Captures read the step's response: `status`, `headers.<name>` or `body.<path>`. */
function responsePathProblem(text: string): string | undefined {
  try {
    const [first] = parsePath(text);
    if (!(stepRecordFields as readonly PathSegment[]).includes(first!)) {
      return `"${text}" must start with ${stepRecordFields.join(', ')}`;
    }
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

export function placeholders(path: string): string[] {
  return [...path.matchAll(/(?<!\$)\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]!);
}

/** Checks a response against an expectation; every failed part is reported as expected vs actual. */
import { isDeepStrictEqual } from 'node:util';
import { parseDuration } from './duration.ts';
import { getPath, parsePath } from './paths.ts';
import { query } from './query.ts';
import { matcherKeywords } from './schema.ts';
import type { Expectation } from './types.ts';

export interface Mismatch {
  /** What was checked: `status`, `code` or `body <path>`. */
  target: string;
  expected: string;
  actual: unknown;
}

export interface Observed {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
  /** How long the action took, in ms. */
  durationMs?: number;
}

/** Which statuses count as a success and which as an error, for one kind of step. */
export interface StatusRules {
  success: StatusRule;
  error: StatusRule;
}

export interface StatusRule {
  test: (status: number) => boolean;
  description: string;
}

/**
 * `expectation` must already have its expressions evaluated. Without a status, the step must succeed,
 * or answer an error when the expectation names an error code.
 */
export function checkExpectation(
  expectation: Expectation | undefined,
  observed: Observed,
  statuses: StatusRules,
): Mismatch[] {
  const mismatches: Mismatch[] = [];
  const status = expectation?.status;
  if (status === undefined) {
    const rule = expectation?.code === undefined ? statuses.success : statuses.error;
    if (!rule.test(observed.status)) {
      mismatches.push({ target: 'status', expected: rule.description, actual: observed.status });
    }
  } else if (!(Array.isArray(status) ? status : [status]).includes(observed.status)) {
    mismatches.push({ target: 'status', expected: JSON.stringify(status), actual: observed.status });
  }
  if (expectation?.code !== undefined) {
    const code = getPath(observed.body, ['error', 'code']);
    if (code !== expectation.code) {
      mismatches.push({ target: 'code', expected: JSON.stringify(expectation.code), actual: code });
    }
  }
  for (const [name, matcher] of Object.entries(expectation?.headers ?? {})) {
    const actual = observed.headers?.[name.toLowerCase()];
    const failed = matchFailure(matcher, actual);
    if (failed) mismatches.push({ target: `header ${name.toLowerCase()}`, expected: failed, actual });
  }
  if (expectation?.maxDuration !== undefined && observed.durationMs !== undefined) {
    const max = parseDuration(expectation.maxDuration);
    if (observed.durationMs > max) {
      mismatches.push({ target: 'duration', expected: `at most ${max} ms`, actual: `${observed.durationMs} ms` });
    }
  }
  for (const [path, matcher] of Object.entries(expectation?.body ?? {})) {
    const actual = getPath(observed.body, parsePath(path));
    const failed = matchFailure(matcher, actual);
    if (failed) mismatches.push({ target: `body ${path}`, expected: failed, actual });
  }
  for (const [expression, matcher] of Object.entries(expectation?.jmespath ?? {})) {
    const actual = query(observed.body, expression);
    const failed = matchFailure(matcher, actual);
    if (failed) mismatches.push({ target: `jmespath ${expression}`, expected: failed, actual });
  }
  return mismatches;
}

interface MatcherObject {
  type?: string;
  regex?: string;
  present?: boolean;
  length?: number;
  minLength?: number;
  equals?: unknown;
  some?: Record<string, unknown>;
}

/** An object whose keys are all matcher keywords is a matcher; anything else is compared for equality. */
export function isMatcherObject(value: unknown): value is MatcherObject {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((k) => (matcherKeywords as readonly string[]).includes(k));
}

/** Undefined when the value matches; otherwise a description of what was expected. */
export function matchFailure(matcher: unknown, actual: unknown): string | undefined {
  if (!isMatcherObject(matcher)) {
    return isDeepStrictEqual(matcher, actual) ? undefined : JSON.stringify(matcher);
  }
  const failures: string[] = [];
  const { type, regex, present, length, minLength } = matcher;
  if (type !== undefined && typeOf(actual) !== type) failures.push(`type ${type}`);
  if (regex !== undefined && !(typeof actual === 'string' && new RegExp(regex).test(actual))) {
    failures.push(`a string matching /${regex}/`);
  }
  if (present !== undefined && (actual !== undefined) !== present) failures.push(present ? 'present' : 'absent');
  if (length !== undefined && sizeOf(actual) !== length) failures.push(`length ${length}`);
  if (minLength !== undefined && !((sizeOf(actual) ?? -1) >= minLength)) failures.push(`length >= ${minLength}`);
  if ('equals' in matcher && !isDeepStrictEqual(matcher.equals, actual)) failures.push(JSON.stringify(matcher.equals));
  if (
    matcher.some !== undefined &&
    !(Array.isArray(actual) && actual.some((item) => itemMatches(matcher.some!, item)))
  ) {
    failures.push(`an item with ${JSON.stringify(matcher.some)}`);
  }
  return failures.length > 0 ? failures.join(', ') : undefined;
}

/** Whether every path of `paths` in `item` matches its matcher. */
function itemMatches(paths: Record<string, unknown>, item: unknown): boolean {
  return Object.entries(paths).every(
    ([path, matcher]) => matchFailure(matcher, getPath(item, parsePath(path))) === undefined,
  );
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function sizeOf(value: unknown): number | undefined {
  return typeof value === 'string' || Array.isArray(value) ? value.length : undefined;
}

/**
 * Expressions inside strings: `${vars.x}`, `${steps.login.body.data.accessToken}`, `${env.HOME}`,
 * `${actors.alice.email}`, `${gen.email}`. A string that is exactly one expression takes the value's own
 * type; otherwise values are interpolated as text. `$${` writes a literal `${`.
 */
import { generators } from './generators.ts';
import { getPath, parsePath, type PathSegment } from './paths.ts';

/** `params` exists only inside a step group (replaced when the group is used, see groups.ts). */
export const expressionRoots = ['vars', 'steps', 'env', 'actors', 'gen', 'params'] as const;
export type ExpressionRoot = (typeof expressionRoots)[number];

export interface Reference {
  root: ExpressionRoot;
  /** The path after the root, e.g. `['login', 'body', 'data']` for `steps.login.body.data`. */
  path: PathSegment[];
  source: string;
}

type Part = string | Reference;

export class ExpressionError extends Error {
  override name = 'ExpressionError';
}

/** Values an expression can read. */
export interface ExpressionContext {
  vars: Record<string, unknown>;
  env: Record<string, string | undefined>;
  actors: Record<string, unknown>;
  steps: Record<string, unknown>;
}

/** Splits a string into literal text and references; throws ExpressionError on a malformed expression. */
export function parseTemplate(text: string): Part[] {
  const parts: Part[] = [];
  let literal = '';
  let i = 0;
  while (i < text.length) {
    if (text.startsWith('$${', i)) {
      literal += '${';
      i += 3;
    } else if (text.startsWith('${', i)) {
      const end = text.indexOf('}', i);
      if (end < 0) throw new ExpressionError(`unclosed expression in "${text}"`);
      if (literal) parts.push(literal);
      literal = '';
      parts.push(parseReference(text.slice(i + 2, end).trim()));
      i = end + 1;
    } else {
      literal += text[i];
      i += 1;
    }
  }
  if (literal || parts.length === 0) parts.push(literal);
  return parts;
}

function parseReference(source: string): Reference {
  let segments: PathSegment[];
  try {
    segments = parsePath(source);
  } catch {
    throw new ExpressionError(`malformed expression "\${${source}}"`);
  }
  const [root, ...path] = segments;
  if (!expressionRoots.includes(root as ExpressionRoot)) {
    throw new ExpressionError(
      `unknown expression root "${String(root)}" in "\${${source}}" (use ${expressionRoots.join(', ')})`,
    );
  }
  if (path.length === 0) throw new ExpressionError(`"\${${source}}" names no value under ${String(root)}`);
  if (root === 'gen' && (path.length !== 1 || !(String(path[0]) in generators))) {
    throw new ExpressionError(
      `unknown generator "\${${source}}" (use ${Object.keys(generators)
        .map((g) => `gen.${g}`)
        .join(', ')})`,
    );
  }
  return { root: root as ExpressionRoot, path, source };
}

/** Every reference in the strings of a value, with the path of the string that holds it. */
export function referencesIn(
  value: unknown,
  at: PathSegment[] = [],
): Array<{ reference: Reference; at: PathSegment[] }> {
  if (typeof value === 'string') {
    return parseTemplate(value)
      .filter((part): part is Reference => typeof part !== 'string')
      .map((reference) => ({ reference, at }));
  }
  if (Array.isArray(value)) return value.flatMap((item, i) => referencesIn(item, [...at, i]));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => referencesIn(item, [...at, key]));
  }
  return [];
}

/** Resolves every string inside a value (objects and arrays are copied). */
export function evaluate(value: unknown, context: ExpressionContext): unknown {
  if (typeof value === 'string') return evaluateString(value, context);
  if (Array.isArray(value)) return value.map((item) => evaluate(item, context));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, evaluate(item, context)]));
  }
  return value;
}

/** A string with its expressions written in as text, whatever their types (a query, a key). */
export function evaluateText(text: string, context: ExpressionContext): string {
  return parseTemplate(text)
    .map((part) => (typeof part === 'string' ? part : asText(read(part, context))))
    .join('');
}

/** An expectation with its expressions resolved, the keys of its JMESPath queries included. */
export function evaluateExpectation<T extends { jmespath?: Record<string, unknown> }>(
  expectation: T | undefined,
  context: ExpressionContext,
): T | undefined {
  const evaluated = evaluate(expectation, context) as T | undefined;
  if (!evaluated?.jmespath) return evaluated;
  const jmespath = Object.fromEntries(
    Object.entries(evaluated.jmespath).map(([key, value]) => [evaluateText(key, context), value]),
  );
  return { ...evaluated, jmespath };
}

function evaluateString(text: string, context: ExpressionContext): unknown {
  const parts = parseTemplate(text);
  if (parts.length === 1 && typeof parts[0] !== 'string') return read(parts[0]!, context);
  return parts.map((part) => (typeof part === 'string' ? part : asText(read(part, context)))).join('');
}

function read(reference: Reference, context: ExpressionContext): unknown {
  if (reference.root === 'gen') return generators[String(reference.path[0])]!();
  if (reference.root === 'params') throw new ExpressionError(`\${${reference.source}} is used outside a group`);
  const value = getPath(context[reference.root], reference.path);
  if (value === undefined) {
    throw new ExpressionError(`\${${reference.source}} has no value`);
  }
  return value;
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

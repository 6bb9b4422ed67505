/**
 * Reads a YAML file that a JSON Schema describes (scenarios, seeds): every problem, of the YAML, of the
 * schema or of the caller's own rules, is reported at its file, line and column before anything runs.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import jsYaml from 'js-yaml';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { UsageError } from './output.ts';
import { formatPath, type PathSegment } from './scenarios/paths.ts';

/**
 * The validator of a file's schema, with the `hint` and `oneOfHint` keywords its problems are worded by
 * (below). Compiled once per capctl process, for a few files: without ajv's meta-schema check (that
 * compiled the meta-schema too; test/capctl/file-schemas.test.ts checks the schemas instead) or code
 * optimisation.
 */
export function compileFileSchema<T>(schema: object): ValidateFunction<T> {
  const ajv = new Ajv2020({
    allErrors: true,
    verbose: true,
    strictTypes: false,
    validateSchema: false,
    code: { optimize: false },
  });
  ajv.addVocabulary(['hint', 'oneOfHint']);
  return ajv.compile<T>(schema);
}

export interface Position {
  line: number;
  column: number;
}

/** A problem at a path of the file's data. */
export interface Issue {
  path: PathSegment[];
  /** Point at the key rather than the value (unknown or misnamed fields). */
  part?: 'key' | 'value';
  message: string;
}

export class YamlFileError extends UsageError {
  override name = 'YamlFileError';
  constructor(
    readonly file: string,
    readonly problems: Array<{ position: Position; message: string }>,
  ) {
    super(problems.map((p) => `${file}:${p.position.line}:${p.position.column}: ${p.message}`).join('\n'));
  }
}

export interface YamlFile<T> {
  data: T;
  /** The position of the value (or key) at a path of the data. */
  locate(path: ReadonlyArray<PathSegment>, part?: 'key' | 'value'): Position;
  /** Throws the issues as one error, sorted by position. */
  fail(issues: Issue[]): never;
}

/**
 * Parses `text`, checks it against `validate`, and returns the data with a way to locate paths in it.
 * `ErrorClass` lets callers throw their own subclass. A schema may give readable messages with the
 * `hint` keyword, and for a `oneOf` with `oneOfHint: {none, many}`.
 */
export function parseYamlFile<T>(
  text: string,
  file: string,
  validate: ValidateFunction<T>,
  ErrorClass: new (file: string, problems: YamlFileError['problems']) => YamlFileError = YamlFileError,
): YamlFile<T> {
  // The data is read by js-yaml, several times faster than building yaml's document (which keeps every
  // node's place); that document is built only to place a problem. A file js-yaml refuses, or one
  // with aliases (yaml bounds how far they expand), is read by yaml alone, which reports its mistakes.
  let parsed: { doc: Document; lineCounter: LineCounter } | undefined;
  const document = () => {
    if (!parsed) {
      const lineCounter = new LineCounter();
      parsed = { doc: parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true }), lineCounter };
    }
    return parsed;
  };
  const at = (offset: number): Position => {
    const { line, col } = document().lineCounter.linePos(offset);
    return { line: Math.max(line, 1), column: col };
  };
  let data = aliases.test(text) ? undefined : quickly(text);
  if (data === undefined) {
    const { doc } = document();
    if (doc.errors.length > 0) throw new ErrorClass(file, [syntaxProblem(doc.errors, text, at)]);
    data = doc.toJS({ maxAliasCount: 100 });
  }
  const locate = (path: ReadonlyArray<PathSegment>, part: 'key' | 'value' = 'value') =>
    at(offsetOf(document().doc, path, part));
  const fail = (issues: Issue[]): never => {
    throw new ErrorClass(
      file,
      issues
        .map((i) => ({ position: locate(i.path, i.part), message: withPath(i) }))
        .sort((a, b) => a.position.line - b.position.line || a.position.column - b.position.column),
    );
  };
  if (!validate(data)) fail(schemaIssues(validate.errors ?? []));
  return { data: data as T, locate, fail };
}

/** An alias (`*name`) where a value can start: such a file is read by yaml. Text that merely looks like one costs only speed. */
const aliases = /(^|[\s[{,:-])\*[^\s,[\]{}]/m;

/** The data of a file js-yaml reads without a mistake (YAML 1.2's core schema, as yaml's default), else undefined. */
function quickly(text: string): unknown {
  try {
    return jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA }) ?? undefined;
  } catch {
    return undefined;
  }
}

/** Turns Ajv's errors into one readable issue per problem. */
function schemaIssues(errors: ErrorObject[]): Issue[] {
  // A failed anyOf/oneOf says it all: drop the errors of its branches (and propertyNames' wrapper error).
  const groups = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const inBranch = (e: ErrorObject) => groups.some((g) => e.schemaPath.startsWith(`${g.schemaPath}/`));
  const kept = errors.filter((e) => e.keyword !== 'if' && e.keyword !== 'propertyNames' && !inBranch(e));
  const issues = kept.map(toIssue);
  return issues.filter(
    (issue, i) => issues.findIndex((o) => o.message === issue.message && samePath(o.path, issue.path)) === i,
  );
}

function toIssue(error: ErrorObject): Issue {
  const path = pointerToPath(error.instancePath);
  const hint = (error.parentSchema as { hint?: string } | undefined)?.hint;
  const params = error.params as Record<string, unknown>;
  if (error.propertyName !== undefined) {
    return {
      path: [...path, error.propertyName],
      part: 'key',
      message: `name "${error.propertyName}" ${hint ?? error.message}`,
    };
  }
  switch (error.keyword) {
    case 'additionalProperties': {
      const field = String(params.additionalProperty);
      const known = Object.keys((error.parentSchema as { properties?: object }).properties ?? {});
      const allowed = known.length > 0 ? ` (expected one of: ${known.join(', ')})` : '';
      return { path: [...path, field], part: 'key', message: `unknown field${allowed}` };
    }
    case 'required':
      return { path, message: `missing field "${String(params.missingProperty)}"` };
    case 'oneOf': {
      const hints = (error.parentSchema as { oneOfHint?: { none: string; many: string } } | undefined)?.oneOfHint;
      const many = Boolean(params.passingSchemas);
      return {
        path,
        message: hints
          ? many
            ? hints.many
            : hints.none
          : many
            ? 'matches more than one of its forms'
            : 'matches none of its forms',
      };
    }
    case 'enum':
      return { path, message: `must be one of: ${(params.allowedValues as unknown[]).join(', ')}` };
    case 'type':
      return { path, message: hint ?? `must be ${article(String(params.type))}` };
    default:
      return { path, message: `${hint ?? error.message}` };
  }
}

/** `string,number` -> `a string or a number`. */
function article(type: string): string {
  const names = type.split(',').map((n) => (n === 'null' ? 'null' : /^[aeiou]/.test(n) ? `an ${n}` : `a ${n}`));
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

function pointerToPath(pointer: string): PathSegment[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

const samePath = (a: readonly PathSegment[], b: readonly PathSegment[]) =>
  a.length === b.length && a.every((s, i) => String(s) === String(b[i]));

/** Offset of the node at a path (its key or its value), or of the deepest node that exists. */
function offsetOf(doc: Document, path: ReadonlyArray<PathSegment>, part: 'key' | 'value'): number {
  let node = doc.contents as Node | null;
  let offset = node?.range?.[0] ?? 0;
  for (const [i, segment] of path.entries()) {
    let key: Node | null = null;
    let value: Node | null = null;
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment));
      if (!pair) break;
      key = pair.key as Node;
      value = pair.value as Node | null;
    } else if (isSeq(node) && typeof segment === 'number') {
      value = (node.items[segment] as Node | undefined) ?? null;
      if (!value) break;
    } else {
      break;
    }
    const last = i === path.length - 1;
    const chosen = last && part === 'key' && key ? key : (value ?? key);
    offset = chosen?.range?.[0] ?? offset;
    node = value;
  }
  return offset;
}

/**
 * A YAML syntax mistake as one problem: the first error, since the parser's later ones follow from it
 * (one unquoted `[` in a flow mapping yields hundreds), with a hint for the usual cause.
 */
function syntaxProblem(errors: Document['errors'], text: string, at: (offset: number) => Position) {
  const [first] = errors;
  const position = at(first!.pos[0]);
  const line = text.split('\n')[position.line - 1] ?? '';
  const hint = /[{[]/.test(line)
    ? '; inside { } or [ ], quote a value that contains { } [ ] , : # or starts with ${ (e.g. "${steps.a.id}", "data[0].id")'
    : '';
  const more =
    errors.length > 1
      ? ` (${errors.length - 1} more error${errors.length > 2 ? 's' : ''} after it, most likely from this one)`
      : '';
  return { position, message: `YAML syntax: ${firstLine(first!.message)}${hint}${more}` };
}

const withPath = (issue: Issue) =>
  issue.path.length > 0 ? `${formatPath(issue.path)}: ${issue.message}` : issue.message;

const firstLine = (message: string) => message.split('\n')[0]!;

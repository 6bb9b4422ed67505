/**
 * Bi-directional contract checking: every HTTP interaction of a pact against the provider's OpenAPI
 * document. The operation and its response status must be documented; the example request of an
 * interaction that succeeds must be one the document accepts, and the example response one it allows
 * (short of the fields the pact leaves out); and the response the pact expects
 * must ask no more than the document promises: every field it pins is a documented property, every value
 * it gives is of a kind the schema allows, and in a list (which may hold items the provider state did not
 * make) every matcher accepts every kind of value the schema allows there: a field the document lets be
 * null must not be matched as a string, and a field the document marks optional must not be required of
 * a list's items. (Outside lists, what the provider state made may be narrower than the document: a state
 * that completes an onboarding makes its optional fields present.)
 */
import fs from 'node:fs';
import {
  loadApiDocument,
  type ApiDocument,
  type JsonSchema,
  type Operation,
} from '../../server/platform/http/openapi.ts';
import { compileOperation, toDetails } from '../../server/platform/http/validation.ts';

type Kind = 'string' | 'number' | 'boolean' | 'object' | 'array' | 'null';
type Segment = string | number | '*';

interface Rule {
  segments: Segment[];
  /** The matchers at this path; with `any`, a value passes when one of them accepts it (Pact's OR). */
  matches: string[];
  any: boolean;
}

interface PactInteraction {
  type?: string;
  description: string;
  request?: { method: string; path: string; body?: { content?: unknown } };
  response?: {
    status: number;
    body?: { content?: unknown };
    matchingRules?: { body?: Record<string, { combine?: string; matchers: Array<{ match: string }> }> };
  };
}

export interface InteractionProblem {
  description: string;
  problems: string[];
}

/** The problems of every HTTP interaction of a pact file whose provider is one of our services. */
export async function checkPactAgainstOpenApi(
  file: string,
  documents: (service: string) => Promise<ApiDocument> = cachedDocument,
): Promise<InteractionProblem[]> {
  const pact = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    provider: { name: string };
    interactions: PactInteraction[];
  };
  const service = pact.provider.name;
  const doc = await documents(service);
  const found: InteractionProblem[] = [];
  for (const interaction of pact.interactions) {
    if (!interaction.request || !interaction.response) continue; // messages are not in the OpenAPI documents
    const problems = checkInteraction(service, doc, interaction);
    if (problems.length > 0) found.push({ description: interaction.description, problems });
  }
  return found;
}

const documents = new Map<string, Promise<ApiDocument>>();
const cachedDocument = (service: string) => {
  if (!documents.has(service)) documents.set(service, loadApiDocument(service));
  return documents.get(service)!;
};

function checkInteraction(service: string, doc: ApiDocument, interaction: PactInteraction): string[] {
  const { request, response } = interaction as Required<PactInteraction>;
  const operation = findOperation(service, doc, request.method, request.path);
  if (!operation) return [`${request.method} ${request.path} is not an operation of openapi/${service}.yaml`];
  const where = `${operation.operationId} (${operation.method.toUpperCase()} ${operation.path})`;
  const documented = operation.responses[String(response.status)];
  if (!documented) return [`${where} documents no ${response.status} response`];
  const validators = compileOperation(operation);
  const problems: string[] = [];
  // The example request of an interaction that succeeds is one the document accepts (one that fails
  // may be malformed on purpose).
  const sent = request.body?.content;
  if (
    response.status < 400 &&
    sent !== undefined &&
    typeof sent === 'object' &&
    validators.body &&
    !validators.body(sent)
  ) {
    problems.push(
      ...toDetails(validators.body.errors, 'body').map((d) => `${where}: the example request ${d.field} ${d.issue}`),
    );
  }
  const body = response.body?.content;
  if (body === undefined) return problems;
  const schema = documented.content?.['application/json']?.schema;
  if (!schema) return [...problems, `${where}: the ${response.status} response documents no JSON body`];
  // The example response is one the document allows (as the development-mode server checks its replies),
  // short of fields it leaves out: a pact pins only what its consumer reads.
  const reply = compileOperation(withoutRequired(operation)).reply(String(response.status));
  if (reply && !reply(body))
    problems.push(
      ...toDetails(reply.errors, 'body').map(
        (d) => `${where} ${response.status}: the example response ${d.field} ${d.issue}`,
      ),
    );
  const rules = Object.entries(response.matchingRules?.body ?? {}).map(([path, { combine, matchers }]) => ({
    segments: parseRulePath(path),
    matches: matchers.map((m) => m.match),
    any: combine === 'OR',
  }));
  return [
    ...problems,
    ...checkValue(body, schema, [], rules).map((problem) => `${where} ${response.status}: ${problem}`),
  ];
}

/** The documented operation serving a gateway path (`/v1/<service>/...`), the most literal one first. */
function findOperation(service: string, doc: ApiDocument, method: string, gatewayPath: string): Operation | undefined {
  const prefix = `/v1/${service}`;
  if (!gatewayPath.startsWith(`${prefix}/`)) return undefined;
  const path = gatewayPath.slice(prefix.length).split('?')[0]!;
  const candidates = doc.operations.filter(
    (op) => op.method === method.toLowerCase() && templateRegex(op.path).test(path),
  );
  return candidates.sort((a, b) => params(a.path) - params(b.path))[0];
}

const params = (template: string) => (template.match(/\{/g) ?? []).length;
const templateRegex = (template: string) =>
  new RegExp(`^${template.replace(/[.+^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);

function parseRulePath(path: string): Segment[] {
  const segments: Segment[] = [];
  for (const m of path.slice(1).matchAll(/\.([^.[\]]+)|\[(\d+|\*)\]|\['([^']+)'\]/g)) {
    if (m[1] !== undefined) segments.push(m[1] === '*' ? '*' : m[1]);
    else if (m[2] !== undefined) segments.push(m[2] === '*' ? '*' : Number(m[2]));
    else segments.push(m[3]!);
  }
  return segments;
}

const segmentMatches = (rule: Segment, actual: Segment) => rule === '*' || rule === actual;
const matchesPath = (rule: Segment[], path: Segment[]) =>
  rule.length === path.length && rule.every((s, i) => segmentMatches(s, path[i]!));

/**
 * What the pact asks of the value at `path`: its own matcher (most specific rule), else a type matcher
 * inherited from an ancestor (Pact applies type matching to the children of a value matched by type),
 * else equality with the example.
 */
function matcherAt(path: Segment[], rules: Rule[]): { matches: string[]; any: boolean } {
  const own = rules.filter((r) => matchesPath(r.segments, path));
  if (own.length > 0) return own.sort((a, b) => stars(a) - stars(b))[0]!;
  for (let n = path.length - 1; n >= 0; n--) {
    const ancestor = rules.filter((r) => matchesPath(r.segments, path.slice(0, n)));
    if (ancestor.some((r) => r.matches.includes('type'))) return { matches: ['type'], any: false };
  }
  return { matches: ['equality'], any: false };
}

/** The kinds of value the path's matchers accept together (all of them, or with OR any), or undefined when unknown. */
function acceptedAt(matcher: { matches: string[]; any: boolean }, example: unknown): Set<Kind> | undefined {
  const sets = matcher.matches.map((match) => accepted(match, example));
  if (sets.some((set) => set === undefined)) return undefined;
  const kinds = sets as Array<Set<Kind>>;
  if (matcher.any) return new Set(kinds.flatMap((set) => [...set]));
  return new Set([...kinds[0]!].filter((kind) => kinds.every((set) => set.has(kind))));
}

const stars = (rule: Rule) => rule.segments.filter((s) => s === '*').length;

function kindOf(value: unknown): Kind {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value as Kind;
}

/** The kinds of value a matcher accepts, given its example. */
function accepted(match: string, example: unknown): Set<Kind> | undefined {
  switch (match) {
    case 'type':
    case 'equality':
      return new Set([kindOf(example)]);
    case 'regex':
    case 'datetime':
    case 'date':
    case 'time':
    case 'timestamp':
    case 'include':
      return new Set(['string']);
    case 'integer':
    case 'decimal':
    case 'number':
      return new Set(['number']);
    case 'boolean':
      return new Set(['boolean']);
    case 'null':
      return new Set(['null']);
    default:
      return undefined; // a matcher we do not judge
  }
}

/** allOf merged into one schema (properties, required and the rest). */
function merged(schema: JsonSchema): JsonSchema {
  const parts = schema.allOf as JsonSchema[] | undefined;
  if (!parts) return schema;
  const { allOf: _, ...own } = schema;
  return [own, ...parts.map(merged)].reduce<JsonSchema>(
    (all, part) => ({
      ...all,
      ...part,
      properties: { ...(all.properties as object), ...(part.properties as object) },
      required: [...((all.required as string[]) ?? []), ...((part.required as string[]) ?? [])],
    }),
    {},
  );
}

/** The alternatives of a schema (oneOf/anyOf branches, each merged), or the schema itself. */
function branches(schema: JsonSchema): JsonSchema[] {
  const s = merged(schema);
  const alternatives = (s.oneOf ?? s.anyOf) as JsonSchema[] | undefined;
  if (!alternatives) return [s];
  const { oneOf: _o, anyOf: _a, ...rest } = s;
  return alternatives.flatMap((branch) => branches({ ...rest, ...branch }));
}

/** Every kind of value the schema allows, or undefined when it does not say. */
function kinds(schema: JsonSchema): Set<Kind> | undefined {
  const all = new Set<Kind>();
  for (const branch of branches(schema)) {
    if ('const' in branch) all.add(kindOf(branch.const));
    else if (Array.isArray(branch.enum)) for (const value of branch.enum) all.add(kindOf(value));
    else if (branch.type !== undefined) {
      for (const type of [branch.type].flat() as string[]) all.add(type === 'integer' ? 'number' : (type as Kind));
    } else if (branch.properties) all.add('object');
    else if (branch.items) all.add('array');
    else return undefined;
  }
  return all;
}

const show = (path: Segment[]) => `$${path.map((s) => (typeof s === 'number' ? `[${s}]` : `.${s}`)).join('')}`;

/** Why the pact's expectation of this value asks more than the schema promises (empty: it does not). */
function checkValue(value: unknown, schema: JsonSchema, path: Segment[], rules: Rule[]): string[] {
  const matcher = matcherAt(path, rules);
  const allowed = kinds(schema);
  const problems: string[] = [];
  const kind = kindOf(value);
  if (allowed && !allowed.has(kind))
    return [
      `${show(path)}: the pact gives ${kind === 'null' ? 'null' : `a ${kind}`}, the document allows ${[...allowed].join(' or ')}`,
    ];
  const takes = acceptedAt(matcher, value);
  const equality = matcher.matches.length === 1 && matcher.matches[0] === 'equality';
  // A list matched by type (eachLike) may hold any number of items, some the provider state did not make
  // (others' data, what earlier scenarios left): what it pins of an item must hold for any item the
  // document allows. A value elsewhere is what the request and state made, so its kind may be narrower.
  const inList = inTypedList(path, rules);
  if (allowed && takes && !equality && inList) {
    const missed = [...allowed].filter((k) => !takes.has(k));
    if (missed.length > 0)
      problems.push(
        `${show(path)}: the document allows ${missed.join(' or ')} here, the pact's ${matcher.matches.join('/')} matcher accepts only ${[...takes].join(' or ')}`,
      );
  }
  if (kind !== 'object' && kind !== 'array') return problems;
  // Of the alternatives of this kind, the one that fits best decides.
  const candidates = branches(schema).filter((b) => !kinds(b) || kinds(b)!.has(kind));
  if (candidates.length === 0) return problems;
  const outcomes = candidates.map((branch) =>
    kind === 'object'
      ? checkObject(value as Record<string, unknown>, branch, path, rules)
      : checkArray(value as unknown[], branch, path, rules),
  );
  return [...problems, ...outcomes.sort((a, b) => fit(a) - fit(b))[0]!];
}

/** Whether the value is in a list matched by type (eachLike), whose items may be any the provider holds. */
const inTypedList = (path: Segment[], rules: Rule[]) =>
  path.some((s, i) => typeof s === 'number' && matcherAt(path.slice(0, i), rules).matches.includes('type'));

/** How badly a branch fits (lower is better): a field it lacks or a kind it refuses counts more than a field it leaves optional. */
const fit = (problems: string[]) => problems.reduce((sum, p) => sum + (p.endsWith(optional) ? 1 : 1000), 0);
const optional = 'the pact requires a field the document marks optional';

/** The schema with its `then` applied when the value meets its `if` (constants, enums and required fields only). */
function conditional(schema: JsonSchema, value: Record<string, unknown>): JsonSchema {
  const condition = schema.if as JsonSchema | undefined;
  if (!condition || !schema.then) return schema;
  const consts = Object.entries((condition.properties ?? {}) as Record<string, JsonSchema>).every(([key, s]) =>
    'const' in s ? value[key] === s.const : Array.isArray(s.enum) ? s.enum.includes(value[key]) : true,
  );
  const present = ((condition.required as string[] | undefined) ?? []).every((key) => key in value);
  return consts && present ? merged({ allOf: [schema, schema.then as JsonSchema] }) : schema;
}

function checkObject(
  value: Record<string, unknown>,
  unconditional: JsonSchema,
  path: Segment[],
  rules: Rule[],
): string[] {
  const schema = conditional(unconditional, value);
  // A free-form object (no properties listed): what is in it is what the request or state put there.
  if (!schema.properties && schema.additionalProperties === undefined) return [];
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const extra = schema.additionalProperties;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const problems: string[] = [];
  for (const [key, child] of Object.entries(value)) {
    const at = [...path, key];
    if (properties[key]) {
      // An item of a list may be one the provider state did not make: what the pact pins of it, every item must have.
      if (!required.has(key) && inTypedList(at, rules)) problems.push(`${show(at)}: ${optional}`);
      problems.push(...checkValue(child, properties[key]!, at, rules));
    } else if (extra && typeof extra === 'object') {
      problems.push(...checkValue(child, extra as JsonSchema, at, rules));
    } else if (extra !== true) {
      problems.push(`${show(at)}: the pact requires a field the document does not have`);
    }
  }
  return problems;
}

function checkArray(value: unknown[], schema: JsonSchema, path: Segment[], rules: Rule[]): string[] {
  const items = schema.items as JsonSchema | undefined;
  if (!items) return [];
  return value.flatMap((item, i) => checkValue(item, items, [...path, i], rules));
}

/** The operation with `required` dropped from its response schemas. */
function withoutRequired(operation: Operation): Operation {
  const seen = new Map<object, unknown>();
  const strip = (value: unknown): unknown => {
    if (value === null || typeof value !== 'object') return value;
    if (seen.has(value)) return seen.get(value);
    const copy: Record<string, unknown> | unknown[] = Array.isArray(value) ? [] : {};
    seen.set(value, copy);
    for (const [key, child] of Object.entries(value)) {
      if (key === 'required' && Array.isArray(child)) continue;
      (copy as Record<string, unknown>)[key] = strip(child);
    }
    return copy;
  };
  return { ...operation, responses: strip(operation.responses) as Operation['responses'] };
}

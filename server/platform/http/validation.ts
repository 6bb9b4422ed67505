import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FieldDetail } from './errors.ts';
import type { JsonSchema, Operation } from './openapi.ts';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => void;

/**
 * What each validator does: bodies are typed JSON and must match exactly; path, query and header
 * values arrive as strings; a request's errors are all named to the client, while a reply's check only
 * has to find one and writes no defaults into what it checks. A query parameter the operation does
 * not document is dropped (its schema says `additionalProperties: false`): a client may send it, and
 * no handler ever sees it.
 */
const uses = {
  body: { allErrors: true, coerceTypes: false, useDefaults: true },
  strings: { allErrors: true, coerceTypes: 'array', useDefaults: true, removeAdditional: true },
  reply: { allErrors: false, coerceTypes: false, useDefaults: false },
} as const;

/**
 * In a request, `format: uri` is a link a client may render: `https://` and a host (`http://` too in
 * development mode, whose links are local), with no space or control character. Anything else,
 * `javascript:`, `data:` and `vbscript:` included, is refused by the one check all fields share.
 */
function isLink(value: string, allowHttp: boolean): boolean {
  if (!(allowHttp ? /^https?:\/\//i : /^https:\/\//i).test(value) || /[\s\u0000-\u001f\u007f]/.test(value))
    return false;
  try {
    return new URL(value).hostname !== '';
  } catch {
    return false;
  }
}

function createAjv(use: keyof typeof uses, devMode: boolean): Ajv2020 {
  // strict: false because OpenAPI adds keywords (example, discriminator, ...) that JSON Schema does not know.
  // Schemas are not checked against the meta-schema here, which compiled the meta-schema itself in
  // every process: test/platform/openapi-documents.test.ts checks them once. A reply's check (made in
  // development mode only) skips ajv's code optimisation, a third of its compile.
  const ajv = new Ajv2020({
    ...uses[use],
    strict: false,
    validateSchema: false,
    ...(use === 'reply' ? { code: { optimize: false } } : {}),
  });
  addFormats(ajv);
  // Replies keep the standard meaning of uri: they hold the server's own links.
  if (use !== 'reply') ajv.addFormat('uri', { type: 'string', validate: (value: string) => isLink(value, devMode) });
  return ajv;
}

const ajvs = new Map<string, { ajv: Ajv2020; compiled: Map<string, ValidateFunction> }>();
/**
 * Compiles a schema with the validator instance of its use and mode (made when first needed: a
 * production server never makes the development ones). A schema compiled before, as the same text,
 * is not compiled again: most operations share their error replies and parameter sets, and every
 * platform started in a process (a replica, a test file's second platform) shares the first one's.
 */
const compile = (use: keyof typeof uses, devMode: boolean, schema: JsonSchema): ValidateFunction => {
  const key = `${use}:${use === 'reply' ? '' : devMode}`;
  let entry = ajvs.get(key);
  if (!entry) ajvs.set(key, (entry = { ajv: createAjv(use, devMode), compiled: new Map() }));
  const text = JSON.stringify(schema);
  let check = entry.compiled.get(text);
  if (!check) entry.compiled.set(text, (check = entry.ajv.compile(schema)));
  return check;
};

export type Location = 'path' | 'query' | 'header' | 'body';

export interface OperationValidators {
  path: ValidateFunction;
  query: ValidateFunction;
  header: ValidateFunction;
  body?: ValidateFunction;
  bodyRequired: boolean;
  /**
   * The check of a reply with this status (else the document's `default`), compiled on first use (a
   * production server never checks replies): null where no JSON schema is given, undefined where the
   * document describes neither.
   */
  reply(status: string): ValidateFunction | null | undefined;
}

/** Compiles the request and response validators of one documented operation (request links as in production unless `devMode`). */
export function compileOperation(op: Operation, { devMode = false }: { devMode?: boolean } = {}): OperationValidators {
  const group = (where: 'path' | 'query' | 'header') => {
    const params = op.parameters.filter((p) => p.in === where);
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const p of params) {
      const name = where === 'header' ? p.name.toLowerCase() : p.name;
      properties[name] = p.schema ?? {};
      if (p.required || where === 'path') required.push(name);
    }
    const documentedOnly = where === 'query' ? { additionalProperties: false } : {};
    return compile('strings', devMode, { type: 'object', properties, required, ...documentedOnly });
  };
  const jsonBody = op.requestBody?.content['application/json']?.schema;
  const replies = new Map<string, ValidateFunction | null>();
  const reply = (status: string) => {
    const described = op.responses[status] ? status : op.responses.default ? 'default' : undefined;
    if (described === undefined) return undefined;
    let check = replies.get(described);
    if (check === undefined) {
      const schema = op.responses[described]!.content?.['application/json']?.schema;
      replies.set(described, (check = schema ? compile('reply', devMode, schema) : null));
    }
    return check;
  };
  return {
    path: group('path'),
    query: group('query'),
    header: group('header'),
    body: jsonBody ? compile('body', devMode, jsonBody) : undefined,
    bodyRequired: Boolean(op.requestBody?.required),
    reply,
  };
}

/** Turns Ajv's errors into the envelope's `details`: a dotted field path and an issue a person can read. */
export function toDetails(errors: ErrorObject[] | null | undefined, location: Location): FieldDetail[] {
  const details: FieldDetail[] = [];
  for (const e of errors ?? []) {
    const segments = e.instancePath
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    let issue = e.message ?? 'is not valid';
    if (e.keyword === 'required') {
      segments.push(String(e.params.missingProperty));
      issue = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      segments.push(String(e.params.additionalProperty));
      issue = 'is not a known field';
    } else if (e.keyword === 'enum') {
      issue = `must be one of: ${(e.params.allowedValues as unknown[]).join(', ')}`;
    } else if (e.keyword === 'format') {
      issue =
        e.params.format === 'uri' ? 'must be a web link (https://...)' : `must be a valid ${String(e.params.format)}`;
    } else if (e.keyword === 'if' || e.keyword === 'oneOf' || e.keyword === 'anyOf') {
      continue; // the branch errors beside it say what is wrong
    }
    const dotted = segments.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
    // A problem of the whole body (or parameter set) is named by its location.
    const field = location === 'body' ? dotted || 'body' : [location, dotted].filter(Boolean).join('.');
    // The branches of an anyOf ("a date, or blank") each refuse the value: name the field once.
    const sameField = (d: FieldDetail) => d.field === field;
    if (e.schemaPath.includes('/anyOf/') && details.some(sameField)) continue;
    if (!details.some((d) => sameField(d) && d.issue === issue)) {
      details.push({ field, issue });
    }
  }
  return details.length ? details : [{ field: location, issue: 'is not valid' }];
}

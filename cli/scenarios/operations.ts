/**
 * The services' live OpenAPI documents (`/v1/<service>/openapi.json`): `service.operationId` to a method
 * and a gateway path, a request to its operation, and the operation's documented reply schemas, which
 * the runner checks every reply against.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { createHash } from 'node:crypto';
import type { Agent } from 'undici';
import { isSuccess, send } from './http.ts';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => void;

type Responses = Record<string, { content?: Record<string, { schema?: object }> } | undefined>;

export interface Operation {
  /** `cap.getMe` */
  name: string;
  method: string;
  /** Gateway path with `{name}` placeholders, e.g. `/v1/cap/applications/{id}`. */
  path: string;
  responses: Responses;
}

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** A service's document as read: its operations, and the reply checks compiled from it so far. */
interface ReadDocument {
  operations: Map<string, Operation>;
  checks: Map<string, ValidateFunction | null>;
  ajv: Ajv2020;
}

/**
 * Documents read by earlier runs in this process, by service and text: a run reads each document
 * again (the platform may have changed), but dereferencing it and compiling its reply checks is done
 * once per text, not once per run (the CAP document is 2.4 MB). The last few are kept.
 */
const readBefore = new Map<string, ReadDocument>();
const keptDocuments = 6;

export class OperationCatalog {
  private readonly services = new Map<string, Promise<ReadDocument>>();

  constructor(
    private readonly baseUrl: string,
    private readonly dispatcher: Agent,
  ) {}

  /** The operation, or undefined when the service's document has no such operationId. */
  async find(operation: string): Promise<Operation | undefined> {
    const [service, operationId] = operation.split('.') as [string, string];
    return (await this.document(service)).operations.get(operationId);
  }

  /**
   * The documented operation a request goes to (`GET /v1/cap/centres/01J...`), if any. Only the
   * documents loaded before the run are searched (see `load`): a document that could not be read
   * leaves its service's requests unmatched.
   */
  async match(method: string, url: string): Promise<Operation | undefined> {
    const path = new URL(url).pathname;
    const service = /^\/v1\/(ol|cap|lms)\//.exec(path)?.[1];
    const loaded = service ? await this.services.get(service)?.catch(() => undefined) : undefined;
    if (!loaded) return undefined;
    const candidates = [...loaded.operations.values()].filter((op) => op.method === method && matches(op.path, path));
    // A literal segment wins over a placeholder (`/centre/staff/summary` over `/centre/staff/{id}`).
    return candidates.sort((a, b) => literalSegments(b.path) - literalSegments(a.path))[0];
  }

  /** Where the document of an operation's service is served, e.g. `/v1/cap/openapi.json`. */
  documentPath(operation: string): string {
    return `/v1/${operation.split('.')[0]}/openapi.json`;
  }

  /**
   * Why a reply does not match what the operation documents for its status (else `default`), as one
   * line per problem; empty when it matches or the document gives no JSON schema for it.
   */
  async replyProblems(operation: Operation, status: number, body: unknown): Promise<string[]> {
    const described = operation.responses[String(status)]
      ? String(status)
      : operation.responses[`${String(status)[0]}XX`]
        ? `${String(status)[0]}XX`
        : 'default';
    const response = operation.responses[described];
    if (Object.keys(operation.responses).length === 0) return []; // a document that describes no replies
    if (!response) {
      return [`status ${status} is not documented (documented: ${Object.keys(operation.responses).join(', ')})`];
    }
    const { checks, ajv } = await this.document(operation.name.split('.')[0]!);
    const key = `${operation.name} ${described}`;
    let check = checks.get(key);
    if (check === undefined) {
      const schema = response.content?.['application/json']?.schema;
      checks.set(key, (check = schema ? ajv.compile(schema) : null));
    }
    if (!check || check(body)) return [];
    return describeErrors(check.errors ?? []);
  }

  /** Reads a service's document now, so that requests by path can be matched during the run; false when it cannot be read. */
  async load(service: string): Promise<boolean> {
    return this.document(service).then(
      () => true,
      () => false,
    );
  }

  private document(service: string): Promise<ReadDocument> {
    let document = this.services.get(service);
    if (!document) {
      document = this.read(service);
      this.services.set(service, document);
    }
    return document;
  }

  private async read(service: string): Promise<ReadDocument> {
    const url = `${this.baseUrl}${this.documentPath(service)}`;
    const res = await send({ method: 'GET', url, headers: { accept: 'application/json' } }, this.dispatcher);
    if (!isSuccess(res.status) || !(res.body as { paths?: unknown })?.paths)
      throw new Error(`cannot read ${url} (status ${res.status})`);
    const key = `${service} ${createHash('sha256').update(JSON.stringify(res.body)).digest('base64')}`;
    let document = readBefore.get(key);
    if (!document) {
      // strict: false because OpenAPI adds keywords (example, discriminator, ...) that JSON Schema does not know
      const ajv = new Ajv2020({ allErrors: true, strict: false });
      addFormats(ajv);
      document = { operations: await operationsOf(service, res.body as object), checks: new Map(), ajv };
      if (readBefore.size >= keptDocuments) readBefore.delete(readBefore.keys().next().value!);
    }
    readBefore.delete(key);
    readBefore.set(key, document);
    return document;
  }
}

async function operationsOf(service: string, body: object): Promise<Map<string, Operation>> {
  const prefix = `/v1/${service}`;
  const { default: $RefParser } = await import('@apidevtools/json-schema-ref-parser');
  const document = (await $RefParser.dereference(body)) as {
    paths: Record<string, Record<string, { operationId?: string; responses?: Responses }>>;
  };
  const operations = new Map<string, Operation>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, definition] of Object.entries(item)) {
      if (methods.includes(method) && definition?.operationId) {
        operations.set(definition.operationId, {
          name: `${service}.${definition.operationId}`,
          method: method.toUpperCase(),
          path: `${prefix}${path}`,
          responses: definition.responses ?? {},
        });
      }
    }
  }
  return operations;
}

function matches(template: string, path: string): boolean {
  const a = template.split('/');
  const b = path.replace(/\/+$/, '').split('/');
  return (
    a.length === b.length && a.every((segment, i) => (/^\{[^}]+\}$/.test(segment) ? b[i] !== '' : segment === b[i]))
  );
}

const literalSegments = (template: string) => template.split('/').filter((s) => !s.startsWith('{')).length;

/** `data[0].email: must be string`, at most five. */
function describeErrors(errors: ErrorObject[]): string[] {
  const lines = errors
    .filter((e) => !['if', 'anyOf', 'oneOf', 'allOf'].includes(e.keyword) || errors.length === 1)
    .map((e) => {
      const at = e.instancePath
        .split('/')
        .slice(1)
        .map((s, i) =>
          /^\d+$/.test(s) ? `[${s}]` : `${i === 0 ? '' : '.'}${s.replace(/~1/g, '/').replace(/~0/g, '~')}`,
        )
        .join('');
      const detail =
        e.keyword === 'additionalProperties'
          ? `has a field the document does not: ${String(e.params.additionalProperty)}`
          : e.keyword === 'required'
            ? `lacks the required field ${String(e.params.missingProperty)}`
            : e.keyword === 'enum'
              ? `must be one of: ${(e.params.allowedValues as unknown[]).join(', ')}`
              : (e.message ?? 'is not valid');
      return `${at || 'body'}: ${detail}`;
    });
  const unique = [...new Set(lines)];
  return unique.length > 5 ? [...unique.slice(0, 5), `and ${unique.length - 5} more`] : unique;
}

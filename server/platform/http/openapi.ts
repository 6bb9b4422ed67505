import $RefParser from '@apidevtools/json-schema-ref-parser';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

export const openapiDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../openapi');

export type JsonSchema = Record<string, unknown>;

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: JsonSchema;
}

export interface Operation {
  operationId: string;
  tags: string[];
  method: string;
  /** Path as written in the document, e.g. `/centre/staff/{id}`. */
  path: string;
  parameters: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: JsonSchema }> };
  responses: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
  security?: Array<Record<string, string[]>>;
}

export interface ApiDocument {
  /** The document as served at `<prefix>/openapi.json`: one file, shared components pulled in. */
  bundled: Record<string, unknown>;
  operations: Operation[];
}

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Loads `openapi/<service>.yaml` (or a document file) with the shared components it references. */
export async function loadApiDocument(serviceOrFile: string): Promise<ApiDocument> {
  const service = path.basename(serviceOrFile, '.yaml');
  const file = serviceOrFile.endsWith('.yaml') ? serviceOrFile : path.join(openapiDir, `${service}.yaml`);
  const bundled = bundle(file);
  const resolved = (await $RefParser.dereference(structuredClone(bundled))) as {
    paths: Record<string, Record<string, unknown>>;
    security?: Array<Record<string, string[]>>;
  };
  const operations: Operation[] = [];
  for (const [p, item] of Object.entries(resolved.paths ?? {})) {
    const shared = (item.parameters as Parameter[] | undefined) ?? [];
    for (const method of methods) {
      const op = item[method] as Record<string, unknown> | undefined;
      if (!op) continue;
      if (typeof op.operationId !== 'string') throw new Error(`${service}.yaml: ${method.toUpperCase()} ${p} has no operationId`);
      const own = (op.parameters as Parameter[] | undefined) ?? [];
      operations.push({
        operationId: op.operationId,
        tags: (op.tags as string[] | undefined) ?? [],
        method,
        path: p,
        parameters: [...shared.filter((s) => !own.some((o) => o.name === s.name && o.in === s.in)), ...own],
        requestBody: op.requestBody as Operation['requestBody'],
        responses: (op.responses as Operation['responses']) ?? {},
        security: (op.security as Operation['security']) ?? resolved.security,
      });
    }
  }
  return { bundled, operations };
}

const sharedFile = '_shared.yaml';

/**
 * Makes one self-contained document: the shared file's components join the service's own (the
 * service wins on a name clash), references into the shared file become internal, and the shared
 * path items are copied in where they are referenced.
 */
function bundle(file: string): Record<string, unknown> {
  const doc = YAML.parse(fs.readFileSync(file, 'utf8')) as Record<string, any>;
  const sharedPath = path.join(openapiDir, sharedFile);
  const shared = YAML.parse(fs.readFileSync(sharedPath, 'utf8')) as Record<string, any>;
  const components: Record<string, any> = (doc.components ??= {});
  for (const [kind, entries] of Object.entries(shared.components ?? {})) {
    components[kind] = { ...(entries as object), ...(components[kind] ?? {}) };
  }
  const internalise = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(internalise);
    if (!node || typeof node !== 'object') return node;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && ref.includes(`${sharedFile}#`)) {
      const pointer = ref.slice(ref.indexOf('#'));
      if (pointer.startsWith('#/components/')) return { ...node, $ref: pointer };
      return internalise(resolvePointer(shared, pointer, ref)); // a shared path item: copied in whole
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, internalise(v)]));
  };
  return internalise(doc) as Record<string, unknown>;
}

function resolvePointer(root: unknown, pointer: string, ref: string): unknown {
  let node: any = root;
  for (const part of pointer.slice(2).split('/')) {
    node = node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (node === undefined) throw new Error(`unresolved reference ${ref}`);
  }
  return structuredClone(node);
}

/** `/centre/staff/{id}` -> `/centre/staff/:id` */
export function expressPath(openapiPath: string): string {
  return openapiPath.replace(/\{([^}]+)\}/g, ':$1');
}

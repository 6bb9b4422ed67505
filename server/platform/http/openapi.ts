import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compiledBuild, projectPath } from '../paths.ts';

export const openapiDir = projectPath('openapi');

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

/**
 * Loads `openapi/<service>.yaml` (or a document file) with the shared components it references and
 * the service's area files (`openapi/<service>/*.yaml`, see `bundle`). The compiled build carries each
 * service's document already loaded (`dist/openapi/<service>.json`, written by `writeCompiledDocuments`
 * when the build is made), which saves parsing and resolving the YAML at every start. The sources use
 * it too while the build is newer than every document file and this loader (`npm test` brings the
 * build up to date first): parsing the YAML is most of a test platform's start.
 */
export async function loadApiDocument(serviceOrFile: string): Promise<ApiDocument> {
  if (!serviceOrFile.endsWith('.yaml')) {
    const compiled = compiledDocumentPath(serviceOrFile);
    // Read without blocking: a start opens its database connections meanwhile.
    if (compiledBuild ? fs.existsSync(compiled) : compiledDocumentIsCurrent(compiled)) {
      return JSON.parse(await fs.promises.readFile(compiled, 'utf8')) as ApiDocument;
    }
  }
  const service = path.basename(serviceOrFile, '.yaml');
  const file = serviceOrFile.endsWith('.yaml') ? serviceOrFile : path.join(openapiDir, `${service}.yaml`);
  // Only the sources (and the build) read YAML: the compiled build starts without these modules.
  const [{ default: YAML }, { default: $RefParser }] = await Promise.all([
    import('yaml'),
    import('@apidevtools/json-schema-ref-parser'),
  ]);
  const bundled = bundle(file, YAML);
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
      if (typeof op.operationId !== 'string')
        throw new Error(`${service}.yaml: ${method.toUpperCase()} ${p} has no operationId`);
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

const compiledDocumentPath = (service: string) => projectPath('dist', 'openapi', `${service}.json`);

/** True when `compiled` exists and the build that wrote it began after the last change to openapi/ and this module. */
function compiledDocumentIsCurrent(compiled: string): boolean {
  // The build's stamp holds the time it began (bin/build.mjs): a file saved during the build counts as newer.
  const built = fs.statSync(projectPath('dist', '.built'), { throwIfNoEntry: false })?.mtimeMs;
  if (built === undefined || !fs.existsSync(compiled)) return false;
  const newest = (dir: string): number =>
    Math.max(
      0,
      ...fs.readdirSync(dir, { withFileTypes: true }).map((entry) => {
        const file = path.join(dir, entry.name);
        return entry.isDirectory() ? newest(file) : fs.statSync(file).mtimeMs;
      }),
    );
  return built >= Math.max(newest(openapiDir), fs.statSync(fileURLToPath(import.meta.url)).mtimeMs);
}

/** Writes every service's loaded document into the build (called by bin/build.mjs after compiling). */
export async function writeCompiledDocuments(services: readonly string[]): Promise<void> {
  fs.mkdirSync(projectPath('dist', 'openapi'), { recursive: true });
  for (const service of services) {
    const document = await loadApiDocument(path.join(openapiDir, `${service}.yaml`));
    fs.writeFileSync(compiledDocumentPath(service), JSON.stringify(document));
  }
}

const sharedFile = '_shared.yaml';

/**
 * Makes one self-contained document: the service's area files (`openapi/<service>/<area>.yaml`, each
 * with its own `tags`, `paths` and `components`) join the root document, where a path or a component
 * defined twice is an error; the shared file's components join too (the service wins on a name
 * clash), references into the shared file become internal, and the shared path items are copied in
 * where they are referenced. Area files refer to the merged document's components as `#/components/...`.
 */
function bundle(file: string, YAML: typeof import('yaml')): Record<string, unknown> {
  const doc = YAML.parse(fs.readFileSync(file, 'utf8')) as Record<string, any>;
  for (const area of areaFiles(file))
    mergeArea(doc, YAML.parse(fs.readFileSync(area, 'utf8')) ?? {}, path.relative(openapiDir, area));
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

/** `openapi/cap.yaml` -> the `.yaml` files of `openapi/cap/`, in name order (none is fine). */
function areaFiles(rootFile: string): string[] {
  const dir = rootFile.slice(0, -'.yaml'.length);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => path.join(dir, f));
}

function mergeArea(doc: Record<string, any>, area: Record<string, any>, name: string): void {
  const unknown = Object.keys(area).filter((k) => !['tags', 'paths', 'components'].includes(k));
  if (unknown.length)
    throw new Error(`${name}: an area file holds only tags, paths and components, not ${unknown.join(', ')}`);
  doc.tags = [...(doc.tags ?? []), ...(area.tags ?? [])];
  const paths: Record<string, any> = (doc.paths ??= {});
  for (const [p, item] of Object.entries(area.paths ?? {})) {
    if (paths[p]) throw new Error(`${name}: path ${p} is already defined`);
    paths[p] = item;
  }
  const components: Record<string, any> = (doc.components ??= {});
  for (const [kind, entries] of Object.entries(area.components ?? {})) {
    const into: Record<string, any> = (components[kind] ??= {});
    for (const [key, value] of Object.entries(entries as object)) {
      if (into[key]) throw new Error(`${name}: components.${kind}.${key} is already defined`);
      into[key] = value;
    }
  }
}

function resolvePointer(root: unknown, pointer: string, ref: string): unknown {
  let node: any = root;
  for (const part of pointer.slice(2).split('/')) {
    node = node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (node === undefined) throw new Error(`unresolved reference ${ref}`);
  }
  return structuredClone(node);
}

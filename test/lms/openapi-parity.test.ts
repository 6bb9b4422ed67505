import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import $RefParser from '@apidevtools/json-schema-ref-parser';
import YAML from 'yaml';
import { loadApiDocument, type Operation } from '../../server/platform/http/openapi.ts';

// Our served LMS document against the LMS service's own description (../shared/reference/lms/
// lms-openapi.json): a client generated from that description must work against our server unchanged.
// Every difference the comparison finds must be listed, with its reason, in
// test/fixtures/lms-parity-allowlist.yaml; so must every operation of the description not built yet.
const referenceFile = path.resolve('../shared/reference/lms/lms-openapi.json');
const allowListFile = path.resolve('test/fixtures/lms-parity-allowlist.yaml');

type Schema = {
  type?: string | string[];
  enum?: unknown[];
  required?: string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
};
interface ReferenceOperation {
  operationId: string;
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: Schema }>;
  requestBody?: { required?: boolean; content: Record<string, { schema?: Schema }> };
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}
interface AllowList {
  /** Status codes any of our operations may document beyond the description's, with why. */
  extraStatusCodes: { codes: string[]; reason: string };
  differences: Array<{ operation: string; difference: string; reason: string }>;
  notBuiltYet: Array<{ operation: string; reason: string }>;
}

const methods = ['get', 'put', 'post', 'delete', 'patch'];
/** Our own operations the description does not have: health, this document, development tools. */
const ownTags = new Set(['Platform', 'Dev']);

async function load() {
  if (!fs.existsSync(referenceFile)) return undefined;
  const reference = (await $RefParser.dereference(JSON.parse(fs.readFileSync(referenceFile, 'utf8')))) as {
    paths: Record<string, Record<string, ReferenceOperation>>;
  };
  const theirs = new Map<string, ReferenceOperation>();
  for (const [p, item] of Object.entries(reference.paths))
    for (const m of methods) if (item[m]) theirs.set(`${m.toUpperCase()} ${p}`, item[m]);
  const ours = new Map<string, Operation>();
  for (const op of (await loadApiDocument('lms')).operations)
    if (!op.tags.some((tag) => ownTags.has(tag))) ours.set(`${op.method.toUpperCase()} ${op.path}`, op);
  const allowList = YAML.parse(fs.readFileSync(allowListFile, 'utf8')) as AllowList;
  return { theirs, ours, allowList };
}

/** One schema with its allOf parts merged; oneOf/anyOf kept as alternatives (a `null` alternative dropped). */
function flatten(schema: Schema | undefined): Schema {
  if (!schema) return {};
  const alternatives = (schema.oneOf ?? schema.anyOf)?.filter((s) => s.type !== 'null');
  if (alternatives?.length === 1) return flatten({ ...schema, oneOf: undefined, anyOf: undefined, ...alternatives[0] });
  const merged: Schema = {
    ...schema,
    allOf: undefined,
    properties: { ...schema.properties },
    required: [...(schema.required ?? [])],
  };
  for (const part of schema.allOf ?? []) {
    const flat = flatten(part);
    Object.assign(merged.properties!, flat.properties);
    merged.required!.push(...(flat.required ?? []));
    merged.enum ??= flat.enum;
    merged.items ??= flat.items;
    merged.type ??= flat.type;
  }
  return merged;
}

const sorted = (values: unknown[] | undefined) => JSON.stringify([...(values ?? [])].map(String).sort());
const baseType = (schema: Schema) =>
  [schema.type ?? 'any']
    .flat()
    .filter((t) => t !== 'null')
    .join('|');

/** The differences between two schemas: field names, required fields and enum values, recursively. */
function compareSchemas(
  where: string,
  oursRaw: Schema | undefined,
  theirsRaw: Schema | undefined,
  depth = 0,
): string[] {
  const ours = flatten(oursRaw);
  const theirs = flatten(theirsRaw);
  const found: string[] = [];
  if ((theirs.enum || ours.enum) && sorted(ours.enum) !== sorted(theirs.enum))
    found.push(`${where}: enum ${sorted(ours.enum)} (description: ${sorted(theirs.enum)})`);
  const ourAlternatives = ours.oneOf ?? ours.anyOf;
  const theirAlternatives = theirs.oneOf ?? theirs.anyOf;
  if ((ourAlternatives?.length ?? 0) !== (theirAlternatives?.length ?? 0)) {
    found.push(
      `${where}: ${ourAlternatives?.length ?? 0} alternatives (description: ${theirAlternatives?.length ?? 0})`,
    );
  }
  if (depth > 6) return found;
  const ourRequired = new Set(ours.required);
  const theirRequired = new Set(theirs.required);
  for (const field of theirRequired)
    if (!ourRequired.has(field)) found.push(`${where}.${field}: not required (description: required)`);
  for (const field of ourRequired)
    if (!theirRequired.has(field)) found.push(`${where}.${field}: required (description: optional)`);
  const ourFields = Object.keys(ours.properties ?? {});
  const theirFields = Object.keys(theirs.properties ?? {});
  if (ourFields.length && theirFields.length) {
    for (const field of theirFields) if (!ourFields.includes(field)) found.push(`${where}.${field}: missing`);
    for (const field of ourFields)
      if (!theirFields.includes(field)) found.push(`${where}.${field}: not in the description`);
  }
  for (const field of ourFields.filter((f) => theirFields.includes(f))) {
    found.push(...compareSchemas(`${where}.${field}`, ours.properties![field], theirs.properties![field], depth + 1));
  }
  if (ours.items && theirs.items) found.push(...compareSchemas(`${where}[]`, ours.items, theirs.items, depth + 1));
  return found;
}

/** Every difference between our operation and the description's, as `<aspect>: <what differs>` lines. */
function compareOperation(ours: Operation, theirs: ReferenceOperation, extraCodes: Set<string>): string[] {
  const found: string[] = [];
  if (ours.operationId !== theirs.operationId)
    found.push(`operationId ${ours.operationId} (description: ${theirs.operationId})`);

  const key = (p: { in: string; name: string }) => `${p.in} parameter ${p.name}`;
  const theirParams = new Map((theirs.parameters ?? []).map((p) => [key(p), p]));
  const ourParams = new Map(ours.parameters.map((p) => [key(p), p]));
  for (const [name, theirParam] of theirParams) {
    const ourParam = ourParams.get(name);
    if (!ourParam) {
      found.push(`${name}: missing`);
      continue;
    }
    if (Boolean(ourParam.required) !== Boolean(theirParam.required))
      found.push(`${name}: required ${Boolean(ourParam.required)} (description: ${Boolean(theirParam.required)})`);
    const ourSchema = flatten(ourParam.schema as Schema);
    const theirSchema = flatten(theirParam.schema);
    if (baseType(ourSchema) !== baseType(theirSchema))
      found.push(`${name}: type ${baseType(ourSchema)} (description: ${baseType(theirSchema)})`);
    if ((ourSchema.enum || theirSchema.enum) && sorted(ourSchema.enum) !== sorted(theirSchema.enum))
      found.push(`${name}: enum ${sorted(ourSchema.enum)} (description: ${sorted(theirSchema.enum)})`);
  }
  for (const name of ourParams.keys()) if (!theirParams.has(name)) found.push(`${name}: not in the description`);

  const theirBody = theirs.requestBody?.content?.['application/json']?.schema;
  const ourBody = ours.requestBody?.content?.['application/json']?.schema as Schema | undefined;
  if (Boolean(theirBody) !== Boolean(ourBody))
    found.push(`request body: ${ourBody ? 'present' : 'absent'} (description: ${theirBody ? 'present' : 'absent'})`);
  else if (theirBody) found.push(...compareSchemas('request body', ourBody, theirBody));

  const ourCodes = Object.keys(ours.responses);
  const theirCodes = Object.keys(theirs.responses);
  for (const code of theirCodes) if (!ourCodes.includes(code)) found.push(`response ${code}: missing`);
  for (const code of ourCodes)
    if (!theirCodes.includes(code) && !extraCodes.has(code)) found.push(`response ${code}: not in the description`);
  for (const code of theirCodes.filter((c) => c.startsWith('2') && ourCodes.includes(c))) {
    const ourContent = ours.responses[code]!.content ?? {};
    const theirContent = theirs.responses[code]!.content ?? {};
    if (sorted(Object.keys(ourContent)) !== sorted(Object.keys(theirContent))) {
      found.push(
        `response ${code}: media types ${sorted(Object.keys(ourContent))} (description: ${sorted(Object.keys(theirContent))})`,
      );
    }
    const ourData = flatten(ourContent['application/json']?.schema as Schema | undefined).properties?.data;
    const theirData = flatten(theirContent['application/json']?.schema).properties?.data;
    if (theirData) found.push(...compareSchemas(`response ${code} data`, ourData, theirData));
  }
  return found;
}

test('every LMS operation we serve matches the description, but for the differences listed with their reason', async (t) => {
  const loaded = await load();
  if (!loaded) return t.pass(`${referenceFile} is absent; nothing to compare against`);
  const { theirs, ours, allowList } = loaded;
  const extraCodes = new Set(allowList.extraStatusCodes.codes);
  const allowed = new Set(allowList.differences.map((d) => `${d.operation} | ${d.difference}`));
  const seen = new Set<string>();
  const unexplained: string[] = [];
  for (const [where, op] of ours) {
    const reference = theirs.get(where);
    const differences = reference
      ? compareOperation(op, reference, extraCodes)
      : [`${where} is not in the description`];
    for (const difference of differences) {
      const entry = `${op.operationId} | ${difference}`;
      if (allowed.has(entry)) seen.add(entry);
      else unexplained.push(entry);
    }
  }
  t.deepEqual(unexplained, [], 'differences from the description that the allow-list does not explain');
  t.deepEqual(
    [...allowed].filter((entry) => !seen.has(entry)),
    [],
    'allow-list entries that no longer match a difference (remove them)',
  );
  t.true(
    allowList.differences.every((d) => d.reason?.trim()),
    'every allowed difference gives its reason',
  );
  const described = [...ours.keys()].filter((where) => theirs.has(where)).length;
  t.log(
    `${described} of ${theirs.size} operations of the description served, and ${ours.size - described} of our own beside them`,
  );
});

test('every operation of the description is served, except those listed as not built yet (and no listed one is served)', async (t) => {
  const loaded = await load();
  if (!loaded) return t.pass(`${referenceFile} is absent; nothing to compare against`);
  const { theirs, ours, allowList } = loaded;
  const notBuilt = new Set(allowList.notBuiltYet.map((entry) => entry.operation));
  const servedIds = new Set([...ours.values()].map((op) => op.operationId));
  const missing = [...theirs.values()]
    .map((op) => op.operationId)
    .filter((id) => !servedIds.has(id) && !notBuilt.has(id));
  t.deepEqual(missing, [], 'operations of the description neither served nor listed as not built yet');
  t.deepEqual(
    [...notBuilt].filter((id) => servedIds.has(id)),
    [],
    'operations listed as not built yet that are served (take them off the list)',
  );
  t.deepEqual(
    [...notBuilt].filter((id) => ![...theirs.values()].some((op) => op.operationId === id)),
    [],
    'listed operations that the description does not have',
  );
});

test('the comparison notices a changed parameter, enum, required field, status code and media type', async (t) => {
  const loaded = await load();
  if (!loaded) return t.pass(`${referenceFile} is absent; nothing to compare against`);
  const where = 'GET /onboarding/{persona}';
  const ours = structuredClone(loaded.ours.get(where)!);
  const theirs = loaded.theirs.get(where)!;
  t.deepEqual(compareOperation(ours, theirs, new Set(['401', '403', '422'])), []);
  ours.parameters[0]!.schema = { type: 'string', enum: ['learner'] };
  ours.parameters.push({ name: 'verbose', in: 'query', required: true, schema: { type: 'boolean' } });
  const data = (ours.responses['200']!.content!['application/json']!.schema as Schema).allOf![1]!.properties!
    .data as Schema;
  data.allOf![0]!.required = ['onboardingId'];
  ours.responses['200']!.content!['text/csv'] = {};
  ours.responses['409'] = {};
  t.deepEqual(compareOperation(ours, theirs, new Set(['401', '403', '422'])), [
    'path parameter persona: enum ["learner"] (description: ["instructor","learner","staff"])',
    'query parameter verbose: not in the description',
    'response 409: not in the description',
    'response 200: media types ["application/json","text/csv"] (description: ["application/json"])',
    'response 200 data.persona: not required (description: required)',
    'response 200 data.status: not required (description: required)',
    'response 200 data.createdAt: not required (description: required)',
  ]);
});

import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import $RefParser from '@apidevtools/json-schema-ref-parser';
import YAML from 'yaml';
import { loadApiDocument, openapiDir } from '../../server/platform/http/openapi.ts';

// Our LMS document against the LMS service's own (../shared/reference/lms/lms-openapi.json), so a
// client built on that document works against ours. CI clones have shared/ beside the repository.
const referenceFile = path.resolve('../shared/reference/lms/lms-openapi.json');
/** Operations of our own that the real LMS does not have: health, this document, development tools. */
const ownTags = new Set(['Platform', 'Dev']);

type Schema = { properties?: Record<string, unknown>; required?: string[]; enum?: unknown[]; type?: unknown };
interface Reference {
  paths: Record<string, Record<string, { operationId?: string; parameters?: Array<{ name: string; in: string }> }>>;
  components: { schemas: Record<string, Schema> };
}

function loadReference(): Reference | undefined {
  if (!fs.existsSync(referenceFile)) return undefined;
  return JSON.parse(fs.readFileSync(referenceFile, 'utf8')) as Reference;
}

test('every LMS operation we serve is in the LMS reference with the same method, path, operationId and parameters', async (t) => {
  const raw = loadReference();
  if (!raw) return t.pass(`${referenceFile} is absent; nothing to compare against`);
  const reference = (await $RefParser.dereference(raw)) as Reference;
  // Extensions of the description, each with its reason in the parity allow-list (lms/openapi-parity.test.ts).
  const allowList = YAML.parse(fs.readFileSync('test/fixtures/lms-parity-allowlist.yaml', 'utf8')) as {
    differences: Array<{ operation: string; difference: string }>;
  };
  const extensions = new Set(
    allowList.differences.filter((d) => d.difference.endsWith('is not in the description')).map((d) => d.operation),
  );
  const ours = (await loadApiDocument('lms')).operations.filter(
    (op) => !op.tags.some((tag) => ownTags.has(tag)) && !extensions.has(op.operationId),
  );
  t.true(ours.length > 0);
  for (const op of ours) {
    const theirs = reference.paths[op.path]?.[op.method];
    t.truthy(theirs, `${op.method.toUpperCase()} ${op.path} is not in the reference`);
    t.is(theirs?.operationId, op.operationId, `${op.method.toUpperCase()} ${op.path}`);
    const names = (params: Array<{ name: string; in: string }> = []) => params.map((p) => `${p.in}:${p.name}`).sort();
    t.deepEqual(names(op.parameters), names(theirs?.parameters), `parameters of ${op.operationId}`);
  }
});

test('every schema we share with the LMS reference has its field names, required fields and enum values', async (t) => {
  const reference = loadReference();
  if (!reference) return t.pass(`${referenceFile} is absent; nothing to compare against`);
  // The LMS document's own schemas; the envelopes shared by the three services are checked elsewhere.
  const ours = ((await loadApiDocument('lms')).bundled as { components: { schemas: Record<string, Schema> } })
    .components.schemas;
  const envelopes = (
    YAML.parse(fs.readFileSync(path.join(openapiDir, '_shared.yaml'), 'utf8')) as {
      components: { schemas: Record<string, Schema> };
    }
  ).components.schemas;
  const shared = Object.keys(ours).filter((name) => reference.components.schemas[name] && !envelopes[name]);
  t.true(shared.includes('LmsMe') && shared.includes('OnboardingSummary'));
  for (const name of shared) {
    const mine = ours[name]!;
    const theirs = reference.components.schemas[name]!;
    t.deepEqual(
      Object.keys(mine.properties ?? {}).sort(),
      Object.keys(theirs.properties ?? {}).sort(),
      `fields of ${name}`,
    );
    t.deepEqual([...(mine.required ?? [])].sort(), [...(theirs.required ?? [])].sort(), `required fields of ${name}`);
    t.deepEqual(mine.enum, theirs.enum, `enum of ${name}`);
    for (const [field, schema] of Object.entries(mine.properties ?? {}) as Array<[string, Schema]>) {
      t.deepEqual(schema.enum, (theirs.properties?.[field] as Schema | undefined)?.enum, `enum of ${name}.${field}`);
    }
  }
});

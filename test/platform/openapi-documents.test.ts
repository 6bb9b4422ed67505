import test from 'ava';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { serviceNames } from '../../server/platform/config.ts';
import { loadApiDocument } from '../../server/platform/http/openapi.ts';
import { compileOperation } from '../../server/platform/http/validation.ts';
import { Ajv2020 } from 'ajv/dist/2020.js';

// Validators are compiled on an operation's first request; this compiles them all, so a schema that
// does not compile fails here rather than on some later request.
for (const service of serviceNames) {
  test(`every request and response schema of ${service}.yaml compiles`, async (t) => {
    const doc = await loadApiDocument(service);
    t.true(doc.operations.length > 0);
    for (const op of doc.operations) t.notThrows(() => compileOperation(op), op.operationId);
  });

  // The platform compiles without checking schemas against the JSON Schema meta-schema (a cost paid in
  // every process), so it is checked here, once.
  test(`every schema of ${service}.yaml is valid JSON Schema 2020-12`, async (t) => {
    const meta = new Ajv2020({ strict: false });
    for (const op of (await loadApiDocument(service)).operations) {
      const schemas = [
        ...op.parameters.map((p) => p.schema),
        ...Object.values(op.requestBody?.content ?? {}).map((c) => c.schema),
        ...Object.values(op.responses).flatMap((r) => Object.values(r.content ?? {}).map((c) => c.schema)),
      ];
      for (const schema of schemas.filter(Boolean))
        t.true(meta.validateSchema(schema!), `${op.operationId}: ${meta.errorsText(meta.errors)}`);
    }
  });

  test(`every operationId of ${service}.yaml is unique`, async (t) => {
    const ids = (await loadApiDocument(service)).operations.map((op) => op.operationId);
    t.is(new Set(ids).size, ids.length);
  });
}

// A service's document is its root file plus its area files (openapi/<service>/*.yaml).
async function documentWithAreas(areas: Record<string, string>): Promise<Awaited<ReturnType<typeof loadApiDocument>>> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'openapi-'));
  await writeFile(
    path.join(dir, 'svc.yaml'),
    'openapi: 3.1.0\ninfo: { title: t, version: "1" }\ntags: [{ name: Root }]\npaths:\n  /a:\n    get: { operationId: getA, responses: { "200": { description: ok } } }\n',
  );
  await mkdir(path.join(dir, 'svc'));
  for (const [name, text] of Object.entries(areas)) await writeFile(path.join(dir, 'svc', name), text);
  return loadApiDocument(path.join(dir, 'svc.yaml'));
}

test('area files add their tags, paths and components to the service document', async (t) => {
  const doc = await documentWithAreas({
    'b.yaml':
      'tags: [{ name: B }]\npaths:\n  /b:\n    get: { operationId: getB, responses: { "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/B" } } } } } }\ncomponents:\n  schemas:\n    B: { type: string }\n',
  });
  t.deepEqual(
    doc.operations.map((o) => o.operationId),
    ['getA', 'getB'],
  );
  t.deepEqual(
    (doc.bundled.tags as Array<{ name: string }>).map((tag) => tag.name),
    ['Root', 'B'],
  );
});

test('a path or a component defined twice across area files is refused when the document loads', async (t) => {
  await t.throwsAsync(
    documentWithAreas({ 'b.yaml': 'paths:\n  /a:\n    post: { operationId: postA, responses: {} }\n' }),
    { message: /path \/a is already defined/ },
  );
  await t.throwsAsync(
    documentWithAreas({
      'b.yaml': 'components: { schemas: { X: { type: string } } }\n',
      'c.yaml': 'components: { schemas: { X: { type: number } } }\n',
    }),
    { message: /components.schemas.X is already defined/ },
  );
});

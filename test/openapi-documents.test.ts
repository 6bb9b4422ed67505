import test from 'ava';
import { serviceNames } from '../server/platform/config.ts';
import { loadApiDocument } from '../server/platform/http/openapi.ts';
import { compileOperation } from '../server/platform/http/validation.ts';

// Validators are compiled on an operation's first request; this compiles them all, so a schema that
// does not compile fails here rather than on some later request.
for (const service of serviceNames) {
  test(`every request and response schema of ${service}.yaml compiles`, async (t) => {
    const doc = await loadApiDocument(service);
    t.true(doc.operations.length > 0);
    for (const op of doc.operations) t.notThrows(() => compileOperation(op), op.operationId);
  });

  test(`every operationId of ${service}.yaml is unique`, async (t) => {
    const ids = (await loadApiDocument(service)).operations.map((op) => op.operationId);
    t.is(new Set(ids).size, ids.length);
  });
}

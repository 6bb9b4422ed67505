import test from 'ava';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { scenarioSchema } from '../../cli/scenarios/schema.ts';
import { seedSchema } from '../../cli/seeds/load.ts';

// capctl compiles the schemas of its files without checking them against the JSON Schema meta-schema
// (that check compiled the meta-schema in every capctl process): they are checked here instead.
for (const [name, schema] of [
  ['scenario', scenarioSchema],
  ['seed', seedSchema],
] as const) {
  test(`the ${name} file schema is valid JSON Schema 2020-12`, (t) => {
    const meta = new Ajv2020({ strict: false });
    t.true(meta.validateSchema(schema), meta.errorsText(meta.errors));
  });
}

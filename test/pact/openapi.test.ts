import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadApiDocument } from '../../server/platform/http/openapi.ts';
import { checkPactAgainstOpenApi } from '../helpers/pact-openapi.ts';

// Bi-directional contract checking: every HTTP interaction of every pact in pacts/ against the
// provider's OpenAPI document. A pact that pins what the document does not promise fails here, before
// any provider is asked.

const pactFiles = fs
  .readdirSync('pacts')
  .filter((name) => name.endsWith('.json'))
  .sort();

for (const name of pactFiles) {
  test(`every interaction of ${name} asks no more than the provider's OpenAPI document promises`, async (t) => {
    t.deepEqual(await checkPactAgainstOpenApi(path.join('pacts', name)), []);
  });
}

/** A copy of a pact with one interaction changed, in a scratch file. */
function alteredPact(
  t: import('ava').ExecutionContext,
  file: string,
  description: string,
  change: (interaction: any) => void,
): string {
  const pact = JSON.parse(fs.readFileSync(file, 'utf8'));
  const interaction = pact.interactions.find((i: { description: string }) => i.description === description);
  t.truthy(interaction, description);
  change(interaction);
  pact.interactions = [interaction];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pact-openapi-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const out = path.join(dir, path.basename(file));
  fs.writeFileSync(out, JSON.stringify(pact));
  return out;
}

test('a pact that asks for a field the document does not have fails the check', async (t) => {
  const file = alteredPact(t, 'pacts/capctl-cap.json', 'a read of the public sector list', (i) => {
    i.response.body.content.data[0].colour = 'blue';
    i.response.matchingRules.body['$.data[*].colour'] = { combine: 'AND', matchers: [{ match: 'type' }] };
  });
  t.deepEqual(await checkPactAgainstOpenApi(file), [
    {
      description: 'a read of the public sector list',
      problems: [
        'listSectors (GET /sectors) 200: $.data[0].colour: the pact requires a field the document does not have',
      ],
    },
  ]);
});

test('a list item field the document lets be null, matched as a string alone, fails the check', async (t) => {
  const file = alteredPact(t, 'pacts/capctl-cap.json', 'a read of the public sector list', (i) => {
    i.response.matchingRules.body['$.data[*].description'] = { combine: 'AND', matchers: [{ match: 'type' }] };
  });
  const [found] = await checkPactAgainstOpenApi(file);
  t.deepEqual(found?.problems, [
    "listSectors (GET /sectors) 200: $.data[0].description: the document allows null here, the pact's type matcher accepts only string",
  ]);
});

test('an undocumented operation or response status fails the check', async (t) => {
  const unknownPath = alteredPact(
    t,
    'pacts/capctl-cap.json',
    'a read of the public sector list',
    (i) => (i.request.path = '/v1/cap/sector-list'),
  );
  t.deepEqual((await checkPactAgainstOpenApi(unknownPath))[0]?.problems, [
    'GET /v1/cap/sector-list is not an operation of openapi/cap.yaml',
  ]);
  const unknownStatus = alteredPact(
    t,
    'pacts/capctl-cap.json',
    'a read of the public sector list',
    (i) => (i.response.status = 418),
  );
  t.deepEqual((await checkPactAgainstOpenApi(unknownStatus))[0]?.problems, [
    'listSectors (GET /sectors) documents no 418 response',
  ]);
});

test('a value of a kind the document does not allow fails the check', async (t) => {
  const file = alteredPact(
    t,
    'pacts/capctl-cap.json',
    'a read of the public sector list',
    (i) => (i.response.body.content.data[0].tradeCount = 'one'),
  );
  t.deepEqual((await checkPactAgainstOpenApi(file))[0]?.problems, [
    'listSectors (GET /sectors) 200: the example response data[0].tradeCount must be integer',
    'listSectors (GET /sectors) 200: $.data[0].tradeCount: the pact gives a string, the document allows number',
  ]);
});

test('the example request of an interaction that succeeds must be one the document accepts', async (t) => {
  const file = alteredPact(
    t,
    'pacts/capctl-cap.json',
    'a creation of a sector',
    (i) => (i.request.body.content.name = 42),
  );
  const [found] = await checkPactAgainstOpenApi(file);
  t.true(
    found?.problems.some((p) =>
      /createAdminSector \(POST \/admin\/sectors\): the example request name must be string/.test(p),
    ),
    JSON.stringify(found),
  );
});

test("a list item field the document marks optional, required by the pact, fails the check: others' items may lack it", async (t) => {
  const file = alteredPact(t, 'pacts/capctl-cap.json', 'a read of the public sector list', (i) => {
    i.response.body.content.data[0].archivedTradeCount = 0;
    i.response.matchingRules.body['$.data[*].archivedTradeCount'] = {
      combine: 'AND',
      matchers: [{ match: 'integer' }],
    };
  });
  const [found] = await checkPactAgainstOpenApi(file, async (service) => {
    const doc = structuredClone(await loadApiDocument(service));
    // The public sector list with one optional field more, to pin.
    const op = doc.operations.find((o) => o.operationId === 'listSectors')!;
    const item = (op.responses['200'] as any).content['application/json'].schema.allOf[1].properties.data.items;
    item.properties.archivedTradeCount = { type: 'integer' };
    return doc;
  });
  t.deepEqual(found?.problems, [
    'listSectors (GET /sectors) 200: $.data[0].archivedTradeCount: the pact requires a field the document marks optional',
  ]);
});

test('a validation failure promises details naming each field, so a pact may pin them', async (t) => {
  const file = 'pacts/capctl-cap.json';
  const pact = JSON.parse(fs.readFileSync(file, 'utf8'));
  t.true(
    pact.interactions.some(
      (i: any) =>
        i.response?.body?.content?.error?.code === 'validation.failed' &&
        i.response.matchingRules?.body?.['$.error.details[*].field'],
    ),
  );
  const other = alteredPact(
    t,
    file,
    'a creation of a centre without its super admin',
    (i) => (i.response.body.content.error.code = 'centre.some_refusal'),
  );
  t.deepEqual((await checkPactAgainstOpenApi(other))[0]?.problems, [
    'createAdminCentre (POST /admin/centres) 422: $.error.details[0].field: the pact requires a field the document marks optional',
  ]);
});

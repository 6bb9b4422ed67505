import test from 'ava';
import { readFile } from 'node:fs/promises';
import { openapiTypes, typesFile } from '../../bin/openapi-types.ts';
import { serviceNames } from '../../server/platform/config.ts';

// Handlers are typed from these files (Handlers<operations>, server/platform/http/operations.ts): a
// document changed without `npm run types` would leave the handlers checked against the old one.
for (const service of serviceNames) {
  test(`server/contracts/openapi/${service}.ts is what openapi/${service}.yaml generates now (npm run types)`, async (t) => {
    const committed = await readFile(typesFile(service), 'utf8').catch(() => '(missing)');
    t.true(
      committed === (await openapiTypes(service)),
      `server/contracts/openapi/${service}.ts is stale: run \`npm run types\``,
    );
  });
}

import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { defaultStatesUrl, pactsIn, providers, verifyPacts } from '../../cli/commands/pact.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';

// Provider verification: every pact in pacts/ is replayed against the real platform, its provider
// states set up through each service's dev state endpoint. A pact the server does not honour fails.

const pactDir = path.resolve('pacts');

let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform();
});
test.after.always(() => platform?.stop());

test('every pact in pacts/ names one of the platform services as its provider', (t) => {
  const files = fs.readdirSync(pactDir).filter((name) => name.endsWith('.json'));
  t.true(files.length > 0);
  const verified = providers.flatMap((provider) => pactsIn(pactDir, provider).map((file) => path.basename(file)));
  t.deepEqual(verified.sort(), files.sort());
});

for (const provider of providers) {
  test.serial(`the ${provider} service honours every pact whose provider it is`, async (t) => {
    // One test replays every interaction, each after its own provider state: minutes on a loaded machine.
    t.timeout(10 * 60_000);
    const baseUrl = platform.urls.gateway!;
    const report = await verifyPacts({
      provider,
      baseUrl,
      statesUrl: defaultStatesUrl(baseUrl, provider),
      pacts: pactsIn(pactDir, provider),
    });
    for (const pact of report.pacts) {
      t.log(
        `${pact.consumer} -> ${provider} (${path.basename(pact.source)}): ${pact.interactions.length} interactions`,
      );
      t.is(pact.error, undefined);
      t.true(pact.interactions.length > 0);
      const failed = pact.interactions
        .filter((i) => !i.passed)
        .map(({ description, problems }) => ({ description, problems }));
      t.deepEqual(failed, [], `${path.basename(pact.source)} is not honoured`);
    }
    t.true(report.passed);
  });
}

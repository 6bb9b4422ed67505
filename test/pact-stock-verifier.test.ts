import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { stockVerify, tally } from './helpers/pact-verifier.ts';
import { startTestPlatform, type TestPlatform } from './helpers/platform.ts';

// The Pact CLI's pact-verifier, run as a downstream team runs it, verifies every pact file in pacts/
// against a freshly started platform: HTTP and message interactions alike.

const pactFiles = fs.readdirSync('pacts').filter((name) => name.endsWith('.json')).sort().map((name) => path.join('pacts', name));

let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform();
});
test.after.always(() => platform?.stop());

for (const file of pactFiles) {
  test.serial(`the stock pact-verifier passes every interaction of ${path.basename(file)} on a fresh platform`, async (t) => {
    t.timeout(20 * 60_000);
    const run = await stockVerify(file, platform.urls.gateway!);
    t.log(tally(run));
    t.deepEqual(run.interactions.filter((i) => !i.passed), [], run.output);
    t.true(run.interactions.length > 0, run.output);
    t.is(run.code, 0, run.output);
  });
}

import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { applySeeds, seedKinds } from '../../cli/seeds/apply.ts';
import { loadSeeds } from '../../cli/seeds/load.ts';
import { loadScenarios } from '../../cli/scenarios/parse.ts';
import { runScenarios } from '../../cli/scenarios/runner.ts';
import { withApi } from '../../cli/session.ts';
import { projectPath } from '../../server/platform/paths.ts';
import { testEveryPactWithStockVerifier } from '../helpers/pact-verifier.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';

// The reference passes its pacts in the state QA leaves it in: seeded as `capctl seed` does, every
// bundled scenario run, then the Pact CLI's pact-verifier on every pact file in pacts/. Lists now hold
// data no provider state made (a sector without a description, others' courses and postings).

const scenarioDir = 'fixtures/scenarios';

let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform();
  const seeds = await loadSeeds([projectPath('seeds')]);
  await withApi(platform.urls.gateway!, (api) =>
    applySeeds(api, seeds, { dryRun: false, only: new Set(seedKinds), databaseUrl: platform.databaseUrl }),
  );
});
test.after.always(() => platform?.stop());

test.serial('every bundled scenario passes on the seeded platform', async (t) => {
  t.timeout(20 * 60_000);
  const files = fs
    .readdirSync(scenarioDir)
    .filter((name) => /\.ya?ml$/.test(name))
    .sort();
  const scenarios = (await Promise.all(files.map((name) => loadScenarios(path.join(scenarioDir, name))))).flat();
  const report = await runScenarios(scenarios, { baseUrl: platform.urls.gateway!, concurrency: 4 });
  t.deepEqual(
    report.scenarios.filter((s) => s.status !== 'passed').map((s) => s.file),
    [],
  );
});

testEveryPactWithStockVerifier('after the bundled scenarios', () => platform.urls.gateway!);

import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import anyTest, { type TestFn } from 'ava';
import { applySeeds, seedKinds } from '../../cli/seeds/apply.ts';
import { loadSeeds } from '../../cli/seeds/load.ts';
import { withApi } from '../../cli/session.ts';
import { projectPath } from '../../server/platform/paths.ts';
import { describeFailure, plain } from '../../cli/scenarios/report-text.ts';
import { loadScenarios } from '../../cli/scenarios/parse.ts';
import { runScenarios, type RunReport } from '../../cli/scenarios/runner.ts';
import { runCapctl } from '../helpers/cli.ts';
import { testEveryPactWithStockVerifier } from '../helpers/pact-verifier.ts';
import { checkWellFormed } from '../helpers/xml.ts';
import { call, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';

// The bundled scenarios (fixtures/scenarios) against the real platform, and what `capctl run` and
// `capctl demo` promise on top of the runner's own tests (test/scenario-*.test.ts, which use a fake
// platform): JSON and JUnit reports of real runs, a wrong expectation, a malformed file and a platform
// that stops in the middle of a run. And the reference passes its pacts in the state QA leaves it in:
// seeded as `capctl seed` does, every bundled scenario run, then the Pact CLI's pact-verifier on every
// pact file in pacts/ (lists now hold data no provider state made: a sector without a description,
// others' courses and postings). The seeded platform and its bundled run serve both.

const test = anyTest as TestFn<{ dir: string }>;

const bundledDir = 'fixtures/scenarios';
const bundled = readdirSync(bundledDir)
  .filter((name) => /\.ya?ml$/.test(name))
  .sort();

let platform: TestPlatform;
const demoDir = mkdtempSync(path.join(tmpdir(), 'capctl-demo-'));
test.before(async () => {
  void runDemo(); // its own platform: it runs while the tests on this file's platform do
  platform = await startTestPlatform();
  const seeds = await loadSeeds([projectPath('seeds')]);
  // Seeded as `capctl seed` seeds it: its platform admin is the admin scenarios' default.
  await withApi(platform.urls.gateway!, (api) =>
    applySeeds(api, seeds, { dryRun: false, only: new Set(seedKinds), databaseUrl: platform.databaseUrl }),
  );
});
test.after.always(async () => {
  await platform?.stop();
  await demoRun; // it stops by itself
  await rm(demoDir, { recursive: true, force: true });
});
test.beforeEach(async (t) => {
  t.context.dir = await mkdtemp(path.join(tmpdir(), 'capctl-bundled-'));
});
test.afterEach.always(async (t) => {
  await rm(t.context.dir, { recursive: true, force: true });
});

/** Every failed step of a report, as the text report shows it, for the assertion message. */
function failures(report: RunReport): string {
  return report.scenarios
    .flatMap((s) =>
      s.steps
        .filter((step) => step.status === 'failed')
        .map((step) => [`${s.file} › ${step.id}`, ...describeFailure(step, plain)].join('\n')),
    )
    .join('\n\n');
}

test('the bundled scenarios cover the flows the issues name', (t) => {
  const flows = [
    'candidate-signup.yaml',
    'identity-verification.yaml',
    'admin-creates-centre.yaml',
    'centre-staff.yaml',
    'persona-rules.yaml',
    'lms-learner.yaml',
    'catalogue.yaml',
    'pay.yaml',
    'withdraw-refund.yaml',
    'assessor-retained.yaml',
    'job-marketplace.yaml',
    'lms-instructor-publishes.yaml',
    'lms-learner-completes.yaml',
    'certify.yaml',
    'scenario-format.yaml',
  ];
  for (const name of flows) t.true(bundled.includes(name), name);
});

/**
 * Every bundled scenario as a user runs it against a running platform: `capctl run FILE... --base-url URL`
 * and nothing else, no environment variable naming a gRPC address (the test platform's gRPC listeners
 * are on free ports, never the defaults: the runner asks the platform where they are).
 */
let bundledRun: Promise<{ report: RunReport | undefined; stderr: string; code: number | null }> | undefined;
function runBundled() {
  bundledRun ??= (async () => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of ['CAPCTL_GRPC_ADDRESS', 'ORCHESTRATOR_GRPC_ADDRESS', 'LMS_GRPC_ADDRESS', 'CAPCTL_BASE_URL'])
      delete env[name];
    const files = bundled.map((name) => path.join(bundledDir, name));
    const result = await runCapctl(
      ['run', ...files, '--base-url', platform.urls.gateway!, '--json', '--concurrency', '6'],
      env,
      undefined,
      { replaceEnv: true },
    );
    let report: RunReport | undefined;
    try {
      report = JSON.parse(result.stdout);
    } catch {
      // reported by the tests
    }
    return { report, stderr: result.stderr, code: result.code };
  })();
  return bundledRun;
}
test('the bundled scenarios run against gRPC listeners on other ports than the defaults', (t) => {
  for (const address of [platform.urls.grpc!, platform.urls['grpc-lms']!]) t.notRegex(address, /:(4400|4401)$/);
});

// Serial, so in this order and before the tests below, which go all at once: three runs at once while the
// machine's load is what it was, the bundled run, then the pact verifier on the platform those runs left.
test.serial(
  "runs at the same time do not meet: three runs each of the scenarios that read a seeded centre's lists, all at once",
  async (t) => {
    const names = ['pay.yaml', 'assessor-retained.yaml'].flatMap((name) => [name, name, name]);
    const scenarios = (await Promise.all(names.map((name) => loadScenarios(path.join(bundledDir, name))))).flat();
    const report = await runScenarios(scenarios, { baseUrl: platform.urls.gateway!, concurrency: scenarios.length });
    t.is(report.exitCode, 0, failures(report));
  },
);

test.serial('every bundled scenario passes on the seeded platform', async (t) => {
  t.timeout(600_000);
  const { report, stderr, code } = await runBundled();
  t.truthy(report, `capctl run exited ${code}: ${stderr}`);
  t.deepEqual(
    report!.scenarios.filter((s) => s.status !== 'passed').map((s) => s.file),
    [],
    failures(report!),
  );
  t.deepEqual([...new Set(report!.scenarios.map((s) => path.basename(s.file)))].sort(), bundled);
});

testEveryPactWithStockVerifier('after the bundled scenarios', () => platform.urls.gateway!);

for (const name of bundled) {
  test(`bundled scenario ${name} passes with capctl run FILE --base-url URL alone`, async (t) => {
    t.timeout(600_000);
    const { report, stderr, code } = await runBundled();
    t.truthy(report, `capctl run exited ${code}: ${stderr}`);
    const runs = report!.scenarios.filter((s) => path.basename(s.file) === name); // one per row of a data-driven scenario
    t.true(runs.length > 0, `${name} is in the report`);
    for (const run of runs) {
      t.is(run.status, 'passed', failures({ ...report!, scenarios: [run] }));
      t.true(run.steps.every((step) => step.status === 'passed'));
    }
  });
}

test('capctl run --json prints a valid JSON report with per-step timings; --junit writes well-formed JUnit XML', async (t) => {
  const junit = path.join(t.context.dir, 'report.xml');
  const files = ['candidate-signup', 'lms-learner'];
  const result = await runCapctl(['run', ...files, '--base-url', platform.urls.gateway!, '--json', '--junit', junit]);
  t.is(result.code, 0, result.stderr);

  const report = JSON.parse(result.stdout);
  t.is(report.exitCode, 0);
  t.deepEqual(report.summary.scenarios, 2);
  t.deepEqual(report.summary.failed, 0);
  t.is(report.scenarios.length, 2);
  for (const scenario of report.scenarios) {
    t.is(scenario.status, 'passed');
    t.false(Number.isNaN(Date.parse(scenario.startedAt)));
    t.true(scenario.steps.length > 10);
    for (const step of scenario.steps) {
      t.is(step.status, 'passed', `${scenario.name} › ${step.id}`);
      t.true(Number.isInteger(step.durationMs) && step.durationMs >= 0, `${step.id} durationMs`);
      t.true(step.attempts >= 1);
    }
  }
  t.is(report.summary.steps.total, report.scenarios[0].steps.length + report.scenarios[1].steps.length);

  const xml = await readFile(junit, 'utf8');
  t.notThrows(() => checkWellFormed(xml));
  t.is(xml.match(/<testsuite /g)?.length, 2);
  t.is(xml.match(/<testcase /g)?.length, report.summary.steps.total);
  t.regex(xml, /<testsuites name="capctl run" tests="\d+" failures="0" errors="0" skipped="0"/);
});

test('a bundled scenario with a wrong expectation exits 1 and shows the difference from the real answer', async (t) => {
  const original = await readFile(path.join(bundledDir, 'candidate-signup.yaml'), 'utf8');
  const wrong = original.replace('data.status: pending_verification', 'data.status: active');
  t.not(wrong, original);
  const file = path.join(t.context.dir, 'wrong.yaml');
  await writeFile(file, wrong);

  const result = await runCapctl(['run', file, '--base-url', platform.urls.gateway!]);
  t.is(result.code, 1, result.stderr);
  t.regex(result.stdout, /FAIL register \(register a new account for CAP\)/);
  t.regex(result.stdout, /response: 201/);
  t.regex(result.stdout, /body data\.status {2}expected "active", got "pending_verification"/);
  t.regex(result.stdout, /SKIP verify .*an earlier step failed/);
  t.regex(result.stdout, /1 scenario: 0 passed, 1 failed/);
});

test('a malformed scenario exits 2 with its line and column, and nothing reaches the platform', async (t) => {
  const original = await readFile(path.join(bundledDir, 'candidate-signup.yaml'), 'utf8');
  const lines = original.split('\n');
  const at = lines.findIndex((line) => line === '    name: log in with email and password');
  t.true(at > 0);
  lines[at + 4] = lines[at + 4]!.replace('expect:', 'expcet:');
  const file = path.join(t.context.dir, 'malformed.yaml');
  await writeFile(file, lines.join('\n'));
  const email = `malformed+${Date.now()}@example.test`;

  const result = await runCapctl(['run', file, '--base-url', platform.urls.gateway!, '--var', `email=${email}`]);
  t.is(result.code, 2);
  t.regex(result.stderr, new RegExp(`${escape(file)}:${at + 5}:5: .*expcet`));
  t.is(result.stdout, '');
  // The first step would have registered the address and mailed it a code.
  const mailbox = await call('GET', platform.url(`/v1/ol/dev/mailbox?to=${encodeURIComponent(email)}`));
  t.deepEqual(mailbox.body.data, []);
});

test('a platform that stops during a run exits 3 and the report says unreachable', async (t) => {
  const doomed = await startTestPlatform();
  let stopped = false;
  try {
    const file = path.join(t.context.dir, 'stops.yaml');
    await writeFile(
      file,
      [
        'name: the platform goes away',
        'steps:',
        '  - { id: before, name: the platform answers, http: { operation: cap.getHealthz } }',
        '  - { id: pause, wait: 4s }',
        '  - { id: after, name: the platform is gone, http: { operation: cap.getHealthz } }',
        '',
      ].join('\n'),
    );
    const run = spawnCapctl(['run', file, '--base-url', doomed.urls.gateway!]);
    // Progress streams a line per step: stop the platform while the scenario pauses after its first step.
    await run.printed(/PASS before/);
    await doomed.stop();
    stopped = true;
    const result = await run.exited;
    t.is(result.code, 3, `${result.stdout}\n${result.stderr}`);
    t.regex(result.stdout, /PASS pause/);
    t.regex(result.stdout, /FAIL after \(the platform is gone\)/);
    t.regex(result.stdout, /error: .*(ECONNREFUSED|cannot reach)/);
    t.regex(result.stdout, /^the platform goes away +UNREACHABLE +3 +2 +1 +0 /m);
  } finally {
    if (!stopped) await doomed.stop();
  }
});

/** `capctl demo --json --junit FILE`, started once (by the `before` hook). */
let demoRun: Promise<{ result: Awaited<ReturnType<typeof runCapctl>>; junit: string }> | undefined;
function runDemo() {
  demoRun ??= (async () => {
    const junit = path.join(demoDir, 'demo.xml');
    return { result: await runCapctl(['demo', '--json', '--junit', junit]), junit };
  })();
  return demoRun;
}

test('capctl demo starts its own platform, checks every service, runs every bundled scenario green and stops', async (t) => {
  t.timeout(600_000);
  const { result, junit } = await runDemo();
  let report: RunReport | undefined;
  try {
    report = JSON.parse(result.stdout);
  } catch {
    // reported by the assertions below
  }
  t.is(result.code, 0, `${result.stderr}\n${report ? failures(report) : result.stdout.slice(0, 2000)}`);
  t.regex(result.stderr, /^ready .*gateway=http:\/\/127\.0\.0\.1:\d+ /m);
  for (const prefix of ['/v1/ol', '/v1/cap', '/v1/lms'])
    t.regex(result.stderr, new RegExp(`^ready +http://\\S+${prefix}/readyz$`, 'm'));
  t.regex(result.stderr, /^ready +grpc:\/\/\S+ \(grpc\.health\.v1\.Health\)$/m);
  t.regex(result.stderr, /^all services ready$/m);
  t.regex(
    result.stderr,
    /^seeded: 1 platformAdmins, 3 candidates, 9 sectors, 29 trades, 29 nosDocuments, 4 centres, 3 centreStaff, 3 assessorAccounts, 3 assessors, 5 retainedRequests, 1 lmsAdmins, 3 lmsCourses, 1 lmsLevelOfferings$/m,
  );
  const runs = (await Promise.all(bundled.map((name) => loadScenarios(path.join(bundledDir, name))))).flat().length;
  t.regex(result.stderr, new RegExp(`^running ${runs} bundled scenarios$`, 'm'));
  t.regex(result.stderr, /^platform stopped/m);
  t.notRegex(result.stderr, /NOT READY/);

  t.truthy(report, 'stdout is the JSON report');
  t.is(report!.exitCode, 0);
  t.deepEqual([...new Set(report!.scenarios.map((s) => path.basename(s.file)))].sort(), bundled);
  t.is(report!.scenarios.length, runs);
  t.true(report!.scenarios.every((s) => s.status === 'passed'));
  const xml = await readFile(junit, 'utf8');
  t.notThrows(() => checkWellFormed(xml));
  t.is(xml.match(/<testsuite /g)?.length, runs);
});

/** Starts capctl; unlike runCapctl, the caller can wait for a line of its output while it runs. */
function spawnCapctl(args: string[]) {
  const child = spawn(process.execPath, [path.resolve('bin/capctl'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const watchers: Array<() => void> = [];
  child.stdout.on('data', (d) => {
    stdout += d;
    for (const watch of watchers) watch();
  });
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  const printed = (pattern: RegExp) =>
    new Promise<void>((resolve, reject) => {
      const watch = () => pattern.test(stdout) && resolve();
      watchers.push(watch);
      watch();
      void exited.then(() => reject(new Error(`capctl exited before printing ${pattern}: ${stdout}${stderr}`)));
    });
  return { exited, printed };
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

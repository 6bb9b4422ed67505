import test, { type ExecutionContext } from 'ava';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { runCapctl, startServe, type RunningServe } from '../helpers/cli.ts';
import { testDatabase, type TestDatabase } from '../helpers/postgres.ts';

// `capctl pact verify` against a running `capctl serve`, as a downstream team runs it, and `capctl pact
// publish` against a stand-in broker that records what it is sent.

const freePorts = [
  '--port',
  '0',
  '--ol-port',
  '0',
  '--cap-port',
  '0',
  '--lms-port',
  '0',
  '--grpc-port',
  '0',
  '--lms-grpc-port',
  '0',
];
let database: TestDatabase;
let serve: RunningServe;

test.before(async () => {
  database = await testDatabase();
  serve = await startServe(freePorts, { DATABASE_URL: database.url });
});
test.after.always(async () => {
  await serve?.stop();
  await database?.drop();
});

function scratchDir(t: ExecutionContext): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-pact-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('verify passes against a running capctl serve and prints each interaction', async (t) => {
  t.timeout(15 * 60_000); // every interaction after its own provider state: minutes on a loaded machine
  const run = await runCapctl(['pact', 'verify', '--provider', 'ol', '--base-url', serve.urls.gateway!]);
  t.is(run.code, 0, run.stdout + run.stderr);
  t.regex(run.stdout, /^capctl -> ol {2}pacts\/capctl-ol\.json$/m);
  t.regex(run.stdout, /^ {2}passed {2}a login with email and password$/m);
  t.regex(run.stdout, /^cap -> ol {2}pacts\/cap-ol\.json$/m);
  t.regex(run.stdout, /^ {2}passed {2}a user\.created event$/m);
  t.regex(run.stdout, /interaction\(s\): \d+ passed, 0 failed$/m);
});

test('verify --json reports every interaction of the provider as passed', async (t) => {
  t.timeout(15 * 60_000); // every interaction after its own provider state: minutes on a loaded machine
  const run = await runCapctl(['pact', 'verify', '--provider', 'lms', '--base-url', serve.urls.gateway!, '--json']);
  t.is(run.code, 0, run.stdout + run.stderr);
  const report = JSON.parse(run.stdout);
  t.like(report, { provider: 'lms', passed: true, pacts: [{ consumer: 'capctl', source: 'pacts/capctl-lms.json' }] });
  t.true(report.pacts[0].interactions.length > 0);
  t.true(report.pacts[0].interactions.every((i: { passed: boolean }) => i.passed));
});

test('an interaction the server does not serve, or a state it does not know, fails verify with exit 1 and is named', async (t) => {
  t.timeout(15 * 60_000); // every interaction after its own provider state: minutes on a loaded machine
  const dir = scratchDir(t);
  const pact = JSON.parse(fs.readFileSync('pacts/capctl-lms.json', 'utf8'));
  pact.interactions.push({
    type: 'Synchronous/HTTP',
    description: 'a read of the course catalogue',
    pending: false,
    request: { method: 'GET', path: '/v1/lms/catalogue' },
    response: { status: 200, body: { contentType: 'application/json', encoded: false, content: { success: true } } },
  });
  pact.interactions.push({
    type: 'Synchronous/HTTP',
    description: 'a read of my LMS account in a state nobody defined',
    pending: false,
    providerStates: [{ name: 'a state nobody defined' }],
    request: { method: 'GET', path: '/v1/lms/me' },
    response: { status: 200 },
  });
  fs.writeFileSync(path.join(dir, 'capctl-lms.json'), JSON.stringify(pact));

  const run = await runCapctl([
    'pact',
    'verify',
    '--provider',
    'lms',
    '--base-url',
    serve.urls.gateway!,
    '--pact-dir',
    dir,
  ]);
  t.is(run.code, 1, run.stdout + run.stderr);
  t.regex(run.stdout, /^ {2}FAILED {2}a read of the course catalogue$/m);
  t.regex(run.stdout, /^ {10}expected 200 but was 404$/m);
  t.regex(run.stdout, /^ {2}passed {2}a start of the learner onboarding$/m);
  t.regex(run.stdout, /^ {2}FAILED {2}a read of my LMS account in a state nobody defined$/m);
  t.regex(run.stdout, /^ {10}.*state change/im);
  t.regex(run.stdout, /2 failed - verification FAILED$/m);
});

test('verify exits 3 when the platform cannot be reached and 2 when given two pact sources', async (t) => {
  const unreachable = await runCapctl(['pact', 'verify', '--provider', 'cap', '--base-url', 'http://127.0.0.1:9']);
  t.is(unreachable.code, 3);
  t.regex(unreachable.stderr, /cannot reach http:\/\/127\.0\.0\.1:9/);
  const twoSources = await runCapctl([
    'pact',
    'verify',
    '--provider',
    'cap',
    '--pact-dir',
    'pacts',
    '--pact-url',
    'pacts/capctl-cap.json',
  ]);
  t.is(twoSources.code, 2);
  t.regex(twoSources.stderr, /give one of --pact-dir, --pact-url or --broker-url/);
  const publishWithoutBroker = await runCapctl([
    'pact',
    'verify',
    '--provider',
    'cap',
    '--publish-verification-results',
    '--provider-app-version',
    '1',
  ]);
  t.is(publishWithoutBroker.code, 2);
  t.regex(publishWithoutBroker.stderr, /--publish-verification-results need --broker-url/);
});

test('verify --junit writes one test case per interaction; --filter-description narrows the run to the matching ones', async (t) => {
  t.timeout(15 * 60_000); // every interaction after its own provider state: minutes on a loaded machine
  const junit = path.join(scratchDir(t), 'pact.xml');
  const all = JSON.parse(fs.readFileSync('pacts/capctl-lms.json', 'utf8')).interactions as Array<{
    description: string;
  }>;
  const run = await runCapctl([
    'pact',
    'verify',
    '--provider',
    'lms',
    '--base-url',
    serve.urls.gateway!,
    '--filter-description',
    '^a (start|list) of',
    '--junit',
    junit,
    '--json',
  ]);
  t.is(run.code, 0, run.stdout + run.stderr);
  const verified = JSON.parse(run.stdout)
    .pacts[0].interactions.map((i: { description: string }) => i.description)
    .sort();
  t.deepEqual(
    verified,
    all
      .map((i) => i.description)
      .filter((d) => /^a (start|list) of/.test(d))
      .sort(),
  );
  t.true(verified.length > 0 && verified.length < all.length);
  const xml = fs.readFileSync(junit, 'utf8');
  t.is([...xml.matchAll(/<testcase /g)].length, verified.length);
  t.regex(xml, /<testsuite name="capctl -&gt; lms" file="pacts\/capctl-lms.json" tests="\d+" failures="0" errors="0">/);
  for (const description of verified)
    t.true(
      xml.includes(`<testcase name="${description.replace(/'/g, '&apos;')}" classname="capctl -&gt; lms"/>`),
      description,
    );
});

test('verify --broker-url fetches the pacts for the provider with the selectors and token, verifies them and publishes the results', async (t) => {
  t.timeout(15 * 60_000); // every interaction after its own provider state: minutes on a loaded machine
  const pact = fs.readFileSync('pacts/capctl-lms.json', 'utf8');
  const seen: string[] = [];
  // The few broker resources the verifier walks: index -> pacts for verification -> each pact; to
  // publish, the provider's branch version, then the pact's verification results.
  const broker = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    seen.push(`${req.method} ${req.url} ${req.headers.authorization} ${body}`.trim());
    const base = `http://127.0.0.1:${(broker.address() as AddressInfo).port}`;
    const forVerification = `${base}/pacts/provider/lms/for-verification`;
    const answers: Record<string, unknown> = {
      'GET /': {
        _links: {
          'pb:provider-pacts-for-verification': {
            href: `${base}/pacts/provider/{provider}/for-verification`,
            templated: true,
          },
        },
      },
      'GET /pacts/provider/lms/for-verification': { _links: { self: { href: forVerification } } },
      'POST /pacts/provider/lms/for-verification': {
        _embedded: {
          pacts: [
            {
              shortDescription: 'main',
              _links: { self: { href: `${base}/pacts/provider/lms/consumer/capctl/version/1`, name: 'capctl' } },
            },
          ],
        },
      },
      'GET /pacts/provider/lms/consumer/capctl/version/1': {
        ...JSON.parse(pact),
        _links: {
          'pb:publish-verification-results': {
            href: `${base}/pacts/provider/lms/consumer/capctl/pact-version/abc/verification-results`,
          },
          'pb:provider': { href: `${base}/pacticipants/lms` },
        },
      },
      'GET /pacticipants/lms': {
        name: 'lms',
        _links: {
          'pb:branch-version': {
            href: `${base}/pacticipants/lms/branches/{branch}/versions/{version}`,
            templated: true,
          },
        },
      },
      'PUT /pacticipants/lms/branches/main/versions/2.0.1': {},
      'POST /pacts/provider/lms/consumer/capctl/pact-version/abc/verification-results': {},
    };
    const answer = answers[`${req.method} ${req.url}`];
    res.writeHead(answer ? 200 : 404, { 'content-type': 'application/hal+json' }).end(JSON.stringify(answer ?? {}));
  });
  await new Promise<void>((resolve) => broker.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => broker.close(() => resolve())));
  const brokerUrl = `http://127.0.0.1:${(broker.address() as AddressInfo).port}`;

  const run = await runCapctl([
    'pact',
    'verify',
    '--provider',
    'lms',
    '--base-url',
    serve.urls.gateway!,
    '--broker-url',
    brokerUrl,
    '--broker-token',
    'broker-token',
    '--consumer-version-selectors',
    '[{"mainBranch":true}]',
    '--publish-verification-results',
    '--provider-app-version',
    '2.0.1',
    '--provider-branch',
    'main',
  ]);
  t.is(run.code, 0, run.stdout + run.stderr);
  t.regex(run.stdout, /^ {2}passed {2}a start of the learner onboarding$/m);
  t.true(
    seen.some(
      (line) =>
        line.startsWith('POST /pacts/provider/lms/for-verification Bearer broker-token') &&
        line.includes('"consumerVersionSelectors":[{"mainBranch":true}]'),
    ),
  );
  t.true(seen.includes('GET /pacts/provider/lms/consumer/capctl/version/1 Bearer broker-token'));
  const published = seen.find((line) =>
    line.startsWith(
      'POST /pacts/provider/lms/consumer/capctl/pact-version/abc/verification-results Bearer broker-token',
    ),
  );
  t.truthy(published, seen.join('\n'));
  const result = JSON.parse(published!.slice(published!.indexOf('{')));
  t.like(result, { success: true, providerApplicationVersion: '2.0.1' });
  t.true(
    seen.some((line) => line.startsWith('PUT /pacticipants/lms/branches/main/versions/2.0.1 Bearer broker-token')),
    'the provider version is recorded on its branch',
  );
});

/** A stand-in Pact Broker: records every request and answers with `status`. */
async function recordingBroker(t: ExecutionContext, status = 201) {
  const requests: Array<{ method: string; url: string; authorization?: string; body: any }> = [];
  const server = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    requests.push({
      method: req.method!,
      url: req.url!,
      authorization: req.headers.authorization,
      body: JSON.parse(body),
    });
    res.writeHead(status, { 'content-type': 'application/hal+json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

test('publish puts the branch version, then every pact, to the broker with the token', async (t) => {
  const broker = await recordingBroker(t);
  const dir = scratchDir(t);
  for (const name of ['capctl-cap.json', 'cap-ol.json'])
    fs.copyFileSync(path.join('pacts', name), path.join(dir, name));

  const run = await runCapctl([
    'pact',
    'publish',
    '--broker-url',
    broker.url,
    '--broker-token',
    'secret-token',
    '--consumer-app-version',
    '1.2.3',
    '--branch',
    'main',
    '--pact-dir',
    dir,
  ]);
  t.is(run.code, 0, run.stdout + run.stderr);
  t.deepEqual(
    broker.requests.map((r) => `${r.method} ${r.url}`),
    [
      'PUT /pacticipants/cap/branches/main/versions/1.2.3',
      'PUT /pacticipants/capctl/branches/main/versions/1.2.3',
      'PUT /pacts/provider/ol/consumer/cap/version/1.2.3',
      'PUT /pacts/provider/cap/consumer/capctl/version/1.2.3',
    ],
  );
  t.true(broker.requests.every((r) => r.authorization === 'Bearer secret-token'));
  t.deepEqual(broker.requests[3]!.body, JSON.parse(fs.readFileSync(path.join(dir, 'capctl-cap.json'), 'utf8')));
  t.regex(run.stdout, /^published capctl -> cap \(.*capctl-cap\.json\) version 1\.2\.3$/m);
});

test('publish --consumer picks the pacts of one consumer and --tag tags its version', async (t) => {
  const broker = await recordingBroker(t);
  const dir = scratchDir(t);
  for (const name of ['capctl-cap.json', 'cap-ol.json', 'lms-ol.json'])
    fs.copyFileSync(path.join('pacts', name), path.join(dir, name));
  const run = await runCapctl([
    'pact',
    'publish',
    '--broker-url',
    broker.url,
    '--consumer-app-version',
    '1.2.3',
    '--consumer',
    'cap',
    '--tag',
    'prod',
    '--tag',
    'main',
    '--pact-dir',
    dir,
  ]);
  t.is(run.code, 0, run.stdout + run.stderr);
  t.deepEqual(
    broker.requests.map((r) => `${r.method} ${r.url}`),
    [
      'PUT /pacticipants/cap/versions/1.2.3/tags/prod',
      'PUT /pacticipants/cap/versions/1.2.3/tags/main',
      'PUT /pacts/provider/ol/consumer/cap/version/1.2.3',
    ],
  );
  const none = await runCapctl([
    'pact',
    'publish',
    '--broker-url',
    broker.url,
    '--consumer-app-version',
    '1.2.3',
    '--consumer',
    'nobody',
    '--pact-dir',
    dir,
  ]);
  t.is(none.code, 2);
  t.regex(none.stderr, /no pacts of consumer nobody/);
});

test('publish exits 2 with no broker configured and 1 when the broker refuses', async (t) => {
  const noBroker = await runCapctl(['pact', 'publish', '--consumer-app-version', '1.2.3'], {
    PACT_BROKER_BASE_URL: '',
  });
  t.is(noBroker.code, 2);
  t.regex(noBroker.stderr, /no broker configured/);

  const broker = await recordingBroker(t, 401);
  const refused = await runCapctl(['pact', 'publish', '--broker-url', broker.url, '--consumer-app-version', '1.2.3']);
  t.is(refused.code, 1);
  t.regex(refused.stderr, /the broker answered 401 to PUT/);
});

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { runCapctl } from '../helpers/cli.ts';
import { call, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { uniqueEmail } from '../helpers/users.ts';

// The platform tells capctl where its gRPC listeners are (GET /v1/ol/.well-known/grpc-services), so
// the HTTP base URL is enough for `capctl run`, `capctl admin create` and `capctl grpc call`. The
// platform here listens on every interface, its gRPC listeners on free ports (never 4400/4401).

let platform: TestPlatform;
/** The gateway as a caller on this machine reaches it. */
let base: string;
test.before(async () => {
  platform = await startTestPlatform({ host: '0.0.0.0', devModeOnNetwork: true });
  base = platform.urls.gateway!.replace('0.0.0.0', '127.0.0.1');
});
test.after.always(async () => {
  await platform?.stop();
});

/** capctl with no environment variable naming an address: only what the command line gives. */
function capctl(args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of [
    'CAPCTL_GRPC_ADDRESS',
    'ORCHESTRATOR_GRPC_ADDRESS',
    'LMS_GRPC_ADDRESS',
    'CAPCTL_BASE_URL',
    'DATABASE_URL',
  ])
    delete env[name];
  return runCapctl(args, env, undefined, { replaceEnv: true });
}

const port = (address: string) => address.slice(address.lastIndexOf(':') + 1);

test('the discovery document names every gRPC service with the host the caller used when listening on every interface', async (t) => {
  for (const host of ['localhost', '127.0.0.1']) {
    const res = await call('GET', `${base}/v1/ol/.well-known/grpc-services`, {
      headers: { host: `${host}:${port(base)}` },
    });
    t.is(res.status, 200, res.text);
    t.deepEqual(res.body.data.services, [
      { service: 'orchestrator.v1.IdentityService', address: `${host}:${port(platform.urls.grpc!)}` },
      { service: 'orchestrator.v1.PaymentsService', address: `${host}:${port(platform.urls.grpc!)}` },
      { service: 'lms.v1.RecommendationsService', address: `${host}:${port(platform.urls['grpc-lms']!)}` },
    ]);
  }
  t.notRegex(platform.urls.grpc!, /:4400$/);
});

test('capctl grpc call finds the Orchestrator listener from --base-url alone', async (t) => {
  const email = uniqueEmail('grpc');
  const result = await capctl([
    'grpc',
    'call',
    'IdentityService.ProvisionAccount',
    '--base-url',
    base,
    '--json',
    '--data',
    JSON.stringify({ email, intents: ['cap'] }),
  ]);
  t.is(result.code, 0, result.stderr);
  t.like(JSON.parse(result.stdout), { is_new: true });
});

test('capctl grpc call with an explicit --address uses it over what the platform says', async (t) => {
  const result = await capctl([
    'grpc',
    'call',
    'IdentityService.ProvisionAccount',
    '--base-url',
    base,
    '--address',
    '127.0.0.1:1',
    '--timeout',
    '2000',
    '--data',
    '{}',
  ]);
  t.is(result.code, 3);
  t.regex(result.stderr, /127\.0\.0\.1:1/);
});

test('capctl admin create finds the Orchestrator listener from --base-url alone', async (t) => {
  const email = uniqueEmail('admin');
  const result = await capctl([
    'admin',
    'create',
    '--email',
    email,
    '--database-url',
    platform.databaseUrl,
    '--base-url',
    base,
    '--json',
  ]);
  t.is(result.code, 0, result.stderr);
  t.like(JSON.parse(result.stdout), { email, role: 'platform_admin', newAccount: true, granted: true });
});

test('capctl run takes each gRPC step to the discovered listener of its service, the LMS one included', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'capctl-discovery-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'grpc.yaml');
  await writeFile(
    file,
    [
      'name: both gRPC listeners',
      'steps:',
      '  - id: provision',
      '    grpc: { method: IdentityService.ProvisionAccount, request: { email: "${gen.email}", intents: [cap] } }',
      '    expect: { body: { is_new: true } }',
      '  - id: recommend',
      '    grpc: { method: lms.v1.RecommendationsService.RecommendCourses, request: { trade_id: "${gen.ulid}", limit: 3 } }',
      '    expect: { body: { courses: { type: array } } }',
      '',
    ].join('\n'),
  );
  const result = await capctl(['run', file, '--base-url', base]);
  t.is(result.code, 0, `${result.stdout}\n${result.stderr}`);
  t.regex(result.stdout, /PASS recommend/);
});

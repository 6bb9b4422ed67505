import test from 'ava';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { newId } from '../../server/platform/ids.ts';
import { runCapctl, startServe } from '../helpers/cli.ts';
import { call, type TestPlatform } from '../helpers/platform.ts';
import { signUp } from '../helpers/users.ts';
import { testDatabase } from '../helpers/postgres.ts';

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

test('a bad setting names the setting and the problem, and exits 2', async (t) => {
  const result = await runCapctl(['serve', '--port', 'http']);
  t.is(result.code, 2);
  t.regex(result.stderr, /invalid setting port: expected a port number/);
  const url = await runCapctl(['serve', '--database-url', 'mysql://x']);
  t.is(url.code, 2);
  t.regex(url.stderr, /invalid setting databaseUrl/);
  const cost = await runCapctl(['serve', '--password-hash-cost', 'cheap']);
  t.is(cost.code, 2);
  t.regex(cost.stderr, /invalid setting passwordHashCost: expected one of production, minimum/);
});

test('dev mode is refused when NODE_ENV=production', async (t) => {
  const result = await runCapctl(['serve'], { NODE_ENV: 'production', CAPCTL_DEV_MODE: 'true' });
  t.is(result.code, 2);
  t.regex(result.stderr, /development mode is not allowed/);
});

test('with DATABASE_URL, serve uses that server, answers on every listener, and exits 0 on SIGTERM', async (t) => {
  // An empty database, unlike the other tests' copies of the run's migrated one: the compiled build migrates it.
  const { url: databaseUrl, drop } = await testDatabase({ empty: true });
  t.teardown(drop);
  const serve = await startServe([...freePorts], { DATABASE_URL: databaseUrl });
  t.deepEqual(
    Object.keys(serve.urls).sort(),
    ['cap', 'gateway', 'grpc', 'grpc-lms', 'lms', 'ol'].filter((k) => !k.startsWith('grpc') || serve.urls[k]).sort(),
  );
  for (const service of ['ol', 'cap', 'lms']) {
    t.is((await call('GET', `${serve.urls.gateway}/v1/${service}/readyz`)).status, 200);
    t.is((await call('GET', `${serve.urls[service]}/readyz`)).status, 200);
  }
  t.is(await serve.stop('SIGTERM'), 0);
});

test('--only runs a subset and --no-service-ports serves the gateway alone', async (t) => {
  const { url: databaseUrl, drop } = await testDatabase();
  t.teardown(drop);
  const serve = await startServe(
    ['--port', '0', '--grpc-port', '0', '--lms-grpc-port', '0', '--no-service-ports', '--only', 'lms'],
    { DATABASE_URL: databaseUrl },
  );
  t.deepEqual(
    Object.keys(serve.urls).filter((k) => !k.startsWith('grpc')),
    ['gateway'],
  );
  t.is((await call('GET', `${serve.urls.gateway}/v1/lms/healthz`)).status, 200);
  t.is((await call('GET', `${serve.urls.gateway}/v1/cap/healthz`)).status, 404);
  t.is(await serve.stop('SIGINT'), 0);
});

test('the embedded database is created on first start, reused on the next, guarded against a second serve, and stopped on exit', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-serve-'));
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const env = { DATABASE_URL: '' };
  const first = await startServe(['--data-dir', dataDir, ...freePorts], env);
  t.true(fs.existsSync(path.join(dataDir, 'pg', 'PG_VERSION')));

  // From the sources, whose modules take longer to load than the refusal: nothing may still be loading when it exits.
  const second = await runCapctl(['serve', '--data-dir', dataDir, ...freePorts], { ...env, CAPCTL_FROM_SOURCE: '1' });
  t.is(second.code, 1);
  t.regex(
    second.stderr,
    /^capctl serve: data directory .* is in use by another capctl \(pid \d+\); stop it or use --data-dir\n$/,
    'one line',
  );
  t.is((await call('GET', `${first.urls.gateway}/v1/ol/readyz`)).status, 200, 'the running serve is unharmed');

  t.is(await first.stop(), 0);
  t.false(fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid')), 'postgres was stopped');
  t.false(fs.existsSync(path.join(dataDir, 'capctl.lock')));

  const again = await startServe(['--data-dir', dataDir, ...freePorts], env);
  t.is((await call('GET', `${again.urls.gateway}/v1/cap/readyz`)).status, 200);
  t.is(await again.stop(), 0);
});

test('a port in use is one clear line, not a stack trace', async (t) => {
  const blocker = net.createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  t.teardown(() => blocker.close());
  const port = (blocker.address() as net.AddressInfo).port;
  const { url: databaseUrl, drop } = await testDatabase();
  t.teardown(drop);
  for (const [flag, label] of [
    ['--port', 'gateway'],
    ['--grpc-port', 'grpc'],
    ['--lms-grpc-port', 'grpc-lms'],
  ]) {
    const result = await runCapctl(['serve', ...freePorts, flag!, String(port)], { DATABASE_URL: databaseUrl });
    t.is(result.code, 1, flag);
    // Besides the log's info lines (JSON) of what had started: one line, no stack trace, no error line.
    const said = result.stderr.split('\n').filter((line) => line && !/^\{"level":(10|20|30|40),/.test(line));
    t.deepEqual(
      said,
      [
        `capctl serve: ${label === 'gateway' ? '' : 'gRPC '}port ${port} (${label}) is already in use on 127.0.0.1; choose another with its flag`,
      ],
      result.stderr,
    );
  }
});

test('Ctrl-C in a terminal (SIGINT to the whole process group) stops serve cleanly: every request answered, no error line, PostgreSQL stopped after the platform', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-serve-'));
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const serve = await startServe(
    ['--data-dir', dataDir, ...freePorts],
    { DATABASE_URL: '', LOG_LEVEL: 'info' },
    { ownGroup: true },
  );
  t.teardown(() => serve.child.kill('SIGKILL'));
  const platform = { url: (p: string) => `${serve.urls.gateway}${p}` } as TestPlatform;
  await signUp(platform); // connections in every pool, events delivered
  const requests = await Promise.all(
    Array.from({ length: 5 }, (_, i) =>
      sendJson(platform.url('/v1/ol/auth/register'), {
        email: `ctrlc${i}+${newId().toLowerCase()}@example.test`,
        password: 'Correct-horse-9',
        intents: ['cap'],
      }),
    ),
  );
  process.kill(-serve.child.pid!, 'SIGINT');
  t.deepEqual(await Promise.all(requests.map((r) => r.answer)), Array(5).fill(201));
  t.is(await serve.exited, 0);
  const lines = serve
    .stderr()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string });
  t.deepEqual(
    lines.filter((line) => line.level >= 50),
    [],
    'no error-level line',
  );
  t.deepEqual(
    lines.filter((line) => /^database/.test(line.msg)),
    [],
    'the database was there until the platform had stopped',
  );
  t.false(fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid')), 'PostgreSQL was stopped');
});

test('on SIGTERM, a request already in flight still gets its answer before serve exits 0', async (t) => {
  const { url: databaseUrl, drop } = await testDatabase();
  t.teardown(drop);
  // The sandbox identity provider waits this long: a slow request to be caught in flight.
  const serve = await startServe([...freePorts], { DATABASE_URL: databaseUrl, IDENTITY_LATENCY_MS: '1500' });
  const gateway = serve.urls.gateway!;
  const platform = { url: (p: string) => `${gateway}${p}` } as TestPlatform;
  const user = await signUp(platform);
  const profile = await call('PATCH', platform.url('/v1/cap/me/profile'), {
    token: user.accessToken,
    json: {
      personalDetails: {
        firstName: 'Ada',
        lastName: 'Obi',
        dob: '1990-04-12',
        gender: 'Female',
        nationality: 'Nigerian',
      },
    },
  });
  t.is(profile.status, 200);

  const inFlight = call('POST', platform.url('/v1/cap/identity-verification'), {
    token: user.accessToken,
    json: { type: 'nin', identificationNumber: '10000000001' },
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  const exited = serve.stop('SIGTERM');
  const answer = await inFlight;
  t.is(answer.status, 200);
  t.is(answer.body.data.verified, true);
  t.is(await exited, 0);
});

/** POSTs a JSON body on a connection of its own; resolves once the whole request is sent, with its answer to come. */
function sendJson(url: string, body: unknown): Promise<{ answer: Promise<number | string> }> {
  return new Promise((sent, failed) => {
    let settle: (value: number | string) => void;
    const answer = new Promise<number | string>((resolve) => (settle = resolve));
    const req = http.request(
      url,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => settle(res.statusCode!));
        res.on('error', (err: NodeJS.ErrnoException) => settle(err.code ?? err.message));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => (settle(err.code ?? err.message), failed(err)));
    req.end(JSON.stringify(body), () => sent({ answer }));
  });
}

test('on SIGTERM with 10 registrations in flight, every one sent before the signal is answered, then serve exits 0', async (t) => {
  const { url: databaseUrl, drop } = await testDatabase();
  t.teardown(drop);
  const serve = await startServe([...freePorts], { DATABASE_URL: databaseUrl });
  const url = `${serve.urls.gateway}/v1/ol/auth/register`;
  // Sent in full before the signal; most wait in the kernel's accept queue, not yet taken in by the server.
  const requests = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      sendJson(url, {
        email: `drain${i}+${newId().toLowerCase()}@example.test`,
        password: 'Correct-horse-9',
        intents: ['cap'],
      }),
    ),
  );
  const exited = serve.stop('SIGTERM');
  t.deepEqual(await Promise.all(requests.map((r) => r.answer)), Array(10).fill(201));
  t.is(await exited, 0, serve.stderr());
  t.notRegex(serve.stderr(), /"level":(50|60)/, 'no error-level line');
});

// As root, the embedded PostgreSQL runs as user `postgres`. A data directory under a private home
// (its parent mode 700) is out of that user's reach, so the cluster is placed under
// CAPCTL_CLUSTER_HOME instead, and found there again on the next start.
const asRoot = process.getuid?.() === 0;

test('as root, a data directory under a private folder still serves: its cluster is placed where postgres can reach it', async (t) => {
  if (!asRoot) return t.pass('only root runs the embedded PostgreSQL as another user');
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-home-'));
  const clusters = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-clusters-'));
  fs.chmodSync(clusters, 0o755);
  const dataDir = path.join(home, 'project', '.capctl');
  fs.mkdirSync(path.dirname(dataDir), { recursive: true });
  fs.chmodSync(home, 0o700);
  t.teardown(() => {
    fs.rmSync(home, { recursive: true, force: true });
    fs.rmSync(clusters, { recursive: true, force: true });
  });
  const env = { CAPCTL_CLUSTER_HOME: clusters, DATABASE_URL: '' };
  for (const start of ['first', 'next']) {
    const serve = await startServe(['--data-dir', dataDir, ...freePorts], env);
    t.is((await call('GET', `${serve.urls.gateway}/v1/cap/readyz`)).status, 200, `${start} start`);
    t.is(await serve.stop('SIGTERM'), 0);
  }
  const placed = fs.readFileSync(path.join(dataDir, 'pg-location'), 'utf8').trim();
  t.is(path.dirname(placed), clusters);
  t.true(fs.existsSync(path.join(placed, 'PG_VERSION')));
});

test('as root, when no reachable place can be found either, serve says why in one line and exits 2', async (t) => {
  if (!asRoot) return t.pass('only root runs the embedded PostgreSQL as another user');
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-home-'));
  fs.chmodSync(home, 0o700);
  t.teardown(() => fs.rmSync(home, { recursive: true, force: true }));
  const result = await runCapctl(['serve', '--data-dir', path.join(home, '.capctl'), ...freePorts], {
    CAPCTL_CLUSTER_HOME: path.join(home, 'clusters'),
    DATABASE_URL: '',
  });
  t.is(result.code, 2);
  const lines = result.stderr.trim().split('\n');
  t.is(lines.length, 1, result.stderr);
  t.regex(lines[0]!, /runs as user "postgres".*cannot reach .*has mode 700.*--data-dir/);
});

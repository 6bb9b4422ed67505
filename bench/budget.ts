// "Fast to start, fast to answer, small in memory": every figure as a ratio against a baseline measured
// in the same run, on the same machine.
//
//   capctl --help                      vs  node -e 0
//   capctl serve, next start           (absolute; the baseline is the goal)
//   GET /v1/cap/me (authenticated)     vs  a bare Express 5 JSON hello in its own process, 32 connections
//   GET /v1/cap/healthz (gateway)      vs  the same hello
//   GET /v1/cap/centre/staff, 10,000 rows in the centre (first page)  vs  the same hello
//   server RSS after the load
//
// with NODE_ENV=production, against the goals, and in development mode (the default: every reply checked
// against its document), against production: the checks may cost at most 30 % on top of production's
// time. Each request figure is taken in three rounds, each a load of the hello and then of the figure,
// and the round with the median ratio is reported. Loopback only; about six minutes.
// `node --import=tsx bench/budget.ts [--seconds 5] [--rounds 3]`
import autocannon from 'autocannon';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadDrafts } from '../server/platform/dev/provider-states.ts';
import { newId } from '../server/platform/ids.ts';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '5' }, rounds: { type: 'string', default: '3' } },
});
const loadSeconds = Number(values.seconds);
const rounds = Number(values.rounds);
const connections = 32;
const capctl = path.resolve('bin/capctl');
const productionEnv = {
  NODE_ENV: 'production',
  ORCHESTRATOR_SERVICE_API_KEY: 'bench-service-key-0123456789',
  MAIL_URL: 'smtp://127.0.0.1:9',
  GOOGLE_CLIENT_ID: 'bench-google-client',
  IDENTITY_HMAC_KEY: 'bench-identity-hmac-key-0123456789',
  PAYMENT_SECRET_KEY: 'bench-payment-secret-key-0123456789',
};

interface Row {
  figure: string;
  measured: string;
  baseline: string;
  ratio: string;
  goal: string;
  met: boolean;
}
const rows: Row[] = [];
const record = (row: Row) => {
  rows.push(row);
  console.error(
    `  ${row.figure}: ${row.measured} (baseline ${row.baseline}) ${row.ratio} goal ${row.goal} ${row.met ? 'met' : 'NOT MET'}`,
  );
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function wallMs(args: string[], env: NodeJS.ProcessEnv = process.env): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { env, stdio: 'ignore' });
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status}`);
  return performance.now() - started;
}

// ---------------------------------------------------------------- the command line
function cliStart(): void {
  wallMs([capctl, '--help']); // builds if needed, warms the file cache
  const node = median(Array.from({ length: 15 }, () => wallMs(['-e', '0'])));
  const help = median(Array.from({ length: 15 }, () => wallMs([capctl, '--help'])));
  record({
    figure: 'capctl --help, wall time',
    measured: `${help.toFixed(0)} ms`,
    baseline: `node -e 0 ${node.toFixed(0)} ms`,
    ratio: `${(help / node).toFixed(1)}x`,
    goal: '<= 3x',
    met: help / node <= 3,
  });
}

// ---------------------------------------------------------------- processes
interface Serve {
  child: ChildProcess;
  gateway: string;
  readyMs: number;
  stop(): Promise<void>;
}

function serve(dataDir: string, env: NodeJS.ProcessEnv = {}): Promise<Serve> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      capctl,
      'serve',
      '--data-dir',
      dataDir,
      '--port',
      '0',
      '--no-service-ports',
      '--grpc-port',
      '0',
      '--lms-grpc-port',
      '0',
    ],
    { env: { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stderr!.resume(); // the access log: written as it is in real use, then dropped
  return new Promise((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`capctl serve exited with ${code}`)));
    child.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('ready '));
      if (!line) return;
      child.removeAllListeners('exit');
      resolve({
        child,
        readyMs: performance.now() - started,
        gateway: /gateway=(\S+)/.exec(line)![1]!,
        stop: () =>
          new Promise((done) => {
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

/** A bare Express 5 app answering one JSON hello, in its own process, as the throughput baseline. */
function hello(): Promise<{ url: string; stop(): void }> {
  const source = `
    import express from 'express';
    const app = express();
    app.get('/hello', (req, res) => res.json({ success: true, data: { hello: 'world' } }));
    const server = app.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', source], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve) => {
    child.stdout!.once('data', (d) =>
      resolve({ url: `http://127.0.0.1:${String(d).trim()}/hello`, stop: () => child.kill() }),
    );
  });
}

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

interface Load {
  perSecond: number;
  p99: number;
  errors: number;
}

async function load(url: string, headers: Record<string, string> = {}, seconds = loadSeconds): Promise<Load> {
  const result = await autocannon({ url, headers, connections, duration: seconds });
  return { perSecond: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

// ---------------------------------------------------------------- the platform's data
async function call(
  gateway: string,
  method: string,
  urlPath: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${gateway}${urlPath}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { data?: any };
  if (!res.ok) throw new Error(`${method} ${urlPath}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

const password = 'Bench-pass-1234';

/** A verified user who owns a centre (through the real sign-up and onboarding), in development mode. */
async function prepareOwner(gateway: string): Promise<{ email: string }> {
  const email = `owner+${newId().toLowerCase()}@example.test`;
  await call(gateway, 'POST', '/v1/ol/auth/register', { email, password, intents: ['cap'] });
  let otp: string | undefined;
  for (let i = 0; i < 100 && !otp; i++) {
    otp = (await call(gateway, 'GET', `/v1/ol/dev/mailbox?to=${encodeURIComponent(email)}`))[0]?.otp;
    if (!otp) await new Promise((r) => setTimeout(r, 100));
  }
  const { accessToken } = await call(gateway, 'POST', '/v1/ol/auth/verify-account', {
    email,
    otp,
    purpose: 'account_verify',
  });
  const auth = { authorization: `Bearer ${accessToken}` };
  await call(gateway, 'POST', '/v1/cap/onboarding/start', { persona: 'centre' }, auth);
  await call(gateway, 'PATCH', '/v1/cap/onboarding/centre/save', loadDrafts('cap').centre, auth);
  await call(gateway, 'POST', '/v1/cap/onboarding/centre/submit', undefined, auth);
  return { email };
}

/** 10,000 members (and their users) in the owner's centre, written straight to the database: only their reading is measured. */
async function fillCentre(dataDir: string, ownerEmail: string): Promise<void> {
  const client = new pg.Client({
    connectionString: fs.readFileSync(path.join(dataDir, 'database-url'), 'utf8').trim(),
  });
  await client.connect();
  try {
    const [centre] = (await client.query(`SELECT s.centre_id FROM cap.centre_staff s WHERE s.email = $1`, [ownerEmail]))
      .rows;
    const ids = Array.from({ length: 10_000 }, () => newId());
    await client.query(
      `INSERT INTO cap.users (user_id, email, created_at, updated_at)
       SELECT id, 'member' || n || '@example.test', now(), now() FROM unnest($1::text[]) WITH ORDINALITY AS t(id, n)`,
      [ids],
    );
    await client.query(
      `INSERT INTO cap.centre_staff (id, centre_id, user_id, role, status, name, email, created_at, updated_at)
       SELECT id, $1, id, 'staff', 'active', 'Member ' || n, 'member' || n || '@example.test', now(), now()
         FROM unnest($2::text[]) WITH ORDINALITY AS t(id, n)`,
      [centre.centre_id, ids],
    );
    await client.query('ANALYZE cap.centre_staff');
  } finally {
    await client.end();
  }
}

async function login(gateway: string, email: string): Promise<Record<string, string>> {
  const { accessToken } = await call(gateway, 'POST', '/v1/ol/auth/login', { email, password });
  return { authorization: `Bearer ${accessToken}` };
}

// ---------------------------------------------------------------- the run
const readFigures = ['GET /v1/cap/me', 'GET /v1/cap/healthz', 'GET /v1/cap/centre/staff (10,000 rows)'] as const;
type ReadFigure = (typeof readFigures)[number];

/**
 * The three loads against one running platform, each right after a load of the hello (the machine's
 * speed drifts over the minutes a run takes: a baseline taken once at the start moved the ratios by
 * several hundredths), and the platform's RSS after them.
 */
async function reads(platform: Serve, owner: { email: string }, helloUrl: string) {
  const auth = await login(platform.gateway, owner.email);
  // The machine's speed drifts within a run, by more than the differences measured here: the median
  // of a few pairs is steadier than one pair.
  const paired = async (url: string, headers: Record<string, string> = {}) => {
    await load(helloUrl, {}, 2); // warm-ups
    await load(url, headers, 2);
    const pairs: Array<{ hello: Load; figure: Load }> = [];
    for (let i = 0; i < rounds; i++) pairs.push({ hello: await load(helloUrl), figure: await load(url, headers) });
    const ratio = (pair: (typeof pairs)[number]) => pair.figure.perSecond / pair.hello.perSecond;
    console.error(
      `    ${url.replace(/^.*\/v1/, '/v1')}: ratios ${pairs.map((pair) => ratio(pair).toFixed(2)).join(', ')}`,
    );
    return pairs.sort((a, b) => ratio(a) - ratio(b))[Math.floor(pairs.length / 2)]!;
  };
  const loads: Record<ReadFigure, { hello: Load; figure: Load }> = {
    'GET /v1/cap/me': await paired(`${platform.gateway}/v1/cap/me`, auth),
    'GET /v1/cap/healthz': await paired(`${platform.gateway}/v1/cap/healthz`),
    'GET /v1/cap/centre/staff (10,000 rows)': await paired(`${platform.gateway}/v1/cap/centre/staff?limit=20`, {
      ...auth,
      'x-cap-persona': 'centre',
    }),
  };
  return { loads, rss: rssMb(platform.child.pid!) };
}

const goals: Record<ReadFigure, { ratio: number; p99?: number }> = {
  'GET /v1/cap/me': { ratio: 0.8, p99: 25 },
  'GET /v1/cap/healthz': { ratio: 0.9 },
  'GET /v1/cap/centre/staff (10,000 rows)': { ratio: 0.3, p99: 25 },
};
/** Development mode checks every reply against its document; the issue allows that 30 % on top of production's time. */
const developmentShare = 1 / 1.3;

const shown = (r: Load) => `${Math.round(r.perSecond)} req/s, p99 ${r.p99} ms${r.errors ? `, ${r.errors} errors` : ''}`;

/** Production against the goals and the hello; development against production. */
function recordReads(
  production: Awaited<ReturnType<typeof reads>>,
  development: Awaited<ReturnType<typeof reads>>,
): void {
  for (const figure of readFigures) {
    const { hello, figure: r } = production.loads[figure];
    const goal = goals[figure];
    const ratio = r.perSecond / hello.perSecond;
    record({
      figure: `${figure}, production mode`,
      measured: shown(r),
      baseline: `hello ${shown(hello)}`,
      ratio: `${ratio.toFixed(2)}x`,
      goal: `>= ${goal.ratio}x${goal.p99 ? `, p99 <= ${goal.p99} ms` : ''}`,
      met: ratio >= goal.ratio && (!goal.p99 || r.p99 <= goal.p99) && r.errors === 0,
    });
  }
  for (const figure of readFigures) {
    const { hello, figure: r } = development.loads[figure];
    const inProduction = production.loads[figure].figure.perSecond;
    const share = r.perSecond / inProduction;
    record({
      figure: `${figure}, development mode`,
      measured: `${shown(r)} (${(r.perSecond / hello.perSecond).toFixed(2)}x of the hello)`,
      baseline: `production ${Math.round(inProduction)} req/s`,
      ratio: `${share.toFixed(2)}x`,
      goal: `>= ${developmentShare.toFixed(2)}x (checks cost <= 30 %)`,
      met: share >= developmentShare && r.errors === 0,
    });
  }
  for (const [mode, rss] of [
    ['production', production.rss],
    ['development', development.rss],
  ] as const) {
    record({
      figure: `server RSS after the load, ${mode} mode`,
      measured: `${rss.toFixed(0)} MB`,
      baseline: '-',
      ratio: '-',
      goal: '<= 200 MB',
      met: rss <= 200,
    });
  }
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-budget-'));
const baselineServer = await hello();
try {
  console.error('capctl on the command line');
  cliStart();

  console.error('capctl serve');
  const first = await serve(dataDir);
  const owner = await prepareOwner(first.gateway);
  await fillCentre(dataDir, owner.email);
  await first.stop();
  const nextStarts: number[] = [];
  for (let i = 0; i < 3; i++) {
    const again = await serve(dataDir);
    nextStarts.push(again.readyMs);
    await again.stop();
  }
  const next = median(nextStarts);
  record({
    figure: 'capctl serve ready, next start',
    measured: `${next.toFixed(0)} ms (first start ${first.readyMs.toFixed(0)} ms)`,
    baseline: '-',
    ratio: '-',
    goal: '<= 1500 ms',
    met: next <= 1500,
  });

  const measured: Array<Awaited<ReturnType<typeof reads>>> = [];
  for (const [mode, env] of [
    ['production mode', productionEnv],
    ['development mode', {}],
  ] as const) {
    console.error(mode);
    const platform = await serve(dataDir, env);
    try {
      measured.push(await reads(platform, owner, baselineServer.url));
    } finally {
      await platform.stop();
    }
  }
  recordReads(measured[0]!, measured[1]!);
} finally {
  baselineServer.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

console.log('| Figure | Measured | Baseline (same run) | Ratio | Goal | Met |');
console.log('|---|---|---|---|---|---|');
for (const r of rows)
  console.log(`| ${r.figure} | ${r.measured} | ${r.baseline} | ${r.ratio} | ${r.goal} | ${r.met ? 'yes' : 'no'} |`);

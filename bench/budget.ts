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
// time. Each request figure is taken in five rounds, each a load of the hello and one of the figure in
// turn (bench/measure.ts, `paired`), and the round with the median ratio is reported. Loopback only;
// about six minutes.
// `node --import=tsx bench/budget.ts [--seconds 3] [--rounds 5]`
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { newId } from '../server/platform/ids.ts';
import {
  call,
  capctl,
  hello,
  login as signIn,
  median,
  password,
  prepareOwner,
  paired as pairedLoads,
  printTable,
  productionEnv,
  record,
  rssMb,
  serve,
  shown,
  type Load,
  type Serve,
} from './measure.ts';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '3' }, rounds: { type: 'string', default: '5' } },
});
const loadSeconds = Number(values.seconds);
const rounds = Number(values.rounds);

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

const login = (gateway: string, email: string) => signIn(gateway, email, password);

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
  const paired = (url: string, headers: Record<string, string> = {}) =>
    pairedLoads(helloUrl, url, headers, { rounds, seconds: loadSeconds });
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

printTable();

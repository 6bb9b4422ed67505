// What the benchmarks share: `capctl serve` in its own process, the bare Express hello they measure
// against, autocannon loads paired with loads of the hello, and the table of figures they print.
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { loadDrafts } from '../server/platform/dev/provider-states.ts';
import { newId } from '../server/platform/ids.ts';

export const capctl = path.resolve('bin/capctl');
export const connections = 32;
export const productionEnv = {
  NODE_ENV: 'production',
  ORCHESTRATOR_SERVICE_API_KEY: 'bench-service-key-0123456789',
  MAIL_URL: 'smtp://127.0.0.1:9',
  GOOGLE_CLIENT_ID: 'bench-google-client',
  IDENTITY_HMAC_KEY: 'bench-identity-hmac-key-0123456789',
  PAYMENT_SECRET_KEY: 'bench-payment-secret-key-0123456789',
};

export interface Row {
  figure: string;
  measured: string;
  baseline: string;
  ratio: string;
  goal: string;
  met: boolean;
}
const rows: Row[] = [];
export const record = (row: Row) => {
  rows.push(row);
  console.error(
    `  ${row.figure}: ${row.measured} (baseline ${row.baseline}) ${row.ratio} goal ${row.goal} ${row.met ? 'met' : 'NOT MET'}`,
  );
};
/** The figures recorded so far as a Markdown table, on stdout. */
export function printTable(): void {
  console.log('| Figure | Measured | Baseline (same run) | Ratio | Goal | Met |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows)
    console.log(`| ${r.figure} | ${r.measured} | ${r.baseline} | ${r.ratio} | ${r.goal} | ${r.met ? 'yes' : 'no'} |`);
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// ---------------------------------------------------------------- processes
export interface Serve {
  child: ChildProcess;
  gateway: string;
  readyMs: number;
  stop(): Promise<void>;
}

/** `capctl serve` on `dataDir`; `bin` may be another checkout's capctl (bench/cpu.ts compares two). */
export function serve(dataDir: string, env: NodeJS.ProcessEnv = {}, bin = capctl): Promise<Serve> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      bin,
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
export function hello(): Promise<{ url: string; pid: number; stop(): void }> {
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
      resolve({ url: `http://127.0.0.1:${String(d).trim()}/hello`, pid: child.pid!, stop: () => child.kill() }),
    );
  });
}

export function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

// ---------------------------------------------------------------- loads
export interface Load {
  perSecond: number;
  p99: number;
  errors: number;
}

export async function load(url: string, headers: Record<string, string>, seconds: number): Promise<Load> {
  const result = await autocannon({ url, headers, connections, duration: seconds });
  return { perSecond: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

export interface Paired {
  hello: Load;
  figure: Load;
  /** Every round's ratio, in the order taken. */
  ratios: number[];
}

/**
 * A figure loaded in rounds, each a load of the hello and one of the figure back to back, after a short
 * warm-up of each: the machine's speed drifts within a run by more than the differences measured, so
 * the rounds take the two in turn (hello first, then the figure first, ...) so that a steady drift
 * favours neither, the round with the median ratio is reported, and every round's ratio printed.
 */
export async function paired(
  helloUrl: string,
  url: string,
  headers: Record<string, string>,
  options: { rounds: number; seconds: number },
): Promise<Paired> {
  await load(helloUrl, {}, 2);
  await load(url, headers, 2);
  const pairs: Array<{ hello: Load; figure: Load }> = [];
  for (let i = 0; i < options.rounds; i++) {
    const loadHello = () => load(helloUrl, {}, options.seconds);
    const loadFigure = () => load(url, headers, options.seconds);
    if (i % 2 === 0) pairs.push({ hello: await loadHello(), figure: await loadFigure() });
    else {
      const figure = await loadFigure();
      pairs.push({ figure, hello: await loadHello() });
    }
  }
  const ratio = (pair: (typeof pairs)[number]) => pair.figure.perSecond / pair.hello.perSecond;
  const ratios = pairs.map(ratio);
  console.error(`    ${url.replace(/^.*\/v1/, '/v1')}: ratios ${ratios.map((r) => r.toFixed(2)).join(', ')}`);
  return { ...pairs.sort((a, b) => ratio(a) - ratio(b))[Math.floor(pairs.length / 2)]!, ratios };
}

export const shown = (r: Load) =>
  `${Math.round(r.perSecond)} req/s, p99 ${r.p99} ms${r.errors ? `, ${r.errors} errors` : ''}`;

// ---------------------------------------------------------------- the platform's API
export async function call(
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

export async function login(gateway: string, email: string, password: string): Promise<Record<string, string>> {
  const { accessToken } = await call(gateway, 'POST', '/v1/ol/auth/login', { email, password });
  return { authorization: `Bearer ${accessToken}` };
}

export const password = 'Bench-pass-1234';

/** A verified user who owns a centre (through the real sign-up and onboarding), in development mode. */
export async function prepareOwner(gateway: string): Promise<{ email: string }> {
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

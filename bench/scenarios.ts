// A bundled scenario end to end against a seeded embedded platform in this process (as `capctl run
// --embedded` makes it), through the real runner: first one run at a time, then 20 runs at once (the
// runner's --concurrency 20). Prints wall time and per-run mean, p50 and p95. By default
// candidate-signup (register, mailed code, verify, login, CAP onboarding, refresh rotation) and then
// certify (the whole RPL lifecycle from sign-up to certificate). Loopback only; bounded (every phase has
// a fixed number of runs and the whole benchmark gives up after BENCH_TIMEOUT_MS, default 10 minutes).
//
// With --timeline, also where a run's time goes: each step's mean time over the runs one at a time (and
// its attempts, for steps that retry), and the SQL statements a run makes (every statement of this
// process's node-postgres clients: the services', the event bus's and the relay's), top ones by time.
//
//   node --import=tsx bench/scenarios.ts [--scenario name]... [--sequential N] [--concurrent N] [--timeline]
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startEmbeddedPlatform } from '../cli/scenarios/embedded.ts';
import { closeGrpc } from '../cli/scenarios/grpc-step.ts';
import { loadScenarios } from '../cli/scenarios/parse.ts';
import { describeFailure, plain } from '../cli/scenarios/report-text.ts';
import { runScenarios, type RunEvent, type RunReport } from '../cli/scenarios/runner.ts';
import { requestScope } from '../server/platform/request-scope.ts';

const { values } = parseArgs({
  options: {
    scenario: { type: 'string', multiple: true, default: ['candidate-signup', 'certify'] },
    sequential: { type: 'string', default: '10' },
    concurrent: { type: 'string', default: '20' },
    timeline: { type: 'boolean', default: false },
  },
});
const sequentialRuns = Number(values.sequential);
const concurrentRuns = Number(values.concurrent);
const timeoutMs = Number(process.env.BENCH_TIMEOUT_MS ?? 600_000);

const giveUp = setTimeout(() => {
  console.error(`benchmark did not finish within ${timeoutMs} ms`);
  process.exit(1);
}, timeoutMs);
giveUp.unref();

/** Statements by text (numbers in the text folded), counted while `counting` is on. */
const statements = new Map<string, { calls: number; ms: number }>();
let counting = false;
/**
 * Statements made so far; those made for an HTTP request; and idle looks, which come with the time a
 * run takes rather than with what it does: a pg-boss fetch that found no job, an outbox looked at
 * and found empty (with the BEGIN and COMMIT around a locking look), a lease renewal.
 */
let statementsMade = 0;
let inRequests = 0;
let idleLooks = 0;
function idleLook(text: string, rows: unknown[] | undefined): number {
  if (text.includes('event_workers')) return 1;
  if (!rows || rows.length > 1) return 0;
  if (text.includes('WITH next as') && rows.length === 0) return 1;
  if (/\.outbox\b/.test(text) && /FOR UPDATE/.test(text) && rows.length === 0) return 3;
  if (/EXISTS \(SELECT 1 FROM "\w+"\.outbox/.test(text) && (rows[0] as { waiting?: boolean })?.waiting === false)
    return 1;
  return 0;
}
if (values.timeline) {
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as string | { text?: string } | undefined;
    const text = typeof config === 'string' ? config : config?.text;
    if (!counting || !text) return query.apply(this, args);
    const started = performance.now();
    if (requestScope()) inRequests += 1;
    const key = text
      .replace(/\s+/g, ' ')
      .replace(/\b\d+\b/g, 'N')
      .slice(0, 160);
    const settle = (result?: unknown) => {
      idleLooks += idleLook(text, (result as { rows?: unknown[] } | undefined)?.rows);
      const entry = statements.get(key) ?? { calls: 0, ms: 0 };
      entry.calls += 1;
      statementsMade += 1;
      entry.ms += performance.now() - started;
      statements.set(key, entry);
    };
    // Sequelize passes a callback; pg-boss and the relay await the promise.
    const callback = args.at(-1);
    if (typeof callback === 'function') {
      args[args.length - 1] = (...results: unknown[]) => {
        settle(results[1]);
        return callback(...results);
      };
      return query.apply(this, args);
    }
    const result = query.apply(this, args);
    if (result instanceof Promise) result.then(settle, () => settle());
    return result;
  } as typeof pg.Client.prototype.query;
}

const platform = await startEmbeddedPlatform({ logLevel: 'error' });
const options = { baseUrl: platform.baseUrl };

function mustPass(report: RunReport): void {
  if (report.exitCode === 0) return;
  const failed = report.scenarios.flatMap((s) => s.steps.filter((step) => step.status === 'failed'));
  throw new Error(
    `the scenario failed:\n${failed.map((step) => [step.id, ...describeFailure(step, plain)].join('\n')).join('\n')}`,
  );
}

const mean = (durations: number[]) => durations.reduce((sum, d) => sum + d, 0) / durations.length;

/** Issue 31's goals for certify in development mode: a run in 0.7 s at most, 450 steps/s at 20 at once. */
function goalOf(name: string, phase: 'sequential' | 'concurrent', figure: number): string {
  if (name !== 'certify') return '';
  const met = phase === 'sequential' ? figure <= 700 : figure >= 450;
  return `; goal ${phase === 'sequential' ? 'mean <= 700 ms' : '>= 450 steps/s'} ${met ? 'met' : 'NOT MET'}`;
}

function stats(durations: number[]) {
  const sorted = [...durations].sort((a, b) => a - b);
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)]!;
  return `mean ${Math.round(mean(durations))} ms, p50 ${pct(0.5)} ms, p95 ${pct(0.95)} ms, min ${sorted[0]} ms, max ${sorted.at(-1)} ms`;
}

async function bench(name: string): Promise<void> {
  const scenario = (await loadScenarios(`fixtures/scenarios/${name}.yaml`))[0]!;
  const steps = scenario.steps.length;
  console.log(`scenario: ${scenario.name} (${steps} steps), embedded platform at ${platform.baseUrl}`);

  mustPass(await runScenarios([scenario], options)); // warm-up: connections, JIT, first argon2 hashes

  const sequential: number[] = [];
  const stepTimes = new Map<string, { ms: number[]; attempts: number[]; all: number[]; requests: number[] }>();
  let madeBefore = 0;
  let inRequestsBefore = 0;
  const stepStatements = new Map<string, { all: number; requests: number }>();
  const onEvent = (event: RunEvent) => {
    if (event.type === 'step-start') [madeBefore, inRequestsBefore] = [statementsMade, inRequests];
    if (event.type === 'step-end')
      stepStatements.set(event.result.id, {
        all: statementsMade - madeBefore,
        requests: inRequests - inRequestsBefore,
      });
  };
  const [madeAtStart, inRequestsAtStart, idleAtStart] = [statementsMade, inRequests, idleLooks];
  statements.clear();
  counting = true;
  const sequentialStarted = performance.now();
  const cpuStarted = process.cpuUsage();
  for (let i = 0; i < sequentialRuns; i++) {
    const report = await runScenarios([scenario], { ...options, onEvent });
    mustPass(report);
    sequential.push(report.scenarios[0]!.durationMs);
    for (const step of report.scenarios[0]!.steps) {
      const times = stepTimes.get(step.id) ?? { ms: [], attempts: [], all: [], requests: [] };
      times.ms.push(step.durationMs);
      times.attempts.push(step.attempts);
      times.all.push(stepStatements.get(step.id)?.all ?? 0);
      times.requests.push(stepStatements.get(step.id)?.requests ?? 0);
      stepTimes.set(step.id, times);
    }
  }
  const sequentialWall = performance.now() - sequentialStarted;
  const cpu = process.cpuUsage(cpuStarted);
  counting = false;
  console.log(
    `one at a time, ${sequentialRuns} runs: wall ${Math.round(sequentialWall)} ms; per run ${stats(sequential)}${goalOf(name, 'sequential', mean(sequential))}`,
  );
  console.log(
    `  this process's CPU per run (platform and runner; PostgreSQL not counted): ${Math.round((cpu.user + cpu.system) / 1000 / sequentialRuns)} ms`,
  );
  if (values.timeline && sequentialRuns > 0) {
    const made = (statementsMade - madeAtStart) / sequentialRuns;
    const requests = (inRequests - inRequestsAtStart) / sequentialRuns;
    const idle = (idleLooks - idleAtStart) / sequentialRuns;
    printTimeline(stepTimes, sequentialRuns, { made, requests, idle });
  }

  const concurrentStarted = performance.now();
  const concurrentCpuStarted = process.cpuUsage();
  const report = await runScenarios(
    Array.from({ length: concurrentRuns }, () => scenario),
    { ...options, concurrency: concurrentRuns },
  );
  const concurrentWall = performance.now() - concurrentStarted;
  const concurrentCpu = process.cpuUsage(concurrentCpuStarted);
  mustPass(report);
  const perRun = report.scenarios.map((s) => s.durationMs);
  const stepsPerSecond = ((concurrentRuns * steps) / (concurrentWall / 1000)).toFixed(0);
  console.log(
    `${concurrentRuns} at once (--concurrency ${concurrentRuns}): wall ${Math.round(concurrentWall)} ms; per run ${stats(perRun)}; ${stepsPerSecond} steps/s${goalOf(name, 'concurrent', Number(stepsPerSecond))}`,
  );
  if (concurrentRuns > 0)
    console.log(
      `  this process's CPU per run at once: ${Math.round((concurrentCpu.user + concurrentCpu.system) / 1000 / concurrentRuns)} ms (${Math.round((100 * (concurrentCpu.user + concurrentCpu.system)) / 1000 / concurrentWall)} % of the wall time)`,
    );
}

function printTimeline(
  stepTimes: Map<string, { ms: number[]; attempts: number[]; all: number[]; requests: number[] }>,
  runs: number,
  perRun: { made: number; requests: number; idle: number },
): void {
  console.log('  step: mean ms; statements meanwhile, in its requests / all (attempts when it retried)');
  for (const [id, { ms, attempts, all, requests }] of stepTimes) {
    const tries = mean(attempts);
    console.log(
      `    ${id}: ${mean(ms).toFixed(1)} ms; ${mean(requests).toFixed(1)} / ${mean(all).toFixed(1)}${tries > 1 ? ` (${tries.toFixed(1)} attempts)` : ''}`,
    );
  }
  const { made, requests, idle } = perRun;
  console.log(
    `  statements per run: ${made.toFixed(0)}: ${requests.toFixed(0)} in requests, ${(made - requests - idle).toFixed(0)} relaying and delivering events, ${idle.toFixed(0)} idle looks (pg-boss fetches and outbox looks that found nothing, lease renewals)`,
  );
  const rows = [...statements.entries()].sort((a, b) => b[1].ms - a[1].ms);
  console.log('  top statements by time awaited (per run):');
  for (const [text, s] of rows.slice(0, 25)) {
    console.log(`    ${(s.calls / runs).toFixed(1)} x, ${(s.ms / runs).toFixed(1)} ms: ${text}`);
  }
}

try {
  for (const name of values.scenario) await bench(name);
} finally {
  await closeGrpc();
  await platform.stop();
}

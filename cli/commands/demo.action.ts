/** The work of `capctl demo` (demo.ts defines the command). */
import fs from 'node:fs';
import path from 'node:path';
import { request } from 'undici';
import { projectPath } from '../../server/platform/paths.ts';
import { conventionalExitCode, onEveryWayOut } from '../lifetime.ts';
import { exitCodes, UnreachableError, UsageError } from '../output.ts';
import { closeGrpc } from '../scenarios/grpc-step.ts';
import { startEmbeddedPlatform, type EmbeddedPlatform } from '../scenarios/embedded.ts';
import { loadScenarios } from '../scenarios/parse.ts';
import { ProgressPrinter } from '../scenarios/progress.ts';
import { jsonReport } from '../scenarios/report-json.ts';
import { junitReport } from '../scenarios/report-junit.ts';
import { runScenarios } from '../scenarios/runner.ts';
import type { Scenario } from '../scenarios/types.ts';
import { scenarioFiles } from '../scenarios/files.ts';

export interface DemoOptions {
  keep?: boolean;
  json?: boolean;
  junit?: string;
  concurrency: number;
  logLevel: string;
}

const bundledDir = projectPath('fixtures', 'scenarios');

export async function demo(options: DemoOptions): Promise<number> {
  // With --json, stdout carries the report alone.
  const say = (line: string) => (options.json ? process.stderr : process.stdout).write(`${line}\n`);

  // A broken bundled scenario is found before anything starts (exit 2, with file:line:column).
  const files = await scenarioFiles(shown(bundledDir));
  for (const file of files) await loadScenarios(file);

  const { readyLine } = await import('../../server/main.ts');
  const started = performance.now();
  // A signal (Ctrl-C) or a closed output while the platform starts or scenarios run still stops the
  // platform and its PostgreSQL; with --keep, a signal is the way to end it, with the run's exit code.
  let kept: number | undefined;
  const lifetime = onEveryWayOut({
    exitCode: (way) => (kept !== undefined && way !== 'EPIPE' ? kept : conventionalExitCode(way)),
  });
  let platform: EmbeddedPlatform;
  try {
    platform = await startEmbeddedPlatform({ logLevel: options.logLevel });
  } catch (err) {
    lifetime.dispose();
    if (!(err instanceof UnreachableError)) throw err;
    process.stderr.write(`capctl demo: ${err.message}\n`);
    return exitCodes.failed;
  }
  const stop = () => platform.stop();
  lifetime.stopWith(async (way) => {
    if (way !== 'EPIPE') say(`\n${way}: stopping the platform`);
    await closeGrpc();
    await stop();
    if (way !== 'EPIPE') say('platform stopped');
  });

  try {
    say(`${readyLine(platform.urls)}  (${seconds(performance.now() - started)})`);
    const checks = await readinessChecks(platform.urls, platform.services);
    for (const check of checks)
      say(`${check.ready ? 'ready    ' : 'NOT READY'}  ${check.what}${check.ready ? '' : `: ${check.problem}`}`);
    const notReady = checks.filter((c) => !c.ready).length;
    if (notReady > 0) {
      say(`${notReady} listener(s) not ready: scenarios not run`);
      return exitCodes.failed;
    }
    say('all services ready');
    // The platform was seeded as `capctl seed` does it; its first platform admin is the one the admin
    // scenarios sign in as.
    say(
      `seeded: ${Object.entries(platform.seeded)
        .map(([record, c]) => `${c.created} ${record}`)
        .join(', ')}`,
    );
    const vars = platform.adminVars;
    const scenarios: Scenario[] = [];
    for (const file of files) scenarios.push(...(await loadScenarios(file, { vars })));
    say(`running ${scenarios.length} bundled scenario${scenarios.length === 1 ? '' : 's'}\n`);

    const printer = options.json ? undefined : new ProgressPrinter(process.stdout, options.concurrency === 1);
    let exitCode: number;
    try {
      const report = await runScenarios(scenarios, {
        baseUrl: platform.baseUrl,
        concurrency: options.concurrency,
        ...(printer ? { onEvent: printer.handle } : {}),
      });
      if (options.junit) writeJunit(options.junit, junitReport(report));
      if (options.json) process.stdout.write(`${JSON.stringify(jsonReport(report), null, 2)}\n`);
      printer?.finish(report);
      exitCode = report.exitCode;
    } catch (err) {
      if (!(err instanceof UnreachableError)) throw err;
      process.stderr.write(`capctl demo: ${err.message}\n`);
      return exitCodes.unreachable;
    }

    if (options.keep) {
      kept = exitCode;
      say(`\nkeeping the platform: ${readyLine(platform.urls)}`);
      say('press Ctrl-C to stop it');
      await new Promise<void>(() => undefined); // until a signal stops it and ends the process
    }
    return exitCode;
  } finally {
    await closeGrpc();
    const stopStarted = performance.now();
    await stop();
    lifetime.dispose();
    say(`platform stopped (${seconds(performance.now() - stopStarted)})`);
  }
}

interface Check {
  what: string;
  ready: boolean;
  problem?: string;
}

/** readyz on every HTTP listener (the gateway once per service prefix), the gRPC health check on every gRPC one. */
async function readinessChecks(urls: Record<string, string>, services: string[]): Promise<Check[]> {
  const checks: Array<Promise<Check>> = [];
  for (const [name, base] of Object.entries(urls)) {
    if (name.startsWith('grpc')) {
      checks.push(grpcHealth(base.replace(/^\w+:\/\//, '')));
      continue;
    }
    const prefixes = name === 'gateway' ? services.map((s) => `/v1/${s}`) : ['/v1'];
    for (const prefix of prefixes) checks.push(readyz(`${base}${prefix}/readyz`));
  }
  return Promise.all(checks);
}

async function readyz(url: string): Promise<Check> {
  try {
    const res = await request(url, { headersTimeout: 5000, bodyTimeout: 5000 });
    const body = (await res.body.json().catch(() => undefined)) as { success?: boolean } | undefined;
    const ready = res.statusCode === 200 && body?.success === true;
    return { what: url, ready, ...(ready ? {} : { problem: `answered ${res.statusCode}` }) };
  } catch (err) {
    return { what: url, ready: false, problem: (err as Error).message };
  }
}

/** grpc.health.v1.Health/Check for the whole server (service ""). */
async function grpcHealth(address: string): Promise<Check> {
  const grpc = await import('@grpc/grpc-js');
  const { service } = await import('grpc-health-check');
  const Client = grpc.makeGenericClientConstructor(service, 'Health');
  const client = new Client(address, grpc.credentials.createInsecure());
  const what = `grpc://${address} (grpc.health.v1.Health)`;
  try {
    const status = await new Promise<string>((resolve, reject) => {
      (client as unknown as HealthClient).check({ service: '' }, { deadline: Date.now() + 5000 }, (err, res) =>
        err ? reject(err) : resolve(String(res?.status)),
      );
    });
    const ready = status === 'SERVING' || status === '1';
    return { what, ready, ...(ready ? {} : { problem: `status ${status}` }) };
  } catch (err) {
    return { what, ready: false, problem: (err as Error).message };
  } finally {
    client.close();
  }
}

interface HealthClient {
  check(
    request: { service: string },
    options: { deadline: number },
    callback: (err: Error | null, response?: { status: string | number }) => void,
  ): void;
}

/** The bundled directory as the reports show it: relative to the working directory when inside it. */
function shown(dir: string): string {
  const relative = path.relative(process.cwd(), dir);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : dir;
}

function writeJunit(file: string, xml: string): void {
  try {
    fs.writeFileSync(file, xml);
  } catch (err) {
    throw new UsageError(`cannot write ${file}: ${(err as NodeJS.ErrnoException).code ?? err}`);
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

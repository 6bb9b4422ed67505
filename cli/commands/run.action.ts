/** The work of `capctl run` (run.ts defines the command). */
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { parse as parseYaml } from 'yaml';
import { exitCodes, UnreachableError, UsageError, writeReport } from '../output.ts';
import { onEveryWayOut, type WayOut } from '../lifetime.ts';
import { startEmbeddedPlatform, type EmbeddedPlatform } from '../scenarios/embedded.ts';
import { closeGrpc } from '../scenarios/grpc-step.ts';
import { loadScenarios } from '../scenarios/parse.ts';
import { ProgressPrinter, type ProgressOutput } from '../scenarios/progress.ts';
import { htmlReport } from '../scenarios/report-html.ts';
import { jsonReport } from '../scenarios/report-json.ts';
import { seconds } from '../scenarios/report-text.ts';
import { junitReport } from '../scenarios/report-junit.ts';
import { runScenarios } from '../scenarios/runner.ts';
import { defaultBaseUrl } from '../options.ts';
import { scenarioFiles } from '../scenarios/files.ts';

export interface RunCommandOptions {
  var: string[];
  varsFile?: string;
  data?: string;
  baseUrl?: string;
  grpcAddress?: string;
  embedded?: boolean;
  concurrency: number;
  only: string[];
  skip: string[];
  continueOnError?: boolean;
  /** false with --no-schema-check. */
  schemaCheck?: boolean;
  json?: boolean;
  junit?: string;
  html?: string;
  verbose?: boolean;
}

export interface RunOutput {
  stdout: ProgressOutput;
  stderr: ProgressOutput;
  /** Where Ctrl-C is heard (default: this process); a test passes its own emitter. */
  signals?: Pick<NodeJS.Process, 'once' | 'off'>;
  /** Off a terminal, how long without output before a line says what still runs (default 10 s). */
  quietMs?: number;
}

/**
 * Resolves to the exit code. Usage and scenario-file errors are thrown as UsageError (exit 2). Ctrl-C
 * (or SIGTERM) stops the run: the running step is cut short, the summary and the reports of what ran
 * are written, and the exit code is 130 (143 for SIGTERM); a second one exits at once.
 */
export async function runCommand(
  inputs: string[],
  options: RunCommandOptions,
  output: RunOutput = process,
): Promise<number> {
  if (options.embedded && options.baseUrl) throw new UsageError('--embedded and --base-url exclude each other');
  const vars = { ...(await readVarsFile(options.varsFile)), ...parseVarFlags(options.var) };
  const files = (await Promise.all(inputs.map((input) => scenarioFiles(input)))).flat();
  const load = async (extra: Record<string, string> = {}) => {
    const loaded = [];
    for (const file of files)
      loaded.push(
        ...(await loadScenarios(file, {
          vars: { ...extra, ...vars },
          ...(options.data ? { rowsFile: options.data } : {}),
        })),
      );
    return loaded;
  };
  let scenarios = await load(); // a broken file is reported before anything starts
  const known = new Set(scenarios.flatMap((s) => s.variables));
  for (const name of Object.keys(parseVarFlags(options.var)).filter((n) => !known.has(n))) {
    throw new UsageError(
      `--var ${name}: no scenario has a variable "${name}" (${[...known].sort().join(', ') || 'they have none'})`,
    );
  }
  const configuredUrl = options.embedded
    ? undefined
    : checkedUrl(options.baseUrl ?? process.env.CAPCTL_BASE_URL ?? defaultBaseUrl);

  // With --json, stdout carries the report alone: progress goes to stderr.
  const progress = options.json ? output.stderr : output.stdout;
  const verbose = options.verbose ?? false;
  const interruption = new AbortController();
  let signalled: WayOut | undefined;
  const interrupt = (way: WayOut) => {
    signalled = way;
    if (way !== 'EPIPE')
      output.stderr.write(`\n${way}: stopping; the summary and reports of what ran follow (again to quit at once)\n`);
    interruption.abort();
  };
  let ran!: () => void;
  const done = new Promise<void>((resolve) => (ran = resolve));
  // With --embedded, every way out (a signal, the output closed under `| head`) ends the run and then
  // stops its PostgreSQL; without, Ctrl-C and SIGTERM end the run. Either way the reports are written.
  // While the embedded platform starts and is seeded, nothing has run yet: a way out ends the process at
  // once, and the embedded PostgreSQL's exit hook stops it (as `capctl demo` does).
  const lifetime = options.embedded ? onEveryWayOut() : undefined;
  const signals = output.signals ?? process;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) process.exit(exitCodes.interrupted); // a second Ctrl-C: no waiting for the reports
    interrupt(signal as WayOut);
  };
  if (!lifetime) {
    signals.once('SIGINT', onSignal);
    signals.once('SIGTERM', onSignal);
  }
  let embedded: EmbeddedPlatform | undefined;
  let printer: ProgressPrinter | undefined;
  try {
    if (options.embedded) {
      const started = performance.now();
      output.stderr.write('starting a throwaway platform (its own PostgreSQL, free ports) and seeding it\n');
      embedded = await startEmbeddedPlatform();
      lifetime!.stopWith(async (way) => {
        interrupt(way);
        await done;
      });
      output.stderr.write(`platform ready at ${embedded.baseUrl} in ${seconds(performance.now() - started)}\n`);
      scenarios = await load(embedded.adminVars); // --var still wins over the seeded admin
    }
    const baseUrl = embedded?.baseUrl ?? configuredUrl!;
    printer = new ProgressPrinter(progress, options.concurrency === 1, process.env, {
      verbose,
      ...(output.quietMs ? { quietMs: output.quietMs } : {}),
    });
    const report = await runScenarios(scenarios, {
      baseUrl,
      grpc: { address: options.grpcAddress ?? process.env.CAPCTL_GRPC_ADDRESS },
      concurrency: options.concurrency,
      only: options.only,
      skip: options.skip,
      continueOnError: options.continueOnError ?? false,
      checkSchemas: options.schemaCheck ?? true,
      signal: interruption.signal,
      onEvent: printer.handle,
    });
    if (options.junit) await writeReport(options.junit, junitReport(report, verbose));
    if (options.html) await writeReport(options.html, htmlReport(report));
    if (options.json) output.stdout.write(`${JSON.stringify(jsonReport(report, verbose), null, 2)}\n`);
    printer.finish(report);
    return report.interrupted && signalled === 'SIGTERM' ? 143 : report.exitCode;
  } catch (err) {
    if (!(err instanceof UnreachableError)) throw err;
    const hint = options.embedded ? '' : '; is the platform running? (capctl serve, or run with --embedded)';
    output.stderr.write(`capctl: ${err.message}${hint}\n`);
    return exitCodes.unreachable;
  } finally {
    printer?.close();
    signals.off('SIGINT', onSignal);
    signals.off('SIGTERM', onSignal);
    await closeGrpc();
    await embedded?.stop();
    lifetime?.dispose();
    ran();
  }
}

function parseVarFlags(flags: string[]): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const flag of flags) {
    const match = /^([A-Za-z][A-Za-z0-9_-]*)=(.*)$/s.exec(flag);
    if (!match) throw new UsageError(`--var ${flag}: expected name=value`);
    vars[match[1]!] = match[2]!;
  }
  return vars;
}

async function readVarsFile(file: string | undefined): Promise<Record<string, unknown>> {
  if (file === undefined) return {};
  let value: unknown;
  try {
    value = parseYaml(await readFile(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`--vars-file ${file}: ${(err as Error).message.split('\n')[0]}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError(`--vars-file ${file}: expected a mapping of names to values`);
  }
  return value as Record<string, unknown>;
}

function checkedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error();
  } catch {
    throw new UsageError(`--base-url ${url}: expected an http:// or https:// URL`);
  }
  return url;
}

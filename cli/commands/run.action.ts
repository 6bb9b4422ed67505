/** The work of `capctl run` (run.ts defines the command). */
import { readFile, writeFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { exitCodes, UnreachableError, UsageError } from '../output.ts';
import { onEveryWayOut } from '../lifetime.ts';
import { startEmbeddedPlatform, type EmbeddedPlatform } from '../scenarios/embedded.ts';
import { closeGrpc } from '../scenarios/grpc-step.ts';
import { loadScenarioFile } from '../scenarios/parse.ts';
import { ProgressPrinter, type ProgressOutput } from '../scenarios/progress.ts';
import { jsonReport } from '../scenarios/report-json.ts';
import { junitReport } from '../scenarios/report-junit.ts';
import { runScenarios } from '../scenarios/runner.ts';
import { defaultBaseUrl, scenarioFiles, type RunCommandOptions } from './run.ts';

export interface RunOutput {
  stdout: ProgressOutput;
  stderr: { write(text: string): unknown };
}

/** Resolves to the exit code. Usage and scenario-file errors are thrown as UsageError (exit 2). */
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
    for (const file of files) loaded.push(await loadScenarioFile(file, { vars: { ...extra, ...vars } }));
    return loaded;
  };
  let scenarios = await load(); // a broken file is reported before anything starts
  const configuredUrl = options.embedded
    ? undefined
    : checkedUrl(options.baseUrl ?? process.env.CAPCTL_BASE_URL ?? defaultBaseUrl);

  let embedded: EmbeddedPlatform | undefined;
  // The embedded platform and its PostgreSQL are stopped however the run ends (a signal, `| head`).
  const lifetime = options.embedded ? onEveryWayOut() : undefined;
  try {
    if (options.embedded) {
      embedded = await startEmbeddedPlatform();
      const started = embedded;
      lifetime!.stopWith(async () => {
        await closeGrpc();
        await started.stop();
      });
      scenarios = await load(embedded.adminVars); // --var still wins over the seeded admin
    }
    const baseUrl = embedded?.baseUrl ?? configuredUrl!;
    const printer = options.json
      ? undefined
      : new ProgressPrinter(output.stdout, options.concurrency === 1);
    const report = await runScenarios(scenarios, {
      baseUrl,
      ...(embedded ? { grpc: embedded.grpc } : {}),
      concurrency: options.concurrency,
      only: options.only,
      skip: options.skip,
      ...(printer ? { onEvent: printer.handle } : {}),
    });
    if (options.junit) await writeReport(options.junit, junitReport(report));
    if (options.json) output.stdout.write(`${JSON.stringify(jsonReport(report), null, 2)}\n`);
    printer?.finish(report);
    return report.exitCode;
  } catch (err) {
    if (!(err instanceof UnreachableError)) throw err;
    const hint = options.embedded ? '' : '; is the platform running? (capctl serve, or run with --embedded)';
    output.stderr.write(`capctl: ${err.message}${hint}\n`);
    return exitCodes.unreachable;
  } finally {
    await closeGrpc();
    await embedded?.stop();
    lifetime?.dispose();
  }
}

async function writeReport(file: string, text: string): Promise<void> {
  try {
    await writeFile(file, text);
  } catch (err) {
    throw new UsageError(`cannot write ${file}: ${(err as NodeJS.ErrnoException).code ?? err}`);
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

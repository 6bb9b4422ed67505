/** `capctl run <file|name|dir>...`: runs scenario files against the platform (cli/scenarios/FORMAT.md). */
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvalidArgumentError, type Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import { exitCodes, UsageError } from '../output.ts';
import { adminVars, startEmbeddedPlatform, type EmbeddedPlatform } from '../scenarios/embedded.ts';
import { closeGrpc } from '../scenarios/grpc-step.ts';
import { UnreachableError } from '../scenarios/http.ts';
import { loadScenarioFile } from '../scenarios/parse.ts';
import { ProgressPrinter, type ProgressOutput } from '../scenarios/progress.ts';
import { jsonReport } from '../scenarios/report-json.ts';
import { junitReport } from '../scenarios/report-junit.ts';
import { runScenarios } from '../scenarios/runner.ts';

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));
const bundledDir = path.join(projectRoot, 'fixtures', 'scenarios');
const defaultBaseUrl = 'http://127.0.0.1:4000';

export interface RunCommandOptions {
  var: string[];
  varsFile?: string;
  baseUrl?: string;
  embedded?: boolean;
  concurrency: number;
  only: string[];
  skip: string[];
  json?: boolean;
  junit?: string;
}

export function registerRun(program: Command): void {
  const repeatable = (value: string, all: string[]) => [...all, value];
  program
    .command('run')
    .description('Run scenario files against the platform')
    .argument('<scenarios...>', `scenario files, directories of them, or names in fixtures/scenarios`)
    .option('--var <name=value>', 'set a variable (repeatable; overrides the file and --vars-file)', repeatable, [])
    .option('--vars-file <file>', 'YAML or JSON mapping of variables')
    .option('--base-url <url>', `platform gateway (env CAPCTL_BASE_URL, default ${defaultBaseUrl})`)
    .option('--embedded', 'start a throwaway platform in this process for the run')
    .option('--concurrency <n>', 'scenarios run at the same time; steps always run in order', positiveInt, 1)
    .option('--only <step>', 'run only this step and the steps it takes values from (repeatable)', repeatable, [])
    .option('--skip <step>', 'skip this step and the steps that take values from it (repeatable)', repeatable, [])
    .option('--json', 'print a machine report on stdout instead of progress')
    .option('--junit <file>', 'also write a JUnit XML report to this file')
    .action(async (inputs: string[], options: RunCommandOptions) => {
      process.exitCode = await runCommand(inputs, options);
    });
}

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
  try {
    if (options.embedded) {
      embedded = await startEmbeddedPlatform();
      scenarios = await load(adminVars(embedded.admin)); // --var still wins over the prepared admin
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
  }
}

/** A file, every .yaml/.yml file of a directory, or a bare name from fixtures/scenarios. */
export async function scenarioFiles(input: string, bundled = bundledDir): Promise<string[]> {
  const found = await stat(input).catch(() => undefined);
  if (found?.isDirectory()) {
    const names = (await readdir(input)).filter((n) => /\.ya?ml$/.test(n)).sort();
    if (names.length === 0) throw new UsageError(`no .yaml scenario files in ${input}`);
    return names.map((n) => path.join(input, n));
  }
  if (found) return [input];
  if (/^[\w-]+$/.test(input)) {
    const file = path.join(bundled, `${input}.yaml`);
    if (await stat(file).catch(() => undefined)) return [path.relative(process.cwd(), file)];
  }
  throw new UsageError(`no scenario file or bundled scenario named "${input}"`);
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

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number of at least 1');
  return n;
}

/**
 * `capctl run <file|name|dir>...`: runs scenario files against the platform (fixtures/scenarios/README.md).
 * This module only defines the command; its work is in run.action.ts, loaded when it runs.
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { projectPath } from '../../server/platform/paths.ts';
import { UsageError } from '../output.ts';

const bundledDir = projectPath('fixtures', 'scenarios');
export const defaultBaseUrl = 'http://127.0.0.1:4000';

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

export function registerRun(program: Command): void {
  const repeatable = (value: string, all: string[]) => [...all, value];
  program
    .command('run')
    .description('Run scenario files against the platform')
    .argument('<scenarios...>', `scenario files, directories of them, or names in fixtures/scenarios`)
    .option('--var <name=value>', 'set a variable (repeatable; overrides the file and --vars-file)', repeatable, [])
    .option('--vars-file <file>', 'YAML or JSON mapping of variables')
    .option('--data <file>', 'run each scenario once per row of this CSV, YAML or JSON file (its values as variables)')
    .option('--base-url <url>', `platform gateway (env CAPCTL_BASE_URL, default ${defaultBaseUrl})`)
    .option('--grpc-address <host:port>', 'one address for every gRPC step (env CAPCTL_GRPC_ADDRESS; default: where the platform says each service listens)')
    .option('--embedded', 'start a throwaway platform in this process for the run')
    .option('--concurrency <n>', 'scenarios run at the same time; steps always run in order', positiveInt, 1)
    .option('--only <step>', 'run only this step and the steps it takes values from (repeatable)', repeatable, [])
    .option('--skip <step>', 'skip this step and the steps that take values from it (repeatable)', repeatable, [])
    .option('--continue-on-error', 'go on after a failed step (steps that use its values are skipped); the scenario still fails')
    .option('--no-schema-check', "do not check replies against their operation's schema in the platform's OpenAPI documents")
    .option('--json', 'print a machine report on stdout instead of progress')
    .option('--junit <file>', 'also write a JUnit XML report to this file')
    .option('--html <file>', 'also write the run as one self-contained HTML page to this file')
    .option('-v, --verbose', 'show the request and response of passed steps too (progress, --json, --junit)')
    .action(async (inputs: string[], options: RunCommandOptions) => {
      const { runCommand } = await import('./run.action.ts');
      process.exitCode = await runCommand(inputs, options);
    });
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

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number of at least 1');
  return n;
}

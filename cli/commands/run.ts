/**
 * `capctl run <file|name|dir>...`: runs scenario files against the platform (fixtures/scenarios/README.md).
 * This module only defines the command; its work is in run.action.ts, loaded when it runs.
 */
import type { Command } from 'commander';
import { defaultBaseUrl, positiveInt } from '../options.ts';
import type { RunCommandOptions } from './run.action.ts';

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
    .option(
      '--grpc-address <host:port>',
      'one address for every gRPC step (env CAPCTL_GRPC_ADDRESS; default: where the platform says each service listens)',
    )
    .option('--embedded', 'start a throwaway platform in this process for the run')
    .option('--concurrency <n>', 'scenarios run at the same time; steps always run in order', positiveInt, 1)
    .option('--only <step>', 'run only this step and the steps it takes values from (repeatable)', repeatable, [])
    .option('--skip <step>', 'skip this step and the steps that take values from it (repeatable)', repeatable, [])
    .option(
      '--continue-on-error',
      'go on after a failed step (steps that use its values are skipped); the scenario still fails',
    )
    .option(
      '--no-schema-check',
      "do not check replies against their operation's schema in the platform's OpenAPI documents",
    )
    .option('--json', 'print a machine report on stdout instead of progress')
    .option('--junit <file>', 'also write a JUnit XML report to this file')
    .option('--html <file>', 'also write the run as one self-contained HTML page to this file')
    .option('-v, --verbose', 'show the request and response of passed steps too (progress, --json, --junit)')
    .action(async (inputs: string[], options: RunCommandOptions) => {
      const { runCommand } = await import('./run.action.ts');
      process.exitCode = await runCommand(inputs, options);
    });
}

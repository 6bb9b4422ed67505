/**
 * `capctl demo`: the project's main command. Starts a throwaway platform (its own PostgreSQL in a
 * temporary directory, every listener on a free port), checks that every HTTP listener answers readyz
 * and every gRPC listener answers the standard health check, prepares a platform admin for the admin
 * scenarios, runs every bundled scenario (fixtures/scenarios) against it, prints the summary table
 * and stops. Exit code 0 only when every service was ready and every scenario passed; 1 otherwise;
 * 2 for a bad flag or a broken bundled scenario; 3 when the platform stopped answering during the run.
 */
import type { Command } from 'commander';
import { positiveInt } from '../options.ts';
import type { DemoOptions } from './demo.action.ts';

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description(
      'Start a throwaway platform on free ports, check every service is ready, run every bundled scenario, print the summary and stop',
    )
    .option('--keep', 'after the run, keep the platform running until SIGINT or SIGTERM')
    .option('--json', 'print the machine report of the run on stdout (the rest goes to stderr)')
    .option('--junit <file>', 'also write a JUnit XML report of the run to this file')
    .option('--concurrency <n>', 'scenarios run at the same time', positiveInt, 1)
    .option('--log-level <level>', "the platform's log level on stderr", 'error')
    .action(async (options: DemoOptions) => {
      const { demo } = await import('./demo.action.ts');
      process.exitCode = await demo(options);
    });
}

/**
 * `capctl events tail`: the platform's events as they are published (development mode), printed and
 * optionally posted to a URL, the way `stripe listen --forward-to` does for webhooks. The work is in
 * events.action.ts, loaded when the command runs.
 */
import type { Command } from 'commander';
import { eventServices, positiveInt } from '../options.ts';
import type { TailOptions } from './events.action.ts';

export function registerEvents(program: Command): void {
  const events = program.command('events').description("The platform's events (development mode)");
  const repeatable = (value: string, all: string[]) => [...all, value];
  events
    .command('tail')
    .description('Print every event the platform publishes from now on, until Ctrl-C; --forward-to posts each to a URL')
    .option('--base-url <url>', 'platform gateway (env CAPCTL_BASE_URL, default http://127.0.0.1:4000)')
    .option(
      '--service <name>',
      `only the events of this service: ${eventServices.join(', ')} (repeatable; default all)`,
      repeatable,
      [],
    )
    .option('--type <type>', 'only events of this type, e.g. payment.completed (repeatable)', repeatable, [])
    .option('--forward-to <url>', 'POST each event (its JSON envelope) to this URL and print the answer')
    .option('--interval <ms>', 'how often to look for new events, in milliseconds', positiveInt, 250)
    .option('--json', 'print each event as one line of JSON')
    .addHelpText(
      'after',
      '\nReads GET /v1/<service>/dev/events (development mode only). Events published while more than 200' +
        '\nothers of the same service came out between two looks would be missed.' +
        '\nExit codes: 0 stopped by Ctrl-C; 1 the platform keeps no dev events (not development mode);' +
        '\n2 usage error; 3 the platform could not be reached.',
    )
    .action(async (options: TailOptions) => {
      const { tailEvents } = await import('./events.action.ts');
      process.exitCode = await tailEvents(options);
    });
}

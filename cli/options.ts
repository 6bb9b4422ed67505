/**
 * What a command (cli/commands/X.ts, loaded to build capctl) and its work (X.action.ts, loaded when
 * the command runs) both need. An action never imports its command file: the command imports its
 * action lazily, and the action's option types with `import type`.
 */
import { InvalidArgumentError } from 'commander';

/** The platform gateway when neither a flag, CAPCTL_BASE_URL nor a profile names one. */
export const defaultBaseUrl = 'http://127.0.0.1:4000';

/** The services whose events `capctl events tail` reads. */
export const eventServices = ['ol', 'cap', 'lms'] as const;

/** Parses an option that is a whole number of at least 1. */
export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number of at least 1');
  return n;
}

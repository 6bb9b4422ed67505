import type { Command } from 'commander';
import { keyReloadSeconds } from '../../server/orchestrator/operator.ts';
import type { KeysOptions } from './keys.action.ts';

function withDatabaseOptions(command: Command): Command {
  return command
    .option('--data-dir <dir>', 'the embedded PostgreSQL data directory (env CAPCTL_DATA_DIR, default ./.capctl)')
    .option('--database-url <url>', 'use this PostgreSQL instead of the embedded one (env DATABASE_URL)')
    .option('--log-level <level>', 'log level on stderr (default warn)')
    .option('--json', 'print machine-readable JSON only');
}

/** `capctl keys rotate|ls`: the RS256 keys the Orchestrator signs access tokens with. */
export function registerKeys(program: Command): void {
  const keys = program.command('keys').description("Manage the Orchestrator's access-token signing keys");

  withDatabaseOptions(keys.command('rotate'))
    .description(
      'Make a new key the signing key; the old one stays in the JWKS until the tokens it signed have expired',
    )
    .addHelpText(
      'after',
      `\nA server on the same database (--database-url) signs with the new key within ${keyReloadSeconds} seconds.` +
        '\nWith the embedded database, stop `capctl serve` first; it signs with the new key from its next start.',
    )
    .action(async (options: KeysOptions) => (await import('./keys.action.ts')).rotateKey(options));

  withDatabaseOptions(keys.command('ls'))
    .description('List the signing keys, newest first')
    .action(async (options: KeysOptions) => (await import('./keys.action.ts')).listKeys(options));
}

import type { Command } from 'commander';
import type { Sequelize } from 'sequelize';
import { createSequelize } from '../../server/platform/db/database.ts';
import { DataDirBusyError, startEmbeddedPostgres, type EmbeddedDatabase } from '../../server/platform/db/embedded.ts';
import { createMigrator, migrate } from '../../server/platform/db/migrations.ts';
import { createLogger } from '../../server/platform/logger.ts';
import type { PlatformConfig } from '../../server/platform/config.ts';
import { olMigrationsDir } from '../../server/orchestrator/index.ts';
import { keyReloadSeconds, listSigningKeys, rotateSigningKey } from '../../server/orchestrator/tokens/keys.ts';
import { exitCodes, print } from '../output.ts';
import { configFromOptions, startFailure } from '../platform.ts';

interface KeysOptions {
  dataDir?: string;
  databaseUrl?: string;
  logLevel?: string;
  json?: boolean;
}

function withDatabaseOptions(command: Command): Command {
  return command
    .option('--data-dir <dir>', 'the embedded PostgreSQL data directory (env CAPCTL_DATA_DIR, default ./.capctl)')
    .option('--database-url <url>', 'use this PostgreSQL instead of the embedded one (env DATABASE_URL)')
    .option('--log-level <level>', 'log level on stderr (default warn)')
    .option('--json', 'print machine-readable JSON only');
}

/**
 * Opens the platform database (embedded or DATABASE_URL), brings the Orchestrator's schema up to
 * date and runs `work` on it. Prints a one-line reason and sets exit code 1 when the database cannot
 * be used, e.g. a running `capctl serve` holds the embedded data directory.
 */
async function withOlDatabase(options: KeysOptions, work: (sequelize: Sequelize, config: PlatformConfig) => Promise<void>): Promise<void> {
  const config = configFromOptions(options as Record<string, unknown>, { logLevel: options.logLevel ?? 'warn' });
  const logger = createLogger(config.logLevel);
  let embedded: EmbeddedDatabase | undefined;
  let sequelize: Sequelize | undefined;
  try {
    const url = config.databaseUrl || (embedded = await startEmbeddedPostgres(config.dataDir, logger)).url;
    sequelize = createSequelize(url, 'ol', 2);
    await migrate(sequelize, 'ol', createMigrator(sequelize, 'ol', olMigrationsDir));
    await work(sequelize, config);
  } catch (err) {
    const message = startFailure(err);
    if (!message) throw err;
    const hint =
      err instanceof DataDirBusyError
        ? '\ncapctl keys needs the embedded database to itself: stop `capctl serve` and run it again (the server uses the new key from its next start),' +
          ' or run both against one PostgreSQL with --database-url (the server then picks the new key up by itself).'
        : '';
    process.stderr.write(`capctl keys: ${message}${hint}\n`);
    process.exitCode = exitCodes.failed;
  } finally {
    await sequelize?.close();
    await embedded?.stop();
  }
}

/** `capctl keys rotate|ls`: the RS256 keys the Orchestrator signs access tokens with. */
export function registerKeys(program: Command): void {
  const keys = program.command('keys').description("Manage the Orchestrator's access-token signing keys");

  withDatabaseOptions(keys.command('rotate'))
    .description('Make a new key the signing key; the old one stays in the JWKS until the tokens it signed have expired')
    .addHelpText(
      'after',
      `\nA server on the same database (--database-url) signs with the new key within ${keyReloadSeconds} seconds.` +
        '\nWith the embedded database, stop `capctl serve` first; it signs with the new key from its next start.',
    )
    .action((options: KeysOptions) =>
      withOlDatabase(options, async (sequelize) => {
        const rotated = await rotateSigningKey(sequelize);
        print(rotated, Boolean(options.json), () =>
          [`new signing key ${rotated.kid}`, ...rotated.retired.map((kid) => `retired ${kid} (still published until its tokens expire)`)].join('\n'),
        );
      }),
    );

  withDatabaseOptions(keys.command('ls'))
    .description('List the signing keys, newest first')
    .action((options: KeysOptions) =>
      withOlDatabase(options, async (sequelize, config) => {
        const list = await listSigningKeys(sequelize, config);
        print(list, Boolean(options.json), () =>
          list
            .map((key) => {
              const state = key.active ? 'active' : `retired ${key.retiredAt}${key.published ? ', published' : ''}`;
              return `${key.kid}  created ${key.createdAt}  ${state}`;
            })
            .join('\n'),
        );
      }),
    );
}

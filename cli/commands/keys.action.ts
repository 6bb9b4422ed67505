/** The work of `capctl keys rotate|ls` (keys.ts defines the commands). */
import type { Sequelize } from 'sequelize';
import { createSequelize } from '../../server/platform/db/database.ts';
import { DataDirBusyError, startEmbeddedPostgres, type EmbeddedDatabase } from '../../server/platform/db/embedded.ts';
import { createMigrator, migrate } from '../../server/platform/db/migrations.ts';
import { createLogger } from '../../server/platform/logger.ts';
import { serverCodePath } from '../../server/platform/paths.ts';
import type { PlatformConfig } from '../../server/platform/config.ts';
import { listSigningKeys, rotateSigningKey } from '../../server/orchestrator/operator.ts';
import { onEveryWayOut } from '../lifetime.ts';
import { exitCodes, print } from '../output.ts';
import { configFromOptions, startFailure } from '../platform.ts';

export interface KeysOptions {
  dataDir?: string;
  databaseUrl?: string;
  logLevel?: string;
  json?: boolean;
}

/**
 * Opens the platform database (embedded or DATABASE_URL), brings the Orchestrator's schema up to
 * date and runs `work` on it. Prints a one-line reason and sets exit code 1 when the database cannot
 * be used, e.g. a running `capctl serve` holds the embedded data directory.
 */
async function withOlDatabase(
  options: KeysOptions,
  work: (sequelize: Sequelize, config: PlatformConfig) => Promise<void>,
): Promise<void> {
  const config = configFromOptions(options as Record<string, unknown>, { logLevel: options.logLevel ?? 'warn' });
  const logger = createLogger(config.logLevel);
  let embedded: EmbeddedDatabase | undefined;
  let sequelize: Sequelize | undefined;
  // The embedded PostgreSQL is stopped however the command ends (a signal, a closed output).
  const lifetime = onEveryWayOut();
  lifetime.stopWith(async () => {
    await sequelize?.close();
    await embedded?.stop();
  });
  try {
    const url = config.databaseUrl || (embedded = await startEmbeddedPostgres(config.dataDir, logger)).url;
    sequelize = createSequelize(url, 'ol', 2);
    await migrate(sequelize, 'ol', createMigrator(sequelize, 'ol', serverCodePath('orchestrator', 'migrations')));
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
    lifetime.dispose();
  }
}

export function rotateKey(options: KeysOptions): Promise<void> {
  return withOlDatabase(options, async (sequelize) => {
    const rotated = await rotateSigningKey(sequelize);
    print(rotated, Boolean(options.json), () =>
      [
        `new signing key ${rotated.kid}`,
        ...rotated.retired.map((kid) => `retired ${kid} (still published until its tokens expire)`),
      ].join('\n'),
    );
  });
}

export function listKeys(options: KeysOptions): Promise<void> {
  return withOlDatabase(options, async (sequelize, config) => {
    const list = await listSigningKeys(sequelize, config);
    print(list, Boolean(options.json), () =>
      list
        .map((key) => {
          const state = key.active ? 'active' : `retired ${key.retiredAt}${key.published ? ', published' : ''}`;
          return `${key.kid}  created ${key.createdAt}  ${state}`;
        })
        .join('\n'),
    );
  });
}

import { status } from '@grpc/grpc-js';
import { Option, type Command } from 'commander';
import type { Sequelize } from 'sequelize';
import { createPlatformRoles } from '../../server/cap/admin/service.ts';
import { platformRoles, type PlatformRole } from '../../server/cap/admin/roles.ts';
import { createIdentityClient, type ProvisionAccountResponse } from '../../server/cap/orchestrator.ts';
import { createUserService } from '../../server/cap/users/service.ts';
import { createSequelize } from '../../server/platform/db/database.ts';
import { runningDatabaseUrl } from '../../server/platform/db/embedded.ts';
import { closeGrpcClients } from '../../server/platform/grpc/client.ts';
import { GrpcCallError, statusName } from '../../server/platform/grpc/errors.ts';
import { newId } from '../../server/platform/ids.ts';
import { exitCodes, print } from '../output.ts';
import { configFromOptions, startFailure } from '../platform.ts';

interface CreateOptions {
  email: string;
  name?: string;
  role: PlatformRole;
  dataDir?: string;
  databaseUrl?: string;
  grpcAddress?: string;
  json?: boolean;
}

const defaultGrpcAddress = '127.0.0.1:4400';

/** A reason the command stopped, with its exit code. */
class Stop extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/**
 * Makes someone a platform admin of a running platform: their account comes from the Orchestrator's
 * ProvisionAccount (so a new one gets its password by mail), and the role is granted in the CAP schema
 * directly, since only an admin could grant it through the API.
 */
async function createAdmin(options: CreateOptions): Promise<void> {
  const config = configFromOptions(options as unknown as Record<string, unknown>);
  const databaseUrl = config.databaseUrl || runningDatabaseUrl(config.dataDir);
  if (!databaseUrl) {
    throw new Stop(
      'capctl.not_running',
      `no capctl serve is running on data directory ${config.dataDir}: start it, or pass --database-url of the platform's database`,
      exitCodes.unreachable,
    );
  }
  const address = options.grpcAddress ?? (config.olGrpcAddress || defaultGrpcAddress);
  const email = options.email.trim().toLowerCase();
  const sequelize: Sequelize = createSequelize(databaseUrl, 'cap', 2);
  try {
    // Checked before the account is made, so that a database not ready yet leaves nothing half done.
    const [[found]] = (await sequelize.query(`SELECT to_regclass('cap.platform_role_grants') AS grants`)) as [Array<{ grants: string | null }>, unknown];
    if (!found?.grants) {
      throw new Stop('capctl.not_migrated', 'the CAP schema of this database has no platform roles yet: start capctl serve on it first', exitCodes.failed);
    }
    let account: ProvisionAccountResponse;
    try {
      account = await createIdentityClient(() => address, config.serviceApiKey).provisionAccount({
        email,
        intents: ['cap'],
        correlation_id: newId(),
        display_name: options.name?.trim() ?? '',
      });
    } catch (err) {
      if (!(err instanceof GrpcCallError)) throw err;
      const unreachable = err.code === status.UNAVAILABLE || err.code === status.DEADLINE_EXCEEDED;
      throw new Stop(
        `grpc.${statusName(err.code).toLowerCase()}`,
        `ProvisionAccount at ${address} failed: ${statusName(err.code)}: ${err.details}${unreachable ? ' (is capctl serve running? see --grpc-address)' : ''}`,
        unreachable ? exitCodes.unreachable : exitCodes.failed,
      );
    }
    const roles = createPlatformRoles(sequelize, createUserService(sequelize));
    const { granted } = await roles.grant({ userId: account.user_id, email }, options.role);
    const result = { email, userId: account.user_id, role: options.role, newAccount: account.is_new, granted };
    print(result, Boolean(options.json), () =>
      [
        granted ? `${options.role} granted to ${email} (user ${account.user_id})` : `${email} (user ${account.user_id}) already holds ${options.role}`,
        account.is_new ? 'a new account: its password is in the mail, to be changed at first sign-in' : 'an existing account: its password is unchanged',
      ].join('\n'),
    );
  } finally {
    closeGrpcClients();
    await sequelize.close();
  }
}

/** `capctl admin create`: the platform admins of CAP. */
export function registerAdmin(program: Command): void {
  const admin = program.command('admin').description('Platform admins of CAP');

  admin
    .command('create')
    .description('Make someone a platform admin of a running platform (their account is created when new, its password mailed)')
    .requiredOption('--email <email>', 'their email')
    .option('--name <name>', 'their name, for the greeting of a new account')
    .addOption(new Option('--role <role>', 'the platform role to grant').choices(Object.keys(platformRoles)).default('platform_admin'))
    .option('--data-dir <dir>', 'data directory of the running capctl serve, whose embedded database is used (env CAPCTL_DATA_DIR, default ./.capctl)')
    .option('--database-url <url>', "the platform's PostgreSQL instead (env DATABASE_URL)")
    .option('--grpc-address <host:port>', `the Orchestrator gRPC listener (env ORCHESTRATOR_GRPC_ADDRESS, default ${defaultGrpcAddress})`)
    .option('--json', 'print machine-readable JSON')
    .addHelpText(
      'after',
      '\nThe platform must be running: the account comes from its Orchestrator (gRPC, with ORCHESTRATOR_SERVICE_API_KEY),' +
        '\nand the role is written to its database. A running `capctl serve` records its embedded database URL in' +
        '\n<data-dir>/database-url, which this command reads.' +
        `\nRoles: ${Object.entries(platformRoles).map(([role, allowed]) => `${role} (${allowed.join(', ')})`).join('; ')}.` +
        '\nExit codes: 0 granted (or already held), 1 refused, 2 usage error, 3 platform not running or unreachable.',
    )
    .action(async (options: CreateOptions) => {
      try {
        await createAdmin(options);
      } catch (err) {
        const stop = err instanceof Stop ? err : startFailure(err) ? new Stop('capctl.database_unreachable', startFailure(err)!, exitCodes.unreachable) : undefined;
        if (!stop) throw err;
        if (options.json) print({ error: { code: stop.code, message: stop.message } }, true, () => '');
        else process.stderr.write(`capctl admin create: ${stop.message}\n`);
        process.exitCode = stop.exitCode;
      }
    });
}

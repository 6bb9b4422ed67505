/** The work of `capctl admin create` (admin.ts defines the command). */
import { status } from '@grpc/grpc-js';
import {
  openCapSchema,
  provisionAccount,
  type PlatformRole,
  type ProvisionAccountResponse,
} from '../../server/cap/operator/index.ts';
import { runningDatabaseUrl } from '../../server/platform/db/embedded.ts';
import { closeGrpcClients } from '../../server/platform/grpc/client.ts';
import { GrpcCallError, statusName } from '../../server/platform/grpc/errors.ts';
import { exitCodes, print, UnreachableError } from '../output.ts';
import { configFromOptions, startFailure } from '../platform.ts';
import { grpcAddresses } from '../grpc-address.ts';
import { resolveBaseUrl } from '../session.ts';
import { serviceNames } from '../../server/platform/grpc/proto.ts';

export interface CreateOptions {
  email: string;
  name?: string;
  role: PlatformRole;
  dataDir?: string;
  databaseUrl?: string;
  grpcAddress?: string;
  baseUrl?: string;
  json?: boolean;
}

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
  const explicit = options.grpcAddress ?? (config.olGrpcAddress || undefined);
  let address: string;
  try {
    address = (await grpcAddresses(explicit, resolveBaseUrl(options.baseUrl))).addressFor(serviceNames.identity);
  } catch (err) {
    if (!(err instanceof UnreachableError)) throw err;
    throw new Stop(
      'capctl.unreachable',
      `${err.message} (is capctl serve running? see --base-url and --grpc-address)`,
      exitCodes.unreachable,
    );
  }
  const email = options.email.trim().toLowerCase();
  const cap = await openCapSchema(databaseUrl, 2);
  try {
    // Checked before the account is made, so that a database not ready yet leaves nothing half done.
    if (!(await cap.migrated())) {
      throw new Stop(
        'capctl.not_migrated',
        'the CAP schema of this database has no platform roles yet: start capctl serve on it first',
        exitCodes.failed,
      );
    }
    let account: ProvisionAccountResponse;
    try {
      account = await provisionAccount(address, config.serviceApiKey, { email, name: options.name });
    } catch (err) {
      if (!(err instanceof GrpcCallError)) throw err;
      const unreachable = err.code === status.UNAVAILABLE || err.code === status.DEADLINE_EXCEEDED;
      throw new Stop(
        `grpc.${statusName(err.code).toLowerCase()}`,
        `ProvisionAccount at ${address} failed: ${statusName(err.code)}: ${err.details}${unreachable ? ' (is capctl serve running? see --grpc-address)' : ''}`,
        unreachable ? exitCodes.unreachable : exitCodes.failed,
      );
    }
    const { granted } = await cap.grantPlatformRole({ userId: account.user_id, email }, options.role);
    const result = { email, userId: account.user_id, role: options.role, newAccount: account.is_new, granted };
    print(result, Boolean(options.json), () =>
      [
        granted
          ? `${options.role} granted to ${email} (user ${account.user_id})`
          : `${email} (user ${account.user_id}) already holds ${options.role}`,
        account.is_new
          ? 'a new account: its password is in the mail, to be changed at first sign-in'
          : 'an existing account: its password is unchanged',
      ].join('\n'),
    );
  } finally {
    closeGrpcClients();
    await cap.close();
  }
}

/** Runs `capctl admin create` and sets the exit code. */
export async function adminCreate(options: CreateOptions): Promise<void> {
  try {
    await createAdmin(options);
  } catch (err) {
    const stop =
      err instanceof Stop
        ? err
        : startFailure(err)
          ? new Stop('capctl.database_unreachable', startFailure(err)!, exitCodes.unreachable)
          : undefined;
    if (!stop) throw err;
    if (options.json) print({ error: { code: stop.code, message: stop.message } }, true, () => '');
    else process.stderr.write(`capctl admin create: ${stop.message}\n`);
    process.exitCode = stop.exitCode;
  }
}

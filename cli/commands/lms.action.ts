/** The work of `capctl lms staff invite` (lms.ts defines the command). */
import { createSequelize } from '../../server/platform/db/database.ts';
import { runningDatabaseUrl } from '../../server/platform/db/embedded.ts';
import { inviteLmsStaff } from '../dev-accounts.ts';
import { exitCodes, print } from '../output.ts';
import { configFromOptions, startFailure } from '../platform.ts';

export interface StaffInviteOptions {
  email: string;
  role: 'admin' | 'content_manager' | 'support';
  dataDir?: string;
  databaseUrl?: string;
  json?: boolean;
}

/** Writes a staff invite in the LMS schema of the running platform, and sets the exit code. */
export async function inviteStaff(options: StaffInviteOptions): Promise<void> {
  const fail = (code: string, message: string, exitCode: number) => {
    if (options.json) print({ error: { code, message } }, true, () => '');
    else process.stderr.write(`capctl lms staff invite: ${message}\n`);
    process.exitCode = exitCode;
  };
  const config = configFromOptions(options as unknown as Record<string, unknown>);
  const databaseUrl = config.databaseUrl || runningDatabaseUrl(config.dataDir);
  if (!databaseUrl) {
    return fail(
      'capctl.not_running',
      `no capctl serve is running on data directory ${config.dataDir}: start it, or pass --database-url of the platform's database`,
      exitCodes.unreachable,
    );
  }
  const email = options.email.trim().toLowerCase();
  try {
    const sequelize = createSequelize(databaseUrl, 'lms', 1);
    const [[found]] = (await sequelize
      .query(`SELECT to_regclass('lms.lms_invites') AS invites`)
      .finally(() => sequelize.close())) as [Array<{ invites: string | null }>, unknown];
    if (!found?.invites)
      return fail(
        'capctl.not_migrated',
        'the LMS schema of this database has no invites yet: start capctl serve on it first',
        exitCodes.failed,
      );
    const invited = await inviteLmsStaff(databaseUrl, email, options.role);
    print({ email, role: options.role, invited }, Boolean(options.json), () =>
      invited
        ? `${email} is invited as LMS staff (${options.role}): they accept by completing the staff onboarding`
        : `${email} is already invited or staff: nothing changed`,
    );
  } catch (err) {
    const message = startFailure(err);
    if (!message) throw err;
    fail('capctl.database_unreachable', message, exitCodes.unreachable);
  }
}

import { Option, type Command } from 'commander';
import { print } from '../output.ts';
import { runCommand } from '../session.ts';
import { asProfileUser, signedInOptions, type SignedInOptions } from './signed-in.ts';

interface CentreOptions extends SignedInOptions {
  centre?: string;
}

interface CentreStaff {
  id: string;
  email: string;
  name?: string;
  role: string;
  status: string;
  createdAt: string;
}

/**
 * The acting-context headers of a centre call. Without --centre the server picks the caller's only
 * centre (and refuses with auth.centre_ambiguous when there are several).
 */
function centreHeaders(options: CentreOptions): Record<string, string> {
  return { 'X-CAP-PERSONA': 'centre', ...(options.centre ? { 'X-CAP-CENTRE-ID': options.centre } : {}) };
}

function withCentre(command: Command): Command {
  return signedInOptions(command).option(
    '--centre <id>',
    'the centre to act for (needed when you are staff of several)',
  );
}

const line = (member: CentreStaff) =>
  [member.id, member.email, member.name ?? '', member.role, member.status].join('  ');

/** `capctl staff add|ls`: the staff of the signed-in user's centre. */
export function registerStaff(program: Command): void {
  const staff = program.command('staff').description('The staff of your centre (/v1/cap/centre/staff)');

  withCentre(staff.command('add'))
    .description('Add a person to your centre (super admins only); a new account gets its password by mail')
    .requiredOption('--name <name>', "the person's name")
    .requiredOption('--email <email>', "the person's email")
    .addOption(
      new Option('--role <role>', 'their role at the centre')
        .choices(['super_admin', 'regular_admin', 'staff'])
        .makeOptionMandatory(),
    )
    .action((options: CentreOptions & { name: string; email: string; role: string }) =>
      runCommand(Boolean(options.json), async () => {
        await asProfileUser(options, async (session) => {
          const member = await session.call<CentreStaff>(
            'POST',
            '/v1/cap/centre/staff',
            () => ({ name: options.name, email: options.email, role: options.role }),
            centreHeaders(options),
          );
          print(
            member,
            Boolean(options.json),
            () => `added ${member.email} as ${member.role} (${member.status}, staff id ${member.id})`,
          );
        });
      }),
    );

  withCentre(staff.command('ls'))
    .description("List your centre's staff, newest first (the first 100)")
    .addOption(new Option('--status <status>', 'only this status').choices(['pending', 'active', 'inactive']))
    .option('--q <text>', 'only names or emails containing this')
    .action((options: CentreOptions & { status?: string; q?: string }) =>
      runCommand(Boolean(options.json), async () => {
        const query = new URLSearchParams({
          ...(options.status ? { status: options.status } : {}),
          ...(options.q ? { q: options.q } : {}),
        });
        await asProfileUser(options, async (session) => {
          const members = await session.call<CentreStaff[]>(
            'GET',
            `/v1/cap/centre/staff?${query}`,
            undefined,
            centreHeaders(options),
          );
          print(members, Boolean(options.json), () => (members.length ? members.map(line).join('\n') : 'no staff'));
        });
      }),
    );
}

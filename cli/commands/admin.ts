import { Option, type Command } from 'commander';
import { platformRoles } from '../../server/cap/operator/index.ts';
import { print } from '../output.ts';
import { runCommand } from '../session.ts';
import { asProfileUser, signedInOptions, type SignedInOptions } from './signed-in.ts';
import type { CreateOptions } from './admin.action.ts';

/** `capctl admin create`: the platform admins of CAP. */
export function registerAdmin(program: Command): void {
  const admin = program.command('admin').description('Platform admins of CAP, and what they moderate');
  registerModeration(admin);

  admin
    .command('create')
    .description(
      'Make someone a platform admin of a running platform (their account is created when new, its password mailed)',
    )
    .requiredOption('--email <email>', 'their email')
    .option('--name <name>', 'their name, for the greeting of a new account')
    .addOption(
      new Option('--role <role>', 'the platform role to grant')
        .choices(Object.keys(platformRoles))
        .default('platform_admin'),
    )
    .option(
      '--data-dir <dir>',
      'data directory of the running capctl serve, whose embedded database is used (env CAPCTL_DATA_DIR, default ./.capctl)',
    )
    .option('--database-url <url>', "the platform's PostgreSQL instead (env DATABASE_URL)")
    .option(
      '--grpc-address <host:port>',
      'the Orchestrator gRPC listener (env ORCHESTRATOR_GRPC_ADDRESS; default: where the platform at --base-url says it listens)',
    )
    .option(
      '--base-url <url>',
      'platform gateway asked for its gRPC address (env CAPCTL_BASE_URL, default http://127.0.0.1:4000)',
    )
    .option('--json', 'print machine-readable JSON')
    .addHelpText(
      'after',
      '\nThe platform must be running: the account comes from its Orchestrator (gRPC, with ORCHESTRATOR_SERVICE_API_KEY),' +
        '\nand the role is written to its database. A running `capctl serve` records its embedded database URL in' +
        '\n<data-dir>/database-url, which this command reads.' +
        `\nRoles: ${Object.entries(platformRoles)
          .map(([role, allowed]) => `${role} (${allowed.join(', ')})`)
          .join('; ')}.` +
        '\nExit codes: 0 granted (or already held), 1 refused, 2 usage error, 3 platform not running or unreachable.',
    )
    .action(async (options: CreateOptions) => {
      const { adminCreate } = await import('./admin.action.ts');
      await adminCreate(options);
    });
}

/** What platform admins moderate, by the name `capctl admin <kind>` gives it. */
const moderated = {
  centres: { path: '/v1/cap/admin/centres', label: (row: Moderated) => `${row.name} (${row.id})` },
  assessors: { path: '/v1/cap/admin/assessors', label: (row: Moderated) => `${row.name ?? row.email} (${row.id})` },
} as const;

interface Moderated {
  id: string;
  name: string | null;
  email?: string;
  status: string;
  createdAt: string;
}

/**
 * `capctl admin centres|assessors list|approve|reject|suspend|delete`: the moderation of centres and
 * assessor profiles, as a signed-in platform admin. Several ids are one all-or-nothing bulk call.
 */
export function registerModeration(admin: Command): void {
  for (const [kind, { path, label }] of Object.entries(moderated)) {
    const group = admin.command(kind).description(`Moderate ${kind} (as a platform admin profile)`);
    signedInOptions(group.command('list'))
      .description(`List ${kind}, newest first`)
      .addOption(
        new Option('--status <status>', 'only this status').choices(['pending', 'approved', 'suspended', 'rejected']),
      )
      .action((options: SignedInOptions & { status?: string }) =>
        runCommand(Boolean(options.json), () =>
          asProfileUser(options, async (session) => {
            const rows = await session.call<Moderated[]>(
              'GET',
              `${path}?limit=100${options.status ? `&status=${options.status}` : ''}`,
            );
            print(
              rows,
              Boolean(options.json),
              () =>
                rows.map((row) => `${row.status.padEnd(9)}  ${label(row)}  since ${row.createdAt}`).join('\n') ||
                `no ${kind}`,
            );
          }),
        ),
      );
    for (const action of ['approve', 'reject', 'suspend', 'delete'] as const) {
      signedInOptions(group.command(action))
        .description(`${action[0]!.toUpperCase()}${action.slice(1)} ${kind}; several ids change all or none`)
        .argument('<ids...>', 'their ids')
        .action((ids: string[], options: SignedInOptions) =>
          runCommand(Boolean(options.json), () =>
            asProfileUser(options, async (session) => {
              let done: Moderated[] = [];
              if (ids.length > 1)
                done = await session.call<Moderated[]>('PATCH', `${path}/bulk`, () => ({ ids, action }));
              else if (action === 'delete') await session.call('DELETE', `${path}/${ids[0]}`);
              else done = [await session.call<Moderated>('POST', `${path}/${ids[0]}/${action}`)];
              print(done, Boolean(options.json), () =>
                action === 'delete'
                  ? `deleted ${ids.join(', ')}`
                  : done.map((row) => `${row.status}: ${label(row)}`).join('\n'),
              );
            }),
          ),
        );
    }
  }
}

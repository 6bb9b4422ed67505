import type { Command } from 'commander';
import { print } from '../output.ts';
import { runCommand } from '../session.ts';
import { asProfileUser, signedInOptions, type SignedInOptions } from './signed-in.ts';

interface CreateOptions extends SignedInOptions {
  name: string;
  registrationNo: string;
  adminName: string;
  adminEmail: string;
}

interface AdminCentre {
  id: string;
  name: string;
  status: string;
  superAdmin: { userId: string; name: string | null; email: string } | null;
}

/** `capctl centre create`: a platform admin creates an approved centre and invites its super admin. */
export function registerCentre(program: Command): void {
  const centre = program.command('centre').description('Centres, as a platform admin (POST /v1/cap/admin/centres)');

  signedInOptions(centre.command('create'))
    .description(
      'Create an approved centre; its super admin gets an account (password by mail) and joins on first sign-in',
    )
    .requiredOption('--name <name>', "the centre's name")
    .requiredOption('--registration-no <number>', "the centre's registration number")
    .requiredOption('--admin-name <name>', "the super admin's name")
    .requiredOption('--admin-email <email>', "the super admin's email")
    .addHelpText('after', '\nThe profile must be a platform admin (capctl admin create).')
    .action((options: CreateOptions) =>
      runCommand(Boolean(options.json), async () => {
        await asProfileUser(options, async (session) => {
          const created = await session.call<AdminCentre>('POST', '/v1/cap/admin/centres', () => ({
            name: options.name,
            registrationNo: options.registrationNo,
            superAdmin: { name: options.adminName, email: options.adminEmail },
          }));
          print(
            created,
            Boolean(options.json),
            () =>
              `created centre ${created.name} (${created.id}, ${created.status}); super admin ${created.superAdmin?.email} invited`,
          );
        });
      }),
    );
}

import type { Command } from 'commander';
import { UsageError } from '../output.ts';
import { runCommand } from '../session.ts';
import type { SeedCommandOptions } from './seed.action.ts';

/** `capctl seed`: catalogue, centres and people from the seed files. */
export function registerSeed(program: Command): void {
  program
    .command('seed')
    .description('Bring a running platform to what the seed files say: catalogue, centres, people (idempotent)')
    .argument('[paths...]', "seed files or folders (default: the project's seeds/)")
    .option('--base-url <url>', 'platform URL (env CAPCTL_BASE_URL, default http://127.0.0.1:4000)')
    .option(
      '--data-dir <dir>',
      'data directory of the local capctl serve, whose database makes the first platform admin, grants platform roles and makes the first LMS staff (env CAPCTL_DATA_DIR, default ./.capctl)',
    )
    .option('--database-url <url>', "the platform's PostgreSQL instead (env DATABASE_URL)")
    .option('--profile <name>', 'act as this signed-in platform admin instead of the first seeded one')
    .option('--only <kinds>', 'seed only these kinds, comma-separated: catalogue, centres, people, assessors, lms')
    .option('--dry-run', 'read the platform and print the plan (with the fields each update changes); write nothing')
    .option(
      '--allow-identity-changes',
      'let a trade move to another sector, or its NOS be replaced while applications use it',
    )
    .option('--concurrency <n>', 'steps run at once (default 8)')
    .option('--json', 'print machine-readable JSON')
    .addHelpText(
      'after',
      '\nThe platform is read once and the plan made before anything is written: the plan is what the run does,' +
        '\nand a second run reports "nothing to change". A run stopped halfway is completed by the next one. People (platform admins, candidates) need a development platform: their accounts are' +
        '\nverified with codes from the dev mailbox. With --profile (a signed-in platform admin) a platform is seeded by its URL alone;' +
        "\nthe first platform admin, platform role grants and the first LMS staff need the platform's database." +
        '\nThe format of the seed files: seeds/README.md.' +
        '\nExit codes: 0 done, 1 refused by the platform, 2 bad seed file or usage, 3 platform unreachable.',
    )
    .action(async (paths: string[], options: SeedCommandOptions) => {
      const only = (options.only ?? 'people,catalogue,centres,assessors,lms').split(',').map((kind) => kind.trim());
      const unknown = only.filter((kind) => !['people', 'catalogue', 'centres', 'assessors', 'lms'].includes(kind));
      if (unknown.length)
        throw new UsageError(`--only takes catalogue, centres, people, assessors and lms, not ${unknown.join(', ')}`);
      if (options.concurrency !== undefined && !/^[1-9][0-9]?$/.test(options.concurrency))
        throw new UsageError('--concurrency takes a whole number from 1 to 99');
      const { seed } = await import('./seed.action.ts');
      await runCommand(Boolean(options.json), () => seed(paths, { ...options, only: only.join(',') }));
    })
    .command('export')
    .description("Write the platform's catalogue, centres (with staff) and LMS courses as seed files into DIR")
    .argument('<dir>', 'the folder to write (catalogue/<sector>.yaml, centres.yaml, lms.yaml)')
    .option('--base-url <url>', 'platform URL (env CAPCTL_BASE_URL, default http://127.0.0.1:4000)')
    .option(
      '--profile <name>',
      "read as this signed-in platform admin instead of the first one of the project's seeds/people.yaml",
    )
    .option(
      '--lms-profile <name>',
      'read the LMS as this signed-in LMS staff member (default: the platform admin if staff, else the first admin of seeds/lms.yaml)',
    )
    .option('--json', 'print machine-readable JSON')
    .addHelpText(
      'after',
      '\nPasswords are not exported. Seeding the folder elsewhere gives the same catalogue, centres and LMS courses.',
    )
    .action(async (dir: string, _options: unknown, command: Command) => {
      // `seed` has the same options and takes them wherever they are given.
      const options = command.optsWithGlobals<{
        baseUrl?: string;
        profile?: string;
        lmsProfile?: string;
        json?: boolean;
      }>();
      const { seedExport } = await import('./seed.action.ts');
      await runCommand(Boolean(options.json), () => seedExport(dir, options));
    });
}

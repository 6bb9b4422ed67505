import { Option, type Command } from 'commander';
import { print, UsageError } from '../output.ts';
import { runCommand } from '../session.ts';
import { asProfileUser, signedInOptions, type SignedInOptions } from './signed-in.ts';
import type { StaffInviteOptions } from './lms.action.ts';

interface Course {
  id: string;
  title: string;
  status: string;
  price: { amountMinorUnits: string; currency: string };
  publishedAt?: string | null;
}

const line = (c: Course) =>
  [c.id, c.status.padEnd(9), `${c.price.currency} ${c.price.amountMinorUnits}`.padEnd(14), c.title].join('  ');

/** `capctl lms course create|publish|list` (as the signed-in user) and `capctl lms staff invite` (operator). */
export function registerLms(program: Command): void {
  const lms = program
    .command('lms')
    .description('The LMS (/v1/lms): courses as the signed-in user, and its first staff');

  lms
    .command('staff')
    .description('LMS staff, as the operator of a running platform')
    .command('invite')
    .description('Invite an address to be LMS staff (the first staff of a platform cannot be invited through the API)')
    .requiredOption('--email <email>', 'the address to invite')
    .addOption(
      new Option('--role <role>', 'the staff role').choices(['admin', 'content_manager', 'support']).default('admin'),
    )
    .option(
      '--data-dir <dir>',
      'data directory of the running capctl serve, whose embedded database is used (env CAPCTL_DATA_DIR, default ./.capctl)',
    )
    .option('--database-url <url>', "the platform's PostgreSQL instead (env DATABASE_URL)")
    .option('--json', 'print machine-readable JSON')
    .addHelpText(
      'after',
      '\nThe invite is written to the LMS schema of the running platform. The person then signs in with that address' +
        '\n(registering first if they have no account) and completes the staff onboarding (POST /v1/lms/onboarding/start' +
        '\nwith persona staff, save, submit), which accepts the invite with its role. Nothing is mailed: tell them.' +
        '\nExit codes: 0 invited (or already invited or staff), 1 refused, 2 usage error, 3 platform database not reachable.',
    )
    .action(async (options: StaffInviteOptions) => {
      const { inviteStaff } = await import('./lms.action.ts');
      await inviteStaff(options);
    });
  const course = lms
    .command('course')
    .description('Courses: author them (instructors and staff) or browse the published ones');

  signedInOptions(course.command('create'))
    .description('Create a draft course; you become its owner (needs a completed instructor or staff onboarding)')
    .requiredOption('--title <title>', 'the course title')
    .option('--description <text>', 'what the course is about')
    .option('--price <kobo>', 'price in minor units (kobo), e.g. 1500000 for NGN 15,000', '0')
    .action((options: SignedInOptions & { title: string; description?: string; price: string }) =>
      runCommand(Boolean(options.json), () =>
        asProfileUser(options, async (session) => {
          if (!/^(0|[1-9][0-9]*)$/.test(options.price))
            throw new UsageError('--price takes a whole number of minor units, e.g. 1500000');
          const body = {
            title: options.title,
            ...(options.description ? { description: options.description } : {}),
            price: { amountMinorUnits: options.price, currency: 'NGN' },
          };
          const created = await session.call<Course>('POST', '/v1/lms/authoring/courses', () => body);
          print(created, Boolean(options.json), () => `draft course ${created.id}: ${created.title}`);
        }),
      ),
    );

  signedInOptions(course.command('publish'))
    .description('Publish a course you own (or any course, as staff); refused with the reasons when it is not complete')
    .argument('<id>', 'the course id')
    .action((id: string, options: SignedInOptions) =>
      runCommand(Boolean(options.json), () =>
        asProfileUser(options, async (session) => {
          const published = await session.call<Course>(
            'POST',
            `/v1/lms/authoring/courses/${encodeURIComponent(id)}/publish`,
          );
          print(published, Boolean(options.json), () => `published ${published.id}: ${published.title}`);
        }),
      ),
    );

  signedInOptions(course.command('list'))
    .description('Published courses, newest first; with --authoring, the courses you may author (drafts too)')
    .option('--authoring', 'list the courses you author instead of the catalogue')
    .option('--q <text>', 'only courses whose title or description contains this')
    .action((options: SignedInOptions & { authoring?: boolean; q?: string }) =>
      runCommand(Boolean(options.json), () =>
        asProfileUser(options, async (session) => {
          const query = new URLSearchParams({ limit: '100', ...(options.q ? { q: options.q } : {}) });
          const path = options.authoring ? '/v1/lms/authoring/courses' : '/v1/lms/courses';
          const list = await session.call<Course[]>('GET', `${path}?${query}`);
          print(list, Boolean(options.json), () => (list.length ? list.map(line).join('\n') : 'no courses'));
        }),
      ),
    );
}

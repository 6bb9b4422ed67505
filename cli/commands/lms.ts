import type { Command } from 'commander';
import { print, UsageError } from '../output.ts';
import { runCommand } from '../session.ts';
import { asProfileUser, signedInOptions, type SignedInOptions } from './signed-in.ts';

interface Course {
  id: string;
  title: string;
  status: string;
  price: { amountMinorUnits: string; currency: string };
  publishedAt?: string | null;
}

const line = (c: Course) => [c.id, c.status.padEnd(9), `${c.price.currency} ${c.price.amountMinorUnits}`.padEnd(14), c.title].join('  ');

/** `capctl lms course create|publish|list`: LMS courses as the signed-in instructor or staff member. */
export function registerLms(program: Command): void {
  const lms = program.command('lms').description('The LMS (/v1/lms), as the signed-in user');
  const course = lms.command('course').description('Courses: author them (instructors and staff) or browse the published ones');

  signedInOptions(course.command('create'))
    .description('Create a draft course; you become its owner (needs a completed instructor or staff onboarding)')
    .requiredOption('--title <title>', 'the course title')
    .option('--description <text>', 'what the course is about')
    .option('--price <kobo>', 'price in minor units (kobo), e.g. 1500000 for NGN 15,000', '0')
    .action((options: SignedInOptions & { title: string; description?: string; price: string }) =>
      runCommand(Boolean(options.json), () =>
        asProfileUser(options, async (session) => {
          if (!/^(0|[1-9][0-9]*)$/.test(options.price)) throw new UsageError('--price takes a whole number of minor units, e.g. 1500000');
          const body = { title: options.title, ...(options.description ? { description: options.description } : {}), price: { amountMinorUnits: options.price, currency: 'NGN' } };
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
          const published = await session.call<Course>('POST', `/v1/lms/authoring/courses/${encodeURIComponent(id)}/publish`);
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

/**
 * `capctl lms enroll`, `capctl lms checkout` and `capctl lms scorm upload`: the learner's and the author's LMS commands that
 * the learning side brings. They join the `lms` command when another module declared it. Only light
 * modules load at start-up; the work is in lms-learning.action.ts.
 */
import type { Command } from 'commander';
import { signedInOptions, type SignedInOptions } from './signed-in.ts';
import type { EnrollOptions, ScormUploadOptions } from './lms-learning.action.ts';

export function registerLmsLearning(program: Command): void {
  const lms =
    program.commands.find((command) => command.name() === 'lms') ??
    program.command('lms').description('The LMS (/v1/lms)');
  const actions = () => import('./lms-learning.action.ts');

  signedInOptions(lms.command('enroll'))
    .description(
      'Enrol the signed-in learner in a published course; a paid course is checked out, printing where to pay',
    )
    .argument('<courseId>', 'the course id')
    .option('--no-checkout', 'only enrol; do not start paying for a paid course')
    .addHelpText(
      'after',
      '\nPay the printed checkout URL with `capctl pay <checkoutUrl>` (sandbox), or in a browser.\nExit codes: 0 enrolled (active or waiting for payment), 1 refused, 2 usage error, 3 platform unreachable.',
    )
    .action(async (courseId: string, options: EnrollOptions) => (await actions()).enroll(courseId, options));

  signedInOptions(lms.command('checkout'))
    .description("Start (or resume) paying for the signed-in learner's pending enrollment, printing where to pay")
    .argument('<enrollmentId>', 'the pending enrollment (from `capctl lms enroll`)')
    .addHelpText(
      'after',
      '\nThe amount is the course price; a checkout still pending is answered again, never charged twice.\nExit codes: 0 checkout started, 1 refused (already paid, free course), 2 usage error, 3 platform unreachable.',
    )
    .action(async (enrollmentId: string, options: SignedInOptions) =>
      (await actions()).checkout(enrollmentId, options),
    );

  signedInOptions(lms.command('scorm').description('SCORM packages').command('upload'))
    .description(
      "Upload a SCORM package (a zip; without a file, the platform's own sample package) and optionally attach it as a new item",
    )
    .argument('[file]', 'the package zip; leave out for fixtures/scorm/workshop-safety')
    .option(
      '--module <courseId/moduleId>',
      'attach it as a new SCORM item of this module (checked there: 422 lms.scorm.invalid_package for a bad package)',
    )
    .option('--title <title>', "the new item's title (with --module)", 'SCORM package')
    .addHelpText('after', '\nExit codes: 0 uploaded (and attached), 1 refused, 2 usage error, 3 platform unreachable.')
    .action(async (file: string | undefined, options: ScormUploadOptions) =>
      (await actions()).scormUpload(file, options),
    );
}

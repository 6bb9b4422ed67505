/**
 * `capctl certify <applicationId>`: a QA shortcut that drives an application's remaining steps to its
 * certificate through the platform's own API, acting as the seeded people (and QA verifiers it makes on
 * a development platform). The work lives in certify.action.ts, loaded when the command runs.
 */
import type { Command } from 'commander';
import { signedInOptions } from './signed-in.ts';
import type { CertifyOptions } from './certify.action.ts';

export function registerCertify(program: Command): void {
  signedInOptions(program.command('certify'))
    .description(
      "Drive an application to its certificate through the API (QA shortcut; development platform): pay, the centre's reviews, IV, forwarding, EV, certificate",
    )
    .argument('<applicationId>', "an application of the signed-in candidate (the profile's user)")
    .option('--admin-email <email>', 'platform admin (default: the first of seeds/people.yaml)')
    .option('--admin-password <password>', "the admin's password (default: from seeds/people.yaml)")
    .option('--admin-password-stdin', "read the admin's password from the first line of stdin")
    .option(
      '--centre-email <email>',
      "staff of the application's centre (default: its super admin in seeds/centres.yaml)",
    )
    .option('--centre-password <password>', "that person's password (default: from seeds/centres.yaml)")
    .option('--centre-password-stdin', "read that person's password from the first line of stdin")
    .addHelpText(
      'after',
      '\nThe IV and EV are QA assessors (qa.internal-verifier@example.test, qa.external-verifier@example.test) made,' +
        '\napproved and retained by the centre on first use; a trade without an awarding body gets the QA awarding body.' +
        '\nA step the platform does not let it drive (a draft to fill, an interview to hold) is named, and it stops there.' +
        '\nExit codes: 0 certified; 1 a step could not be driven; 2 usage error; 3 platform unreachable.',
    )
    .action(async (applicationId: string, options: CertifyOptions) =>
      (await import('./certify.action.ts')).certify(applicationId, options),
    );
}

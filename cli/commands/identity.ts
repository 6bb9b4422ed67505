import type { Command } from 'commander';
import { print, UsageError } from '../output.ts';
import { runCommand } from '../session.ts';
import { asProfileUser, signedInOptions, type SignedInOptions } from './signed-in.ts';

interface Verification {
  verified: true;
  verifiedAt: string;
  provider: string;
}

/** `capctl identity verify`: the signed-in user's identity check on CAP. */
export function registerIdentity(program: Command): void {
  const identity = program.command('identity').description("Verify the signed-in user's identity on CAP");

  signedInOptions(identity.command('verify'))
    .description('Check a national identification number against the name and date of birth CAP holds for you')
    .requiredOption('--nin <number>', 'the 11-digit national identification number')
    .addHelpText(
      'after',
      '\nIn development the sandbox answers by the first three digits: 100 verifies, 200 fails on the name,' +
        '\n300 on the date of birth, anything else is unknown.' +
        '\nExit codes: 0 verified, 1 not verified or refused, 2 usage error, 3 platform unreachable.',
    )
    .action((options: SignedInOptions & { nin: string }) =>
      runCommand(Boolean(options.json), async () => {
        if (!/^\d{11}$/.test(options.nin)) throw new UsageError('--nin must be exactly 11 digits');
        await asProfileUser(options, async (session) => {
          const result = await session.call<Verification>('POST', '/v1/cap/identity-verification', () => ({
            type: 'nin',
            identificationNumber: options.nin,
          }));
          // A check that does not verify is the server's 422, which runCommand reports (exit 1).
          print(result, Boolean(options.json), () => `verified by ${result.provider} at ${result.verifiedAt}`);
        });
      }),
    );
}

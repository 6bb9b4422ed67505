import type { Command } from 'commander';
import { print } from '../output.ts';
import { runCommand } from '../session.ts';
import { asProfileUser, signedInOptions, type SignedInOptions } from './signed-in.ts';

interface Invitation {
  id: string;
  kind: string;
  organisationName: string;
  role: string;
  invitedAt: string;
}

/**
 * `capctl invitations list|accept|decline`: the signed-in user's invitations from centres and awarding
 * bodies (someone who already had an account is invited, not enrolled; the web client has no screen for it).
 */
export function registerInvitations(program: Command): void {
  const invitations = program
    .command('invitations')
    .description("The signed-in user's invitations from centres and awarding bodies");

  signedInOptions(invitations.command('list'))
    .description('List the invitations that wait for an answer')
    .action((options: SignedInOptions) =>
      runCommand(Boolean(options.json), () =>
        asProfileUser(options, async (session) => {
          const list = await session.call<Invitation[]>('GET', '/v1/cap/me/invitations');
          print(
            list,
            Boolean(options.json),
            () =>
              list
                .map((i) => `${i.id}  ${i.kind} ${i.organisationName} as ${i.role}, since ${i.invitedAt}`)
                .join('\n') || 'no invitations',
          );
        }),
      ),
    );

  for (const answer of ['accept', 'decline'] as const) {
    signedInOptions(invitations.command(answer))
      .description(`${answer === 'accept' ? 'Accept' : 'Decline'} an invitation`)
      .argument('<id>', 'the invitation id (from invitations list)')
      .action((id: string, options: SignedInOptions) =>
        runCommand(Boolean(options.json), () =>
          asProfileUser(options, async (session) => {
            const result = await session.call('POST', `/v1/cap/me/invitations/${id}/${answer}`);
            print(result, Boolean(options.json), () => `${answer === 'accept' ? 'accepted' : 'declined'} ${id}`);
          }),
        ),
      );
  }
}

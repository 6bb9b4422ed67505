import { Option, type Command } from 'commander';
import { print, UsageError } from '../output.ts';
import { runCommand } from '../session.ts';
import { asProfileUser, signedInOptions, type SignedInOptions } from './signed-in.ts';

interface CentreOptions extends SignedInOptions {
  centre: string;
}

interface Panel {
  id: string;
  members: Array<{ assessorId: string; isLead: boolean; isObserver: boolean; name: string }>;
}

interface Schedule {
  scheduledAt: string;
  mode: string;
  location: string | null;
  link: string | null;
}

const centreHeaders = (options: CentreOptions) => ({ 'X-CAP-PERSONA': 'centre', 'X-CAP-CENTRE-ID': options.centre });
const interviewPath = (applicationId: string, rest: string) =>
  `/v1/cap/applications/${encodeURIComponent(applicationId)}/interview/${rest}`;
const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * The seats of a panel from the options: the lead and the other voters, and the IV observer, who is one
 * of them (that seat observes too) or a fourth, non-voting seat.
 */
export function panelSeats(lead: string, voters: string[], observer: string) {
  const seats = [
    { assessorId: lead, isLead: true, isObserver: false },
    ...voters.map((assessorId) => ({ assessorId, isLead: false, isObserver: false })),
  ];
  const observing = seats.find((seat) => seat.assessorId === observer);
  if (observing) observing.isObserver = true;
  else seats.push({ assessorId: observer, isLead: false, isObserver: true });
  return seats;
}

/** `capctl interview panel|schedule|evaluate`: an RPL application's interview, as the centre or a voter. */
export function registerInterview(program: Command): void {
  const interview = program
    .command('interview')
    .description('The interview of an RPL application (/v1/cap/applications/{id}/interview)');

  signedInOptions(interview.command('panel'))
    .description('Seat the panel (as the centre): the lead, two more voters and the IV observer')
    .argument('<applicationId>', 'the application id')
    .requiredOption('--centre <id>', 'the centre to act for')
    .requiredOption('--lead <assessorId>', 'the lead voter (an assessor profile id)')
    .requiredOption('--voter <assessorId>', 'another voter (twice)', collect)
    .requiredOption('--observer <assessorId>', 'the IV observer: one of the voters, or a fourth assessor')
    .action((applicationId: string, options: CentreOptions & { lead: string; voter: string[]; observer: string }) =>
      runCommand(Boolean(options.json), () =>
        asProfileUser(options, async (session) => {
          const members = panelSeats(options.lead, options.voter, options.observer);
          const panel = await session.call<Panel>(
            'POST',
            interviewPath(applicationId, 'panel'),
            () => ({ members }),
            centreHeaders(options),
          );
          print(panel, Boolean(options.json), () =>
            [
              `panel ${panel.id}`,
              ...panel.members.map(
                (m) => `  ${m.assessorId}  ${m.name}${m.isLead ? '  lead' : ''}${m.isObserver ? '  IV observer' : ''}`,
              ),
            ].join('\n'),
          );
        }),
      ),
    );

  signedInOptions(interview.command('schedule'))
    .description(
      "Book the sitting (as the centre): online with a link, or in person at a place or the centre's address",
    )
    .argument('<applicationId>', 'the application id')
    .requiredOption('--centre <id>', 'the centre to act for')
    .requiredOption('--at <datetime>', 'when, ISO 8601 (e.g. 2026-12-01T09:00:00Z)')
    .option('--link <url>', 'an online sitting at this link')
    .option('--location <place>', 'an in-person sitting at this place')
    .option('--centre-address', "an in-person sitting at the centre's address")
    .action(
      (
        applicationId: string,
        options: CentreOptions & { at: string; link?: string; location?: string; centreAddress?: boolean },
      ) =>
        runCommand(Boolean(options.json), () => {
          const ways = [options.link, options.location, options.centreAddress].filter(Boolean).length;
          if (ways !== 1) throw new UsageError('give exactly one of --link, --location and --centre-address');
          const body = options.link
            ? { scheduledAt: options.at, mode: 'online', link: options.link }
            : {
                scheduledAt: options.at,
                mode: 'physical',
                location: options.location,
                useCentreAddress: Boolean(options.centreAddress),
              };
          return asProfileUser(options, async (session) => {
            const schedule = await session.call<Schedule>(
              'POST',
              interviewPath(applicationId, 'schedule'),
              () => body,
              centreHeaders(options),
            );
            print(
              schedule,
              Boolean(options.json),
              () =>
                `sitting at ${schedule.scheduledAt}, ${schedule.mode === 'online' ? `online: ${schedule.link}` : `in person: ${schedule.location}`}`,
            );
          });
        }),
    );

  signedInOptions(interview.command('evaluate'))
    .description('Evaluate as a voter (the lead may add the decision and the outcome)')
    .argument('<applicationId>', 'the application id')
    .requiredOption('--feedback <text>', 'your feedback')
    .requiredOption('--signature <assetId>', 'your signature file (capctl upload <file> --purpose signature)')
    .addOption(
      new Option('--decision <decision>', "the panel's decision (the lead)").choices([
        'competent',
        'not_yet_competent',
      ]),
    )
    .addOption(
      new Option('--outcome <outcome>', 'approve or reject the application (the lead; after all three voters)').choices(
        ['approve', 'reject'],
      ),
    )
    .action(
      (
        applicationId: string,
        options: SignedInOptions & { feedback: string; signature: string; decision?: string; outcome?: string },
      ) =>
        runCommand(Boolean(options.json), () =>
          asProfileUser(options, async (session) => {
            const body = {
              feedback: options.feedback,
              signatureAssetId: options.signature,
              ...(options.decision ? { decision: options.decision } : {}),
              ...(options.outcome ? { outcome: options.outcome } : {}),
            };
            const result = await session.call<{
              evaluations: number;
              decision: string | null;
              status: string;
              currentStageKey: string;
            }>('POST', interviewPath(applicationId, 'evaluate'), () => body, { 'X-CAP-PERSONA': 'assessor' });
            print(
              result,
              Boolean(options.json),
              () =>
                `${result.evaluations} of 3 voters have evaluated; decision ${result.decision ?? 'not given'}; the application is ${result.status} at ${result.currentStageKey}`,
            );
          }),
        ),
    );
}

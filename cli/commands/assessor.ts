import { Option, type Command } from 'commander';
import { print } from '../output.ts';
import { runCommand, type Session } from '../session.ts';
import { asProfileUser, signedInOptions, type SignedInOptions } from './signed-in.ts';

interface RetainedRequest {
  id: string;
  centre: { id: string; name: string };
  preferredRole: string;
  status: string;
}

interface JobPosting {
  id: string;
  title: string;
  centre: { name: string };
  trade: { name: string };
  slot: number;
  slotsOccupied: number;
  deadline: string;
  status: string;
}

interface JobApplication {
  id: string;
  status: string;
  jobPosting: JobPosting;
}

interface Sector {
  id: string;
  name: string;
}

const asAssessor = { 'X-CAP-PERSONA': 'assessor' };

/** One assessor call as the profile's user, printed for people or as JSON. */
function assessorAction<T>(
  options: SignedInOptions,
  call: (session: Session) => Promise<T>,
  human: (value: T) => string,
) {
  return runCommand(Boolean(options.json), async () => {
    await asProfileUser(options, async (session) => {
      const value = await call(session);
      print(value, Boolean(options.json), () => human(value));
    });
  });
}

const requestLine = (r: RetainedRequest) => [r.id, r.centre.name, r.preferredRole, r.status].join('  ');
const postingLine = (p: JobPosting) =>
  [p.id, p.title, p.centre.name, p.trade.name, `${p.slotsOccupied}/${p.slot} taken`, `until ${p.deadline}`].join('  ');

/** `capctl assessor ...`: the assessor market as the signed-in assessor (/v1/cap/assessor/*). */
export function registerAssessor(program: Command): void {
  const assessor = program
    .command('assessor')
    .description(
      'The assessor market as the signed-in assessor: centres that retain you, jobs, sectors (/v1/cap/assessor)',
    );

  signedInOptions(assessor.command('retain-request'))
    .description('Ask a centre to retain you (your assessor profile must be approved)')
    .argument('<centreId>', 'the centre (capctl seed lists them; or GET /v1/cap/centres)')
    .addOption(
      new Option('--role <role>', 'what you offer the centre')
        .choices(['assessor', 'internal_verifier', 'any'])
        .default('any'),
    )
    .action((centreId: string, options: SignedInOptions & { role: string }) =>
      assessorAction(
        options,
        (session) =>
          session.call<RetainedRequest>(
            'POST',
            '/v1/cap/assessor/retained-requests',
            () => ({ centreId, preferredRole: options.role }),
            asAssessor,
          ),
        (r) => `asked ${r.centre.name} to retain you as ${r.preferredRole}: ${r.status} (request ${r.id})`,
      ),
    );

  signedInOptions(assessor.command('requests'))
    .description('Your requests to centres and where they stand, newest first')
    .action((options: SignedInOptions) =>
      assessorAction(
        options,
        (session) =>
          session.call<RetainedRequest[]>('GET', '/v1/cap/assessor/retained-requests', undefined, asAssessor),
        (list) => (list.length ? list.map(requestLine).join('\n') : 'no requests'),
      ),
    );

  signedInOptions(assessor.command('marketplace'))
    .description('Open job postings in your sectors (your assessor profile must be approved)')
    .action((options: SignedInOptions) =>
      assessorAction(
        options,
        (session) => session.call<JobPosting[]>('GET', '/v1/cap/assessor/marketplace', undefined, asAssessor),
        (list) => (list.length ? list.map(postingLine).join('\n') : 'no open postings in your sectors'),
      ),
    );

  signedInOptions(assessor.command('apply'))
    .description('Apply to a job posting (once)')
    .argument('<postingId>', 'the posting (capctl assessor marketplace)')
    .action((postingId: string, options: SignedInOptions) =>
      assessorAction(
        options,
        (session) =>
          session.call<JobApplication>(
            'POST',
            `/v1/cap/assessor/job-postings/${encodeURIComponent(postingId)}/apply`,
            undefined,
            asAssessor,
          ),
        (a) => `applied to ${a.jobPosting.title} at ${a.jobPosting.centre.name}: ${a.status} (application ${a.id})`,
      ),
    );

  signedInOptions(assessor.command('jobs'))
    .description('Your applications to job postings, newest first')
    .action((options: SignedInOptions) =>
      assessorAction(
        options,
        (session) => session.call<JobApplication[]>('GET', '/v1/cap/assessor/job-postings', undefined, asAssessor),
        (list) =>
          list.length
            ? list.map((a) => [a.id, a.jobPosting.title, a.jobPosting.centre.name, a.status].join('  ')).join('\n')
            : 'no applications',
      ),
    );

  signedInOptions(assessor.command('sectors'))
    .description('Show the sectors you work in, or replace them with --set')
    .option('--set <sectorIds>', 'comma-separated sector ids from the catalogue (empty to clear)')
    .action((options: SignedInOptions & { set?: string }) =>
      assessorAction(
        options,
        (session) =>
          options.set === undefined
            ? session.call<Sector[]>('GET', '/v1/cap/assessor/profile/sectors', undefined, asAssessor)
            : session.call<Sector[]>(
                'PUT',
                '/v1/cap/assessor/profile/sectors',
                () => ({
                  sectorIds: options
                    .set!.split(',')
                    .map((id) => id.trim())
                    .filter(Boolean),
                }),
                asAssessor,
              ),
        (list) => (list.length ? list.map((s) => `${s.id}  ${s.name}`).join('\n') : 'no sectors'),
      ),
    );
}

import { Option, type Command } from 'commander';
import { print, UsageError } from '../output.ts';
import { runCommand } from '../session.ts';
import { asProfileUser, signedInOptions, type SignedInOptions } from './signed-in.ts';

interface Application {
  id: string;
  type: string;
  status: string;
  currentStageKey: string;
  submittedAt: string | null;
  candidate: { name: string };
  centre: { name: string };
  trade: { name: string } | null;
}

interface AsOptions extends SignedInOptions {
  centre?: string;
}

/** As the candidate, or for a centre with --centre (the server reads the persona from the headers). */
const headers = (options: AsOptions): Record<string, string> =>
  options.centre ? { 'X-CAP-PERSONA': 'centre', 'X-CAP-CENTRE-ID': options.centre } : { 'X-CAP-PERSONA': 'candidate' };

interface TimelineStage {
  stageKey: string;
  label: string;
  status: string;
  enteredAt: string | null;
}

interface TimelineEvent {
  title: string;
  eventType: string;
  actorRole: string;
  actorName?: string;
  occurredAt: string;
  metadata: { fromStage: string; toStage: string; feedback?: string; outcome?: string };
}

/** Rows under a header, each column as wide as its widest cell. */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const format = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [format(header), format(widths.map((w) => '-'.repeat(w))), ...rows.map(format)].join('\n');
}

const when = (iso: string | null) => (iso ? iso.replace('T', ' ').slice(0, 19) : '');

function timelineText(stages: TimelineStage[], events: TimelineEvent[]): string {
  return [
    'Stages',
    table(
      ['STAGE', 'STATUS', 'ENTERED'],
      stages.map((s) => [s.label, s.status, when(s.enteredAt)]),
    ),
    '',
    'Moves (oldest first)',
    events.length
      ? table(
          ['WHEN', 'WHAT', 'BY', 'FROM -> TO', 'OUTCOME', 'FEEDBACK'],
          events.map((e) => [
            when(e.occurredAt),
            e.title,
            e.actorName ? `${e.actorName} (${e.actorRole})` : e.actorRole,
            `${e.metadata.fromStage} -> ${e.metadata.toStage}`,
            e.metadata.outcome ?? '',
            e.metadata.feedback ?? '',
          ]),
        )
      : 'none yet',
  ].join('\n');
}

const line = (a: Application) =>
  [a.id, a.type, a.status, a.currentStageKey, a.trade?.name ?? '', a.candidate.name, a.centre.name].join('  ');

/** Reads a JSON file of the nested draft body (personalInformation, experienceAndTrade, assessmentDeclaration). */
async function readForm(file: string): Promise<unknown> {
  const { readFile } = await import('node:fs/promises');
  try {
    return JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`cannot read the form ${file}: ${(err as Error).message}`);
  }
}

/** `capctl application create|list|show|fill|submit|withdraw`: CAP applications as their candidate (or a centre's, read-only). */
export function registerApplication(program: Command): void {
  const application = program
    .command('application')
    .description('CAP applications (/v1/cap/applications), as the signed-in candidate');

  signedInOptions(application.command('create'))
    .description('Make a draft application for a trade at an approved centre')
    .addOption(new Option('--type <type>', 'application type').choices(['RPL', 'NSQ']).default('RPL'))
    .requiredOption('--sector <id>', 'the sector id (GET /v1/cap/sectors)')
    .requiredOption('--trade <id>', 'the trade id (GET /v1/cap/sectors/{id}/trades)')
    .requiredOption('--centre-id <id>', 'the approved centre (GET /v1/cap/centres)')
    .action((options: SignedInOptions & { type: string; sector: string; trade: string; centreId: string }) =>
      runCommand(Boolean(options.json), () =>
        asProfileUser(options, async (session) => {
          const body = {
            type: options.type,
            sectorId: options.sector,
            tradeId: options.trade,
            centreId: options.centreId,
            unitIds: [],
          };
          const created = await session.call<Application>(
            'POST',
            '/v1/cap/applications',
            () => body,
            headers({ ...options }),
          );
          print(
            created,
            Boolean(options.json),
            () => `draft ${created.id} (${created.type}, ${created.trade?.name ?? ''} at ${created.centre.name})`,
          );
        }),
      ),
    );

  signedInOptions(application.command('list'))
    .description("Your applications, newest first (with --centre: that centre's)")
    .option('--centre <id>', 'list for this centre, as its staff')
    .option('--status <status>', 'only this status')
    .option('--stage <key>', 'only at this stage')
    .action((options: AsOptions & { status?: string; stage?: string }) =>
      runCommand(Boolean(options.json), () =>
        asProfileUser(options, async (session) => {
          const query = new URLSearchParams({
            limit: '100',
            ...(options.status ? { status: options.status } : {}),
            ...(options.stage ? { stage: options.stage } : {}),
          });
          const list = await session.call<Application[]>(
            'GET',
            `/v1/cap/applications?${query}`,
            undefined,
            headers(options),
          );
          print(list, Boolean(options.json), () => (list.length ? list.map(line).join('\n') : 'no applications'));
        }),
      ),
    );

  signedInOptions(application.command('show'))
    .description('One application with its stages')
    .argument('<id>', 'the application id')
    .option('--centre <id>', 'read it for this centre, as its staff')
    .action((id: string, options: AsOptions) =>
      runCommand(Boolean(options.json), () =>
        asProfileUser(options, async (session) => {
          const detail = await session.call<Application>(
            'GET',
            `/v1/cap/applications/${encodeURIComponent(id)}`,
            undefined,
            headers(options),
          );
          const stages = await session.call<Array<{ stageKey: string; status: string }>>(
            'GET',
            `/v1/cap/applications/${encodeURIComponent(id)}/stages`,
            undefined,
            headers(options),
          );
          print({ ...detail, stages }, Boolean(options.json), () =>
            [line(detail), ...stages.map((s) => `  ${s.stageKey.padEnd(24)} ${s.status}`)].join('\n'),
          );
        }),
      ),
    );

  signedInOptions(application.command('timeline'))
    .description('The stages, then every move: when, what, who did it, and the outcome (oldest first)')
    .argument('<id>', 'the application id')
    .option('--centre <id>', 'read it for this centre, as its staff')
    .action((id: string, options: AsOptions) =>
      runCommand(Boolean(options.json), () =>
        asProfileUser(options, async (session) => {
          const path = `/v1/cap/applications/${encodeURIComponent(id)}`;
          const stages = await session.call<TimelineStage[]>('GET', `${path}/stages`, undefined, headers(options));
          // Newest first from the API (an application makes a few dozen moves at most); shown oldest first.
          const events = await session.call<TimelineEvent[]>(
            'GET',
            `${path}/events?limit=100`,
            undefined,
            headers(options),
          );
          events.reverse();
          print({ stages, events }, Boolean(options.json), () => timelineText(stages, events));
        }),
      ),
    );

  signedInOptions(application.command('fill'))
    .description('Save the form from a JSON file (the nested draft body), merged into the draft')
    .argument('<id>', 'the application id')
    .requiredOption('--form <file>', 'JSON with personalInformation, experienceAndTrade and assessmentDeclaration')
    .action((id: string, options: SignedInOptions & { form: string }) =>
      runCommand(Boolean(options.json), async () => {
        const form = await readForm(options.form);
        await asProfileUser(options, async (session) => {
          const saved = await session.call<Application>(
            'PATCH',
            `/v1/cap/applications/${encodeURIComponent(id)}`,
            () => form,
            headers({ ...options }),
          );
          print(saved, Boolean(options.json), () => `saved ${saved.id} (${saved.status})`);
        });
      }),
    );

  signedInOptions(application.command('submit'))
    .description('Submit the draft (every missing field is named if it is not complete)')
    .argument('<id>', 'the application id')
    .action((id: string, options: SignedInOptions) =>
      runCommand(Boolean(options.json), () =>
        asProfileUser(options, async (session) => {
          const submitted = await session.call<Application>(
            'POST',
            `/v1/cap/applications/${encodeURIComponent(id)}/submit`,
            undefined,
            headers({ ...options }),
          );
          print(
            submitted,
            Boolean(options.json),
            () =>
              `submitted ${submitted.id}: now at ${submitted.currentStageKey} (pay it with capctl pay ${submitted.id})`,
          );
        }),
      ),
    );

  signedInOptions(application.command('withdraw'))
    .description(
      'Withdraw the application (before it is certified); a paid one withdrawn before its assessment starts is refunded',
    )
    .argument('<id>', 'the application id')
    .option('--reason <text>', 'why (kept with the application)')
    .action((id: string, options: SignedInOptions & { reason?: string }) =>
      runCommand(Boolean(options.json), () =>
        asProfileUser(options, async (session) => {
          const { formatMoney } = await import('../../server/platform/money.ts');
          const body = options.reason ? { reason: options.reason } : {};
          const done = await session.call<{
            id: string;
            currentStageKey: string;
            refund: { paymentId: string; amount: { amountMinorUnits: string; currency: string } } | null;
          }>('POST', `/v1/cap/applications/${encodeURIComponent(id)}/withdraw`, () => body, headers({ ...options }));
          print(
            done,
            Boolean(options.json),
            () =>
              `withdrew ${done.id} at ${done.currentStageKey}: ${done.refund ? `refunding ${formatMoney(done.refund.amount)} (payment ${done.refund.paymentId}; the receipt says refunded once the provider has refunded it)` : 'no refund (not paid, or its assessment had started)'}`,
          );
        }),
      ),
    );
}

/** `capctl wallet`: a centre's wallet balance, and withdrawals to its bank account. */
export function registerWallet(program: Command): void {
  const wallet = program.command('wallet').description("Your centre's wallet (/v1/cap/centre/wallet)");
  const centreOptions = (command: Command) =>
    signedInOptions(command).option('--centre <id>', 'the centre to act for (needed when you are staff of several)');
  const centreHeaders = (options: AsOptions) => ({
    'X-CAP-PERSONA': 'centre',
    ...(options.centre ? { 'X-CAP-CENTRE-ID': options.centre } : {}),
  });

  centreOptions(wallet.command('show', { isDefault: true }))
    .description('The balance')
    .action((options: AsOptions) =>
      runCommand(Boolean(options.json), () =>
        asProfileUser(options, async (session) => {
          const { formatMoney } = await import('../../server/platform/money.ts');
          const data = await session.call<{ balance: { amountMinorUnits: string; currency: string } }>(
            'GET',
            '/v1/cap/centre/wallet',
            undefined,
            centreHeaders(options),
          );
          print(data, Boolean(options.json), () => `balance ${formatMoney(data.balance)}`);
        }),
      ),
    );

  centreOptions(wallet.command('withdraw'))
    .description("Pay out to the centre's bank account (super admins; at most the balance)")
    .requiredOption('--amount <minor>', 'the amount in minor units (kobo), e.g. 500000 for NGN 5,000')
    .option('--currency <code>', 'currency', 'NGN')
    .action((options: AsOptions & { amount: string; currency: string }) =>
      runCommand(Boolean(options.json), () => {
        if (!/^[1-9][0-9]*$/.test(options.amount))
          throw new UsageError('--amount is a whole number of minor units, more than 0');
        return asProfileUser(options, async (session) => {
          const { formatMoney } = await import('../../server/platform/money.ts');
          const amount = { amountMinorUnits: options.amount, currency: options.currency };
          const done = await session.call<{ balance: typeof amount; withdrawal: { bank: string; accountNo: string } }>(
            'POST',
            '/v1/cap/centre/wallet/withdraw',
            () => ({ amount }),
            centreHeaders(options),
          );
          print(
            done,
            Boolean(options.json),
            () =>
              `withdrew ${formatMoney(amount)} to ${done.withdrawal.bank} ${done.withdrawal.accountNo}; balance ${formatMoney(done.balance)}`,
          );
        });
      }),
    );
}

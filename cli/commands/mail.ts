import type { Command } from 'commander';
import { print, UsageError } from '../output.ts';
import { CommandFailed, resolveBaseUrl, runCommand, withApi } from '../session.ts';

interface Mail {
  id: string;
  to: string;
  template: string;
  subject: string;
  text: string;
  sentAt: string;
  otp?: string;
  password?: string;
}

interface MailOptions {
  to: string;
  baseUrl?: string;
  json?: boolean;
}

/** The dev mailbox of an address, newest first. */
async function mailbox(options: MailOptions, limit: number): Promise<Mail[]> {
  return withApi(resolveBaseUrl(options.baseUrl), (api) =>
    api.call<Mail[]>('GET', `/v1/ol/dev/mailbox?to=${encodeURIComponent(options.to)}&limit=${limit}`),
  );
}

const secretOf = (mail: Mail) => (mail.otp ? `otp ${mail.otp}` : mail.password ? `password ${mail.password}` : '');

/** `capctl mail ls|last --to EMAIL`: read the dev mailbox (development mode only). */
export function registerMail(program: Command): void {
  const mail = program
    .command('mail')
    .description('Read the dev mailbox of a platform in development mode')
    .addHelpText('after', '\nThe server answers http.not_found when it does not run in development mode.');

  const common = (command: Command) =>
    command
      .requiredOption('--to <email>', 'the address')
      .option('--base-url <url>', 'platform URL (env CAPCTL_BASE_URL, default http://127.0.0.1:4000)')
      .option('--json', 'print machine-readable JSON');

  common(mail.command('ls'))
    .description("List an address's mails, newest first, with the code or password each carries")
    .option('--limit <n>', 'how many of the newest mails (1-100)', '20')
    .action((options: MailOptions & { limit: string }) =>
      runCommand(Boolean(options.json), async () => {
        const limit = Number(options.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 100)
          throw new UsageError('--limit must be a whole number from 1 to 100');
        const mails = await mailbox(options, limit);
        print(mails, Boolean(options.json), () =>
          mails.length
            ? mails.map((m) => [m.sentAt, m.template, m.subject, secretOf(m)].filter(Boolean).join('  ')).join('\n')
            : `no mail for ${options.to}`,
        );
      }),
    );

  common(mail.command('last'))
    .description("Show an address's newest mail and the code or password it carries")
    .option(
      '--wait <seconds>',
      'wait up to this long for a first mail (mail goes out just after the request that sends it)',
      '0',
    )
    .action((options: MailOptions & { wait: string }) =>
      runCommand(Boolean(options.json), async () => {
        const wait = Number(options.wait);
        if (!(wait >= 0 && wait <= 60)) throw new UsageError('--wait must be a number of seconds from 0 to 60');
        const deadline = Date.now() + wait * 1000;
        let [last] = await mailbox(options, 1);
        while (!last && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 250));
          [last] = await mailbox(options, 1);
        }
        if (!last) throw new CommandFailed(`no mail for ${options.to}`);
        print(last, Boolean(options.json), () =>
          [
            `to: ${last.to}`,
            `subject: ${last.subject}`,
            `sent: ${last.sentAt}`,
            ...(last.otp ? [`otp: ${last.otp}`] : []),
            ...(last.password ? [`password: ${last.password}`] : []),
            '',
            last.text,
          ].join('\n'),
        );
      }),
    );
}

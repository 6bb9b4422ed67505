/**
 * `capctl upload`, `capctl inbox` and `capctl chat`: a signed-in user's files, notifications and
 * conversations on the Orchestrator. The work lives in messaging.action.ts, loaded when a command runs.
 */
import type { Command } from 'commander';
import { signedInOptions, type SignedInOptions } from './signed-in.ts';
import type { FollowOptions, ListOptions, UploadOptions } from './messaging.action.ts';

const actions = () => import('./messaging.action.ts');

export function registerMessaging(program: Command): void {
  signedInOptions(program.command('upload <file>'))
    .description('Upload a file to the Orchestrator (signed upload URL, then confirm) and print the asset')
    .option(
      '--purpose <purpose>',
      'passport, signature, evidence, logo, avatar, certificate, receipt, scorm_package, attachment or other',
      'other',
    )
    .option('--form', 'send it as one multipart/form-data request instead, the way the web client uploads')
    .action(async (file: string, options: UploadOptions) => (await actions()).upload(file, options));

  const inbox = program.command('inbox').description("The signed-in user's notification inbox");
  signedInOptions(inbox.command('list', { isDefault: true }))
    .description('List notifications, newest first')
    .option('--limit <n>', 'how many (1-100)', '20')
    .option('--unread', 'unread ones only')
    .action(async (options: ListOptions) => (await actions()).inboxList(options));
  signedInOptions(inbox.command('read <id>'))
    .description('Mark one notification read')
    .action(async (id: string, options: SignedInOptions) => (await actions()).inboxRead(id, options));
  signedInOptions(inbox.command('read-all'))
    .description('Mark every notification read')
    .action(async (options: SignedInOptions) => (await actions()).inboxReadAll(options));

  const chat = program.command('chat').description("The signed-in user's conversations");
  signedInOptions(chat.command('threads', { isDefault: true }))
    .description('List threads, most recently active first, with unread counts')
    .option('--limit <n>', 'how many (1-100)', '20')
    .action(async (options: ListOptions) => (await actions()).chatThreads(options));
  signedInOptions(chat.command('send <to> <message...>'))
    .description('Post a message: <to> is a thread id, or a user id to start a new thread with')
    .option('--subject <text>', 'subject of a new thread')
    .action(async (to: string, message: string[], options: SignedInOptions & { subject?: string }) =>
      (await actions()).chatSend(to, message.join(' '), options),
    );
  signedInOptions(chat.command('follow <threadId>'))
    .description("Print a thread's messages, then poll for new ones until interrupted (or --timeout)")
    .option('--interval <seconds>', 'seconds between polls', '2')
    .option('--timeout <seconds>', 'stop after this long')
    .action(async (threadId: string, options: FollowOptions) => (await actions()).chatFollow(threadId, options));
}

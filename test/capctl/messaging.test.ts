import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCapctl } from '../helpers/cli.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp, type SignedUpUser } from '../helpers/users.ts';

let platform: TestPlatform;
let ada: SignedUpUser;
let ben: SignedUpUser;
const configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-config-'));

test.before(async () => {
  platform = await startTestPlatform();
  [ada, ben] = await Promise.all([signUp(platform), signUp(platform)]);
  for (const [profile, user] of [
    ['ada', ada],
    ['ben', ben],
  ] as const) {
    const login = await cli('login', '--email', user.email, '--password', user.password, '--profile', profile);
    if (login.code !== 0) throw new Error(login.stderr + login.stdout);
  }
});
test.after.always(async () => {
  await platform?.stop();
  fs.rmSync(configDir, { recursive: true, force: true });
});

const cli = (...args: string[]) =>
  runCapctl(args, { CAPCTL_CONFIG_DIR: configDir, CAPCTL_BASE_URL: platform.urls.gateway! });
async function json(...args: string[]) {
  const result = await cli(...args, '--json');
  if (result.code !== 0)
    throw new Error(`capctl ${args.join(' ')} exited ${result.code}: ${result.stdout}${result.stderr}`);
  return JSON.parse(result.stdout);
}

test('capctl upload stores a fixture file as what its bytes are, and refuses what the purpose does not take', async (t) => {
  const asset = await json('upload', 'fixtures/files/passport.png', '--purpose', 'passport', '--profile', 'ada');
  t.like(asset, { purpose: 'passport', fileName: 'passport.png', metadata: { mimeType: 'image/png' } });
  t.is((await fetch(asset.url)).status, 200);
  const refused = await cli(
    'upload',
    'fixtures/files/certificate.pdf',
    '--purpose',
    'passport',
    '--profile',
    'ada',
    '--json',
  );
  t.is(refused.code, 1);
  t.is(JSON.parse(refused.stdout).error.code, 'storage.type_not_allowed');
  t.is((await cli('upload', 'fixtures/files/missing.png', '--profile', 'ada')).code, 2);
});

test('capctl upload --form stores the file in one multipart request, with its purpose, like the signed-URL path', async (t) => {
  const asset = await json(
    'upload',
    'fixtures/files/passport.png',
    '--purpose',
    'passport',
    '--form',
    '--profile',
    'ada',
  );
  t.like(asset, { purpose: 'passport', fileName: 'passport.png', metadata: { mimeType: 'image/png' } });
  t.is((await fetch(asset.url)).status, 200);
  const refused = await cli(
    'upload',
    'fixtures/files/certificate.pdf',
    '--purpose',
    'passport',
    '--form',
    '--profile',
    'ada',
    '--json',
  );
  t.is(JSON.parse(refused.stdout).error.code, 'storage.type_not_allowed');
});

test('capctl chat starts a thread, replies, lists threads with unread counts and follows a thread by polling', async (t) => {
  const started = await json(
    'chat',
    'send',
    ben.userId,
    'Hello',
    'Ben',
    '--subject',
    'From the CLI',
    '--profile',
    'ada',
  );
  t.like(started, { title: 'From the CLI', recipientId: ben.userId });
  const threads = await json('chat', 'threads', '--profile', 'ben');
  t.like(
    threads.find((c: any) => c.id === started.id),
    { unreadCount: 1, lastMessage: { body: 'Hello Ben' } },
  );
  await json('chat', 'send', started.id, 'Hi', 'Ada', '--profile', 'ben');
  const followed = await cli(
    'chat',
    'follow',
    started.id,
    '--interval',
    '0.3',
    '--timeout',
    '1',
    '--json',
    '--profile',
    'ada',
  );
  t.is(followed.code, 0, followed.stderr);
  t.deepEqual(
    followed.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).body),
    ['Hello Ben', 'Hi Ada'],
  );
});

test('capctl inbox lists notifications, marks one read and all read', async (t) => {
  await json('chat', 'send', ben.userId, 'Ping', '--profile', 'ada');
  let items: any[] = [];
  for (let i = 0; i < 50 && items.length === 0; i++) {
    items = await json('inbox', 'list', '--unread', '--profile', 'ben');
    if (!items.length) await new Promise((r) => setTimeout(r, 200));
  }
  t.true(items.length > 0);
  t.like(await json('inbox', 'read', items[0].id, '--profile', 'ben'), { id: items[0].id, read: true });
  t.true((await json('inbox', 'read-all', '--profile', 'ben')).updated >= 0);
  t.deepEqual(await json('inbox', 'list', '--unread', '--profile', 'ben'), []);
});

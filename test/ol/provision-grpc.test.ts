import test from 'ava';
import * as grpc from '@grpc/grpc-js';
import { callUnary } from '../../server/platform/grpc/client.ts';
import { GrpcCallError } from '../../server/platform/grpc/errors.ts';
import type { PlatformConfig } from '../../server/platform/config.ts';
import { call, sql, captureLogs, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { latestMail, signUp, uniqueEmail } from '../helpers/users.ts';

const logs = captureLogs();
const logLines = logs.lines;
let platform: TestPlatform;
let config: PlatformConfig;

// Everything the platform logs (trace level, nothing redacted) lands in logLines.
test.before(async () => {
  platform = await startTestPlatform({}, { logger: logs.logger });
  config = platform.config;
});
test.after.always(() => platform?.stop());

interface Provisioned {
  user_id: string;
  is_new: boolean;
}

const provision = (request: Record<string, unknown>) =>
  callUnary<Provisioned>(platform.urls.grpc!, config.serviceApiKey, 'IdentityService.ProvisionAccount', request);

async function provisionError(request: Record<string, unknown>): Promise<GrpcCallError> {
  const error = await provision(request).then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(error instanceof GrpcCallError)) throw new Error(`expected a GrpcCallError, got ${String(error)}`);
  return error;
}

async function mailbox(to: string): Promise<Array<{ template: string; text: string; password?: string }>> {
  const res = await call('GET', platform.url(`/v1/ol/dev/mailbox?to=${encodeURIComponent(to)}`));
  return res.body.data;
}

/** The first mail of `template` to `to`, waiting for the bus to deliver it. */
async function mailOf(to: string, template: string): Promise<{ template: string; text: string; password?: string }> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const mail = (await mailbox(to)).find((m) => m.template === template);
    if (mail) return mail;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no ${template} mail reached ${to}`);
}

const login = (email: string, password: string) =>
  call('POST', platform.url('/v1/ol/auth/login'), { json: { email, password } });

test('a new email creates an account (is_new true); the same email, however written, answers is_new false with the same id', async (t) => {
  const email = uniqueEmail('new');
  const created = await provision({ email, intents: ['cap'] });
  t.is(created.is_new, true);
  const again = await provision({ email: `  ${email.toUpperCase()} `, intents: ['lms'] });
  t.deepEqual(again, { user_id: created.user_id, is_new: false });
  const [user] = await sql(platform, `SELECT * FROM ol.users WHERE email = $1`, [email]);
  t.like(user, {
    id: created.user_id,
    status: 'active',
    auth_provider: 'password',
    must_change_password: true,
    intents: ['cap'],
  });
});

test('an existing email changes nothing in the account: same password, mustChangePassword untouched, and no generated password is mailed', async (t) => {
  const existing = await signUp(platform);
  const [before] = await sql(platform, `SELECT * FROM ol.users WHERE id = $1`, [existing.userId]);
  const response = await provision({ email: existing.email, intents: ['lms'] });
  t.deepEqual(response, { user_id: existing.userId, is_new: false });
  const [after] = await sql(platform, `SELECT * FROM ol.users WHERE id = $1`, [existing.userId]);
  t.deepEqual(after, before);
  const signedIn = await login(existing.email, existing.password);
  t.is(signedIn.status, 200);
  t.is(signedIn.body.data.user.mustChangePassword, false);
  // Without notify_kind or a centre there is nothing to tell: nothing is queued for the owner.
  const queued = await sql(
    platform,
    `SELECT id FROM ol.outbox WHERE type = 'notification.requested' AND data->>'userId' = $1 AND data->>'template' <> 'account_verify'`,
    [existing.userId],
  );
  t.deepEqual(queued, []);
});

test('an existing member invited to a centre is told by mail (centre and role named), never sent a password', async (t) => {
  const existing = await signUp(platform);
  const response = await provision({
    email: existing.email,
    intents: ['lms'],
    notify_kind: 'existing_member',
    centre_name: 'Kano Centre',
    role: 'staff',
  });
  t.deepEqual(response, { user_id: existing.userId, is_new: false });
  const invitation = await mailOf(existing.email, 'centre_invitation');
  t.true(invitation.text.includes('Kano Centre'));
  t.is(invitation.password, undefined);
  t.is((await login(existing.email, existing.password)).status, 200);
});

test('20 concurrent calls with one email create one user, and exactly one answers is_new true', async (t) => {
  const email = uniqueEmail('race');
  const responses = await Promise.all(Array.from({ length: 20 }, () => provision({ email, intents: ['cap'] })));
  t.is(new Set(responses.map((response) => response.user_id)).size, 1);
  t.is(responses.filter((response) => response.is_new).length, 1);
  t.is((await sql(platform, `SELECT id FROM ol.users WHERE email = $1`, [email])).length, 1);
  t.is((await mailbox(email)).length, 1);
  const announced = await sql(
    platform,
    `SELECT data FROM ol.outbox WHERE type = 'user.created' AND data->>'userId' = $1`,
    [responses[0]!.user_id],
  );
  t.is(announced.length, 1);
});

test('the generated password is mailed, meets the password rule, signs in with mustChangePassword, and change-password clears it', async (t) => {
  const email = uniqueEmail('first-login');
  const { user_id } = await provision({ email });
  const [mail] = await mailbox(email);
  t.is(mail?.template, 'provisioned_account');
  const password = mail!.password!;
  t.true(password.length >= 16);
  t.regex(password, /[A-Za-z]/);
  t.regex(password, /\d/);
  t.true(mail!.text.includes(password));

  const first = await login(email, password);
  t.is(first.status, 200);
  t.like(first.body.data.user, { userId: user_id, mustChangePassword: true, intents: ['cap'] });

  const newPassword = 'My-own-password-7';
  const changed = await call('PATCH', platform.url('/v1/ol/auth/change-password'), {
    token: first.body.data.accessToken,
    json: { currentPassword: password, newPassword },
  });
  t.is(changed.status, 200);
  t.is((await login(email, password)).status, 401);
  const second = await login(email, newPassword);
  t.is(second.status, 200);
  t.is(second.body.data.user.mustChangePassword, false);
});

test('the mail greets by display_name and names the centre and role', async (t) => {
  const email = uniqueEmail('greeting');
  await provision({
    email,
    display_name: 'Bola Ade',
    centre_name: 'Lagos Skills Centre',
    role: 'super_admin',
    notify_kind: 'new_account',
  });
  const mail = await latestMail(platform, email);
  t.true(mail.text.startsWith('Hello Bola Ade,'));
  t.true(mail.text.includes('You have been added to Lagos Skills Centre as super admin.'));
});

test('each two generated passwords differ', async (t) => {
  const [a, b] = [uniqueEmail('pw-a'), uniqueEmail('pw-b')];
  await Promise.all([provision({ email: a }), provision({ email: b })]);
  t.not((await latestMail(platform, a)).password, (await latestMail(platform, b)).password);
});

test('user.created is published, and the password is in no event, no table but the dev mailbox, and no log line', async (t) => {
  const email = uniqueEmail('secret');
  const { user_id } = await provision({ email, intents: ['cap', 'lms'], correlation_id: 'staff-42' });
  const { password } = await latestMail(platform, email);
  const [announced] = await sql<{ data: Record<string, unknown> }>(
    platform,
    `SELECT data FROM ol.outbox WHERE type = 'user.created' AND data->>'userId' = $1`,
    [user_id],
  );
  t.like(announced?.data, { userId: user_id, email, intents: ['cap', 'lms'], status: 'active' });

  const events = await sql(platform, `SELECT * FROM ol.outbox`);
  t.false(JSON.stringify(events).includes(password!));
  const tables = await sql<{ table_schema: string; table_name: string }>(
    platform,
    `SELECT table_schema, table_name FROM information_schema.tables
     WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
  );
  for (const { table_schema, table_name } of tables) {
    if (table_schema === 'ol' && table_name === 'dev_mailbox') continue;
    const rows = await sql(platform, `SELECT * FROM "${table_schema}"."${table_name}"`);
    t.false(JSON.stringify(rows).includes(password!), `${table_schema}.${table_name} holds the password`);
  }
  t.true(
    logLines.some((line) => line.includes('account provisioned')),
    'the log was captured',
  );
  t.false(logLines.some((line) => line.includes(password!)));
});

test('intents default to cap when the request has none', async (t) => {
  const email = uniqueEmail('default-intent');
  await provision({ email });
  const [user] = await sql(platform, `SELECT intents FROM ol.users WHERE email = $1`, [email]);
  t.deepEqual(user?.intents, ['cap']);
});

const invalidRequests: Array<[string, Record<string, unknown>, RegExp]> = [
  ['no email', { email: '' }, /^email is required$/],
  ['an email that is not an address', { email: 'not-an-address' }, /^email must be a valid email address$/],
  ['an unknown intent', { email: 'x@example.test', intents: ['cap', 'admin'] }, /^intents may hold only cap, lms$/],
  [
    'an unknown notify_kind',
    { email: 'x@example.test', notify_kind: 'welcome' },
    /^notify_kind must be empty or one of: new_account, existing_member$/,
  ],
];
for (const [label, request, message] of invalidRequests) {
  test(`ProvisionAccount with ${label} is INVALID_ARGUMENT and creates nothing`, async (t) => {
    const error = await provisionError(request);
    t.is(error.code, grpc.status.INVALID_ARGUMENT);
    t.regex(error.details, message);
    t.is(
      (await sql(platform, `SELECT 1 FROM ol.users WHERE email = $1`, [String(request.email).toLowerCase()])).length,
      0,
    );
  });
}

test('FindAccounts answers the accounts of the addresses that have one, in any case, and changes and mails nothing; no address or over 1000 is INVALID_ARGUMENT', async (t) => {
  const user = await signUp(platform);
  const nobody = uniqueEmail('nobody');
  const find = (emails: string[]) =>
    callUnary<{ accounts: Array<Record<string, unknown>> }>(
      platform.urls.grpc!,
      config.serviceApiKey,
      'IdentityService.FindAccounts',
      { emails },
    );
  const { accounts } = await find([user.email.toUpperCase(), nobody]);
  t.deepEqual(accounts, [{ user_id: user.userId, email: user.email, status: 'active', must_change_password: false }]);
  t.deepEqual(await mailbox(nobody), []);
  for (const emails of [[], Array.from({ length: 1001 }, () => nobody)]) {
    const error = await find(emails).then(
      () => undefined,
      (err: unknown) => err as GrpcCallError,
    );
    t.is(error?.code, grpc.status.INVALID_ARGUMENT);
    t.regex(error!.details, /emails must hold 1 to 1000 addresses/);
  }
});

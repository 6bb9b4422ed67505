import test from 'ava';
import net from 'node:net';
import { createNotifications } from '../../server/orchestrator/notifications/service.ts';
import { resolveConfig } from '../../server/platform/config.ts';
import { createSequelize } from '../../server/platform/db/database.ts';
import { createLogger } from '../../server/platform/logger.ts';
import type { ServiceDeps } from '../../server/platform/service.ts';
import { startServe } from '../helpers/cli.ts';
import { call, sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { latestMail, signUp, testPassword, uniqueEmail } from '../helpers/users.ts';
import { testDatabase } from '../helpers/postgres.ts';

let platform: TestPlatform;

test.before(async () => {
  platform = await startTestPlatform();
});
test.after.always(() => platform?.stop());

const register = (email: string) =>
  call('POST', platform.url('/v1/ol/auth/register'), { json: { email, password: testPassword, intents: ['cap'] } });

async function mailbox(to: string, expected: number): Promise<any[]> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const res = await call('GET', platform.url(`/v1/ol/dev/mailbox?to=${encodeURIComponent(to)}`));
    if (res.status !== 200) throw new Error(`mailbox answered ${res.status}: ${res.text}`);
    if (res.body.data.length >= expected) return res.body.data;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`fewer than ${expected} mails reached ${to}`);
}

test('the dev mailbox lists an address its mails newest first, each with its OTP', async (t) => {
  const email = uniqueEmail('mailbox');
  t.is((await register(email)).status, 201);
  const [first] = await mailbox(email, 1);
  t.is(
    (await call('POST', platform.url('/v1/ol/auth/otp/resend'), { json: { email, purpose: 'account_verify' } })).status,
    200,
  );
  const mails = await mailbox(` ${email.toUpperCase()} `, 2);
  t.is(mails.length, 2);
  t.is(mails[1].id, first.id);
  t.true(mails[0].sentAt >= mails[1].sentAt);
  for (const mail of mails) {
    t.like(mail, { to: email, template: 'account_verify', subject: 'Verify your CAP account' });
    t.regex(mail.otp, /^\d{4}$/);
    t.true(mail.text.includes(mail.otp));
    t.false(mail.subject.includes(mail.otp));
  }
  t.deepEqual(
    (await call('GET', platform.url(`/v1/ol/dev/mailbox?to=${encodeURIComponent(uniqueEmail('nobody'))}`))).body.data,
    [],
  );
});

test('the dev mailbox waits for a mail newer than the one given: it answers when the mail is in, or with what there is when the wait is over', async (t) => {
  const email = uniqueEmail('waits');
  const url = (query: Record<string, string>) =>
    platform.url(`/v1/ol/dev/mailbox?${new URLSearchParams({ to: email, ...query })}`);
  // Nothing yet: the read that waits is answered by the mail the registration sends.
  const waiting = call('GET', url({ waitSeconds: '20' }));
  await new Promise((r) => setTimeout(r, 300));
  t.is((await register(email)).status, 201);
  const [first] = (await waiting).body.data;
  t.truthy(first?.otp);
  // A mail already seen does not answer a wait for a newer one, which ends after its seconds, empty-handed.
  const started = Date.now();
  const idle = await call('GET', url({ waitSeconds: '1', after: first.id }));
  t.true(Date.now() - started >= 1000);
  t.deepEqual(
    idle.body.data.map((m: { id: string }) => m.id),
    [first.id],
  );
  // A new code is the newer mail it waits for.
  const next = call('GET', url({ waitSeconds: '20', after: first.id }));
  await call('POST', platform.url('/v1/ol/auth/otp/resend'), { json: { email, purpose: 'account_verify' } });
  const [second] = (await next).body.data;
  t.not(second.id, first.id);
  t.truthy(second.otp);
  t.is((await call('GET', url({ waitSeconds: '31' }))).status, 422);
});

test('notification.requested carries no OTP, and a delivered mail keeps only its metadata', async (t) => {
  const email = uniqueEmail('outbox');
  const registered = await register(email);
  const { otp } = await latestMail(platform, email);
  const events = await sql<{ data: Record<string, unknown> }>(
    platform,
    `SELECT data FROM ol.outbox WHERE type = 'notification.requested' AND data->>'to' = $1`,
    [email],
  );
  t.is(events.length, 1);
  t.deepEqual(Object.keys(events[0]!.data).sort(), ['channel', 'notificationId', 'template', 'to', 'userId']);
  t.like(events[0]!.data, {
    channel: 'email',
    template: 'account_verify',
    to: email,
    userId: registered.body.data.userId,
  });
  t.false(JSON.stringify(events[0]).includes(otp!));

  const [queued] = await sql<Record<string, unknown>>(platform, 'SELECT * FROM ol.notifications WHERE id = $1', [
    events[0]!.data.notificationId,
  ]);
  t.like(queued, { status: 'sent', text: null, secrets: null, subject: 'Verify your CAP account' });
  t.truthy(queued!.sent_at);
});

test('a password reset mail carries its own code, never in the subject', async (t) => {
  const user = await signUp(platform);
  t.is((await call('POST', platform.url('/v1/ol/auth/forgot-password'), { json: { email: user.email } })).status, 200);
  const [reset] = await mailbox(user.email, 2);
  t.like(reset, { template: 'password_reset', subject: 'Reset your CAP password' });
  t.regex(reset.otp, /^\d{4}$/);
  t.true(reset.text.includes(`Your password reset code is ${reset.otp}.`));
  t.is(reset.password, undefined);
});

test('a generated password is sent at once, without an event, and kept only in the mail', async (t) => {
  const sequelize = createSequelize(platform.databaseUrl, 'ol', 2);
  t.teardown(() => sequelize.close());
  const published: string[] = [];
  const events = {
    subscribe: () => undefined,
    publish: async (_tx: unknown, type: string) => void published.push(type),
  };
  const deps = {
    config: resolveConfig({ databaseUrl: platform.databaseUrl }),
    logger: createLogger('silent'),
    sequelize,
    events,
  };
  const notifications = createNotifications(deps as unknown as ServiceDeps);

  const email = uniqueEmail('provisioned');
  await notifications.sendMailNow({
    to: email,
    template: 'provisioned_account',
    variables: { password: 'Generated-Pass-42', name: 'Ngozi' },
  });
  t.deepEqual(published, []);
  const [mail] = await mailbox(email, 1);
  t.like(mail, {
    template: 'provisioned_account',
    subject: 'Your CAP account is ready',
    password: 'Generated-Pass-42',
  });
  t.true(mail.text.includes('Hello Ngozi,'));
  t.true(mail.text.includes(`Sign in with ${email} and this temporary password: Generated-Pass-42`));
  t.is(mail.otp, undefined);
  const rows = await sql<Record<string, unknown>>(platform, 'SELECT * FROM ol.notifications WHERE to_address = $1', [
    email,
  ]);
  t.is(rows.length, 1);
  t.like(rows[0], { status: 'sent', text: null, secrets: null, template: 'provisioned_account' });
});

test('the dev mailbox needs an address', async (t) => {
  const res = await call('GET', platform.url('/v1/ol/dev/mailbox'));
  t.is(res.status, 422);
  t.is(res.body.error.code, 'validation.failed');
});

test('outside development mode mail goes out by SMTP, and the dev mailbox and Google sandbox answer 404', async (t) => {
  const smtp = await startSmtpSink();
  t.teardown(() => smtp.close());
  const live = await startTestPlatform({
    devMode: false,
    mailUrl: `smtp://127.0.0.1:${smtp.port}`,
    serviceApiKey: 'a-production-grade-service-key',
    googleClientId: 'test-google-client',
    identityHmacKey: 'test-identity-hmac-key',
    paymentSecretKey: 'test-payment-secret-key',
  });
  t.teardown(() => live.stop());
  const email = uniqueEmail('smtp');
  t.is(
    (
      await call('POST', live.url('/v1/ol/auth/register'), {
        json: { email, password: testPassword, intents: ['cap'] },
      })
    ).status,
    201,
  );
  const message = await smtp.next();
  t.deepEqual(message.recipients, [`<${email}>`]);
  t.regex(message.data, /Subject: Verify your CAP account/);
  t.regex(message.data, /Your verification code is \d{4}\./);

  for (const [method, path] of [
    ['GET', `/v1/ol/dev/mailbox?to=${encodeURIComponent(email)}`],
    ['GET', '/v1/ol/dev/google/jwks.json'],
    ['POST', '/v1/ol/dev/google/id-token'],
  ] as const) {
    const res = await call(method, live.url(path), method === 'POST' ? { json: { email } } : {});
    t.is(res.status, 404, path);
    t.is(res.body.error.code, 'http.not_found');
  }
});

test('no log line carries a mail body or its OTP', async (t) => {
  const { url: databaseUrl, drop } = await testDatabase();
  t.teardown(drop);
  const ports = [
    '--port',
    '0',
    '--ol-port',
    '0',
    '--cap-port',
    '0',
    '--lms-port',
    '0',
    '--grpc-port',
    '0',
    '--lms-grpc-port',
    '0',
  ];
  const serve = await startServe(ports, { DATABASE_URL: databaseUrl, LOG_LEVEL: 'trace' });
  t.teardown(() => serve.stop());
  const gateway = serve.urls.gateway!;
  const email = uniqueEmail('logs');
  t.is(
    (
      await call('POST', `${gateway}/v1/ol/auth/register`, {
        json: { email, password: testPassword, intents: ['cap'] },
      })
    ).status,
    201,
  );
  const { otp, text } = await latestMail({ url: (path: string) => `${gateway}${path}` } as TestPlatform, email);
  const [sent] = await sql<{ id: string }>(
    { databaseUrl },
    `SELECT id FROM ol.notifications WHERE to_address = $1 AND status = 'sent'`,
    [email],
  );
  t.truthy(sent);
  const logLines = () =>
    serve
      .stderr()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  let lines = logLines();
  for (let attempt = 0; attempt < 50 && !lines.some((line) => line.notificationId === sent!.id); attempt++) {
    await new Promise((r) => setTimeout(r, 100));
    lines = logLines();
  }
  t.true(
    lines.some((line) => line.notificationId === sent!.id),
    'the delivery is logged',
  );
  const strings = lines.flatMap(stringValues);
  t.false(
    strings.some((value) => value.includes(text)),
    'no log holds the body',
  );
  t.false(
    strings.some((value) => new RegExp(`\\b${otp}\\b`).test(value)),
    'no log holds the OTP',
  );
});

function stringValues(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringValues);
  return [];
}

/** A minimal SMTP server that accepts every message (a stand-in for a mail relay). */
async function startSmtpSink(): Promise<{
  port: number;
  next(): Promise<{ recipients: string[]; data: string }>;
  close(): void;
}> {
  const received: { recipients: string[]; data: string }[] = [];
  const waiting: ((m: { recipients: string[]; data: string }) => void)[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buffer = '';
    let inData = false;
    let recipients: string[] = [];
    socket.write('220 sink ESMTP\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          const message = { recipients, data: buffer.slice(0, end) };
          buffer = buffer.slice(end + 5);
          inData = false;
          recipients = [];
          const waiter = waiting.shift();
          if (waiter) waiter(message);
          else received.push(message);
          socket.write('250 queued\r\n');
          continue;
        }
        const newline = buffer.indexOf('\r\n');
        if (newline < 0) return;
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250 sink\r\n');
        else if (verb === 'RCPT') {
          recipients.push(line.slice(line.indexOf(':') + 1).trim());
          socket.write('250 ok\r\n');
        } else if (verb === 'DATA') {
          inData = true;
          socket.write('354 go on\r\n');
        } else if (verb === 'QUIT') socket.end('221 bye\r\n');
        else socket.write('250 ok\r\n');
      }
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    next: () => {
      const message = received.shift();
      return message ? Promise.resolve(message) : new Promise((resolve) => waiting.push(resolve));
    },
    // A connection the mail client keeps open would keep the server, and this test process, alive.
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

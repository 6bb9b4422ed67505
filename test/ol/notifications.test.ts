import test from 'ava';
import { callUnary } from '../../server/platform/grpc/client.ts';
import { call, captureLogs, eventually, sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { inboxOf, requestNotificationAsCap } from '../helpers/notifications.ts';
import { latestMail, signUp, uniqueEmail } from '../helpers/users.ts';

let platform: TestPlatform;
const logs = captureLogs();
test.before(async () => {
  platform = await startTestPlatform({ logLevel: 'trace' }, { logger: logs.logger });
});
test.after.always(() => platform?.stop());

const ol = (path: string) => platform.url(`/v1/ol${path}`);
const mails = async (to: string) =>
  (await call('GET', ol(`/dev/mailbox?to=${encodeURIComponent(to)}`))).body.data as any[];
const deliveries = (notificationId: string) =>
  sql<{ channel: string; status: string }>(platform, 'SELECT channel, status FROM ol.notifications WHERE id = $1', [
    notificationId,
  ]);

test('a user who turns email off still gets OTP and password-reset mail and no other mail; the inbox shows the rest', async (t) => {
  const user = await signUp(platform);
  const prefs = await call('PUT', ol('/notifications/preferences'), {
    token: user.accessToken,
    json: { channels: { email: false } },
  });
  t.is(prefs.status, 200);
  t.deepEqual(prefs.body.data.channels, { email: false, sms: true, in_app: true });
  t.deepEqual(prefs.body.data.alwaysSent, ['account_verify', 'password_reset', 'provisioned_account']);

  // Password reset still arrives.
  t.is((await call('POST', ol('/auth/forgot-password'), { json: { email: user.email } })).status, 200);
  let reset;
  await eventually('the reset mail arrives', async () =>
    Boolean((reset = (await mails(user.email)).find((m) => m.template === 'password_reset'))),
  );
  // Three wrong codes make a security alert: not mailed, but in the inbox.
  for (let i = 0; i < 3; i++) {
    await call('POST', ol('/auth/reset-password'), {
      json: {
        email: user.email,
        otp: reset!.otp === '0000' ? '1111' : '0000',
        purpose: 'password_reset',
        newPassword: 'Another-pass-7',
      },
    });
  }
  // A notification CAP requests by email and in-app: in the inbox only.
  const eventId = await requestNotificationAsCap(platform, {
    userId: user.userId,
    template: 'application.submitted',
    category: 'application',
    title: 'Application submitted',
    description: 'Your RPL application was submitted.',
    link: '/applications/123',
    channels: ['email', 'in_app'],
  });
  const inbox = await inboxOf(platform, user.accessToken, 2);
  t.deepEqual(inbox.map((n) => n.type).sort(), ['application.submitted', 'security_alert']);
  const submitted = inbox.find((n) => n.type === 'application.submitted');
  t.like(submitted, {
    id: eventId,
    category: 'application',
    title: 'Application submitted',
    read: false,
    isUnread: true,
    link: '/applications/123',
    actionUrl: '/applications/123',
  });
  t.deepEqual(await deliveries(eventId), [{ channel: 'email', status: 'suppressed' }]);
  const templates = (await mails(user.email)).map((m) => m.template).sort();
  t.deepEqual(templates, ['account_verify', 'password_reset']);

  // With email back on, the same kind of notification is mailed too.
  await call('PUT', ol('/notifications/preferences'), { token: user.accessToken, json: { channels: { email: true } } });
  await requestNotificationAsCap(platform, {
    userId: user.userId,
    template: 'application.submitted',
    category: 'application',
    title: 'Second',
    description: 'Again.',
    channels: ['email'],
  });
  await eventually('the mail arrives', async () => (await mails(user.email)).some((m) => m.subject === 'Second'));
  t.pass();
});

test("the inbox lists newest first with filters and cursor, counts unread, marks read, marks all read and deletes; it is the owner's only", async (t) => {
  const [owner, other] = await Promise.all([signUp(platform), signUp(platform)]);
  for (const [i, category] of (['application', 'assessment', 'system'] as const).entries()) {
    await requestNotificationAsCap(platform, {
      userId: owner.userId,
      template: `test.${category}`,
      category,
      title: `N${i}`,
      description: `d${i}`,
      channels: ['in_app'],
    });
  }
  const all = await inboxOf(platform, owner.accessToken, 3);
  t.deepEqual(
    all.map((n) => n.title),
    ['N2', 'N1', 'N0'],
  );
  const count = () => call('GET', ol('/notifications/unread-count'), { token: owner.accessToken });
  t.deepEqual((await count()).body.data, { unreadCount: 3 });

  const page = await call('GET', ol('/notifications?limit=2'), { token: owner.accessToken });
  t.is(page.body.data.length, 2);
  t.true(page.body.meta.pagination.hasMore);
  const next = await call('GET', ol(`/notifications?limit=2&cursor=${page.body.meta.pagination.nextCursor}`), {
    token: owner.accessToken,
  });
  t.deepEqual(
    next.body.data.map((n: any) => n.title),
    ['N0'],
  );

  const read = await call('PATCH', ol(`/notifications/${all[0].id}/read`), { token: owner.accessToken });
  t.like(read.body.data, { id: all[0].id, read: true, isUnread: false });
  t.deepEqual((await count()).body.data, { unreadCount: 2 });
  t.deepEqual(
    (await call('GET', ol('/notifications?read=true'), { token: owner.accessToken })).body.data.map(
      (n: any) => n.title,
    ),
    ['N2'],
  );
  t.deepEqual(
    (await call('GET', ol('/notifications?status=unread'), { token: owner.accessToken })).body.data.map(
      (n: any) => n.title,
    ),
    ['N1', 'N0'],
  );
  t.deepEqual(
    (await call('GET', ol('/notifications?category=assessment'), { token: owner.accessToken })).body.data.map(
      (n: any) => n.title,
    ),
    ['N1'],
  );

  t.is((await call('PATCH', ol(`/notifications/${all[1].id}/read`), { token: other.accessToken })).status, 404);
  t.is((await call('DELETE', ol(`/notifications/${all[1].id}`), { token: other.accessToken })).status, 404);
  t.deepEqual((await call('GET', ol('/notifications'), { token: other.accessToken })).body.data, []);

  t.deepEqual((await call('POST', ol('/notifications/mark-all-read'), { token: owner.accessToken })).body.data, {
    updated: 2,
  });
  t.deepEqual((await count()).body.data, { unreadCount: 0 });
  const deleted = await call('DELETE', ol(`/notifications/${all[2].id}`), { token: owner.accessToken });
  t.deepEqual(deleted.body.data, { id: all[2].id, deleted: true });
  t.is((await call('GET', ol('/notifications'), { token: owner.accessToken })).body.data.length, 2);

  const bad = await call('GET', ol('/notifications?category=gossip'), { token: owner.accessToken });
  t.is(bad.status, 422);
  t.is((await call('GET', ol('/notifications'))).status, 401);
});

test('sms goes to the number in the preferences through the dev sink, and is off when the user turns it off', async (t) => {
  const user = await signUp(platform);
  const number = `+23480${String(Date.now()).slice(-8)}`;
  t.is(
    (await call('PUT', ol('/notifications/preferences'), { token: user.accessToken, json: { smsNumber: number } }))
      .status,
    200,
  );
  await requestNotificationAsCap(platform, {
    userId: user.userId,
    template: 'interview.scheduled',
    category: 'assessment',
    title: 'Interview',
    description: 'Monday 10:00',
    channels: ['sms'],
  });
  let sms: any[] = [];
  await eventually(
    'the sms arrives',
    async () => (sms = (await call('GET', ol(`/dev/sms?to=${encodeURIComponent(number)}`))).body.data).length > 0,
  );
  t.is(sms[0].text, 'Interview: Monday 10:00');

  await call('PUT', ol('/notifications/preferences'), { token: user.accessToken, json: { channels: { sms: false } } });
  const id = await requestNotificationAsCap(platform, {
    userId: user.userId,
    template: 'interview.scheduled',
    category: 'assessment',
    title: 'Again',
    description: 'x',
    channels: ['sms'],
  });
  await eventually(
    'the sms is handled',
    async () => (await sql(platform, `SELECT 1 FROM ol.inbox WHERE event_id = $1`, [id])).length > 0,
  );
  t.is((await call('GET', ol(`/dev/sms?to=${encodeURIComponent(number)}`))).body.data.length, 1);
  const invalid = await call('PUT', ol('/notifications/preferences'), {
    token: user.accessToken,
    json: { smsNumber: '0801' },
  });
  t.is(invalid.status, 422);
});

test('a provisioned account finds a notice in its inbox saying where the password went; no generated password appears in any event, inbox row or log', async (t) => {
  const email = uniqueEmail('provisioned');
  const { user_id: userId } = await callUnary<{ user_id: string }>(
    platform.urls.grpc!,
    platform.config.serviceApiKey,
    'IdentityService.ProvisionAccount',
    { email, intents: ['cap'], centre_name: 'Lagos Skills Centre', role: 'staff' },
  );
  const { password } = await latestMail(platform, email);
  t.truthy(password);
  const notices = () =>
    sql<{ type: string; category: string; description: string }>(
      platform,
      'SELECT type, category, description FROM ol.inbox_notifications WHERE user_id = $1',
      [userId],
    );
  await eventually('the notice is in the inbox', async () => (await notices()).length > 0);
  const [notice] = await notices();
  t.like(notice, { type: 'provisioned_account', category: 'security' });
  t.true(notice!.description.includes(email));
  // Give the bus a moment to carry anything it would carry.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const outboxes = await sql(
    platform,
    `SELECT data::text AS data FROM ol.outbox UNION ALL SELECT data::text FROM cap.outbox UNION ALL SELECT data::text FROM lms.outbox`,
  );
  t.false(outboxes.some((row: any) => row.data.includes(password!)));
  const inbox = await sql(
    platform,
    'SELECT title, description, metadata::text AS metadata FROM ol.inbox_notifications',
  );
  t.false(JSON.stringify(inbox).includes(password!));
  const deliveriesText = await sql(platform, 'SELECT * FROM ol.notifications WHERE to_address = $1', [email]);
  t.false(JSON.stringify(deliveriesText).includes(password!));
  t.true(logs.lines.length > 0);
  t.false(logs.lines.some((line) => line.includes(password!)));
});

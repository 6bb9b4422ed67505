import test from 'ava';
import { newId } from '../../server/platform/ids.ts';
import {
  activeStaff,
  applicationTargets,
  approvedCentreOwner,
  cap,
  candidateWithApplication,
  asCentre,
  centreWithOwner,
} from '../helpers/cap.ts';
import { inboxOf } from '../helpers/notifications.ts';
import { call, eventually, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp, type SignedUpUser } from '../helpers/users.ts';

// /centre/notification-policy: who at a centre hears of each event.
let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform();
});
test.after.always(() => platform?.stop());

const policy = (user: SignedUpUser, centreId: string, method: 'GET' | 'PUT' | 'PATCH' = 'GET', json?: object) =>
  cap(platform, user, method, '/centre/notification-policy', { headers: asCentre(centreId), json });

const centreOwner = () => centreWithOwner(platform);

const byDefault = (event: string) => ({
  event,
  recipientCapUserIds: [],
  recipientRoles: ['super_admin', 'regular_admin'],
});
const defaultPolicy = { events: [byDefault('application.submitted'), byDefault('application.paid')] };

test("a centre's policy defaults to its super admins and regular admins, and any of its staff reads it", async (t) => {
  const { owner, centreId } = await centreOwner();
  const { member } = await activeStaff(platform, owner, centreId);
  const res = await policy(member, centreId);
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body.data, defaultPolicy);
});

test('a super admin sets who hears of an event (PUT, PATCH); PUT without an event restores its default', async (t) => {
  const { owner, centreId } = await centreOwner();
  const { member } = await activeStaff(platform, owner, centreId);
  const put = await policy(owner, centreId, 'PUT', {
    events: [{ event: 'application.submitted', recipientCapUserIds: [member.userId] }],
  });
  t.is(put.status, 200, put.text);
  const set = {
    events: [
      { event: 'application.submitted', recipientCapUserIds: [member.userId], recipientRoles: [] },
      byDefault('application.paid'),
    ],
  };
  t.deepEqual(put.body.data, set);
  t.deepEqual((await policy(member, centreId)).body.data, set);

  const patched = await policy(owner, centreId, 'PATCH', {
    events: [{ event: 'application.submitted', recipientRoles: ['staff'] }],
  });
  t.deepEqual(patched.body.data.events[0], {
    event: 'application.submitted',
    recipientCapUserIds: [],
    recipientRoles: ['staff'],
  });
  t.deepEqual((await policy(owner, centreId, 'PATCH', {})).body.data, patched.body.data);

  t.deepEqual((await policy(owner, centreId, 'PUT', { events: [] })).body.data, defaultPolicy);
});

test("only super admins change the policy: a regular admin's change is 403 centre.role_forbidden", async (t) => {
  const { owner, centreId } = await centreOwner();
  const { member: admin } = await activeStaff(platform, owner, centreId, { role: 'regular_admin' });
  const res = await policy(admin, centreId, 'PUT', { events: [] });
  t.is(res.status, 403);
  t.is(res.body.error.code, 'centre.role_forbidden');
});

test("named recipients must be the centre's active staff: anyone else is 422 and nothing is written", async (t) => {
  const { owner, centreId } = await centreOwner();
  const other = await centreOwner();
  const { member: stranger } = await activeStaff(platform, other.owner, other.centreId);
  const res = await policy(owner, centreId, 'PUT', {
    events: [{ event: 'application.submitted', recipientCapUserIds: [owner.userId, stranger.userId, newId()] }],
  });
  t.is(res.status, 422);
  t.is(res.body.error.code, 'centre.policy_recipient_not_staff');
  t.deepEqual(
    res.body.error.details.map((d: any) => d.field),
    ['events[0].recipientCapUserIds[1]', 'events[0].recipientCapUserIds[2]'],
  );
  t.deepEqual((await policy(owner, centreId)).body.data, defaultPolicy);
});

test('bad policy bodies are 422: an unknown event or role, an event listed twice, a missing events list on PUT', async (t) => {
  const { owner, centreId } = await centreOwner();
  const bodies = [
    { events: [{ event: 'application.exploded' }] },
    { events: [{ event: 'application.submitted', recipientRoles: ['owner'] }] },
    { events: [{ event: 'application.submitted' }, { event: 'application.submitted' }] },
    {},
  ];
  for (const body of bodies) {
    const res = await policy(owner, centreId, 'PUT', body);
    t.is(res.status, 422, JSON.stringify(body));
    t.is(res.body.error.code, 'validation.failed');
  }
  t.deepEqual((await policy(owner, centreId)).body.data, defaultPolicy);
});

test('a submitted application reaches the people the policy names, by role and by name, in their inbox and mail; others hear nothing', async (t) => {
  const { owner, centreId, sectorId, tradeId } = await applicationTargets(platform, {
    sector: `Policy sector ${Date.now()}`,
    trade: 'Carpentry',
  });
  const { member: admin } = await activeStaff(platform, owner, centreId, { role: 'regular_admin' });
  const { member: named } = await activeStaff(platform, owner, centreId, { name: 'Named Staff' });
  const { member: quiet } = await activeStaff(platform, owner, centreId, { name: 'Quiet Staff' });
  const set = await policy(owner, centreId, 'PUT', {
    events: [
      { event: 'application.submitted', recipientRoles: ['regular_admin'], recipientCapUserIds: [named.userId] },
    ],
  });
  t.is(set.status, 200, set.text);

  const { applicationId } = await candidateWithApplication(platform, { centreId, sectorId, tradeId });
  for (const person of [admin, named]) {
    const [notice] = await inboxOf(platform, person.accessToken, 1, '?category=application');
    t.like(notice, {
      type: 'application.submitted',
      category: 'application',
      title: 'New RPL application',
      metadata: { applicationId, centreId },
    });
    await eventually(`the mail reaches ${person.email}`, async () =>
      (
        (await call('GET', platform.url(`/v1/ol/dev/mailbox?to=${encodeURIComponent(person.email)}`))).body
          .data as any[]
      ).some((mail) => mail.subject === 'New RPL application'),
    );
    t.pass();
  }
  // The bus has carried the others' notices by now; the owner (super admin) and other staff got none.
  for (const person of [owner, quiet]) {
    const inbox = (
      await call('GET', platform.url('/v1/ol/notifications?category=application'), { token: person.accessToken })
    ).body.data;
    t.deepEqual(inbox, []);
  }
});

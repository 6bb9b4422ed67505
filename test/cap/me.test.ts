import test from 'ava';
import { createSequelize } from '../../server/platform/db/database.ts';
import { createEventRuntime } from '../../server/platform/events/runtime.ts';
import { newId } from '../../server/platform/ids.ts';
import { createLogger } from '../../server/platform/logger.ts';
import { cap, drafts, onboard } from '../helpers/cap.ts';
import { call, eventually, sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp } from '../helpers/users.ts';

// CAP identity over real HTTP: the Orchestrator's tokens, CapUser provisioning by event and on first
// call, GET /me, the profile, deletion eligibility and deactivation.

let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform();
});
test.after.always(() => platform?.stop());

const capUsers = (userId: string) =>
  sql<{ status: string; email: string }>(platform, 'SELECT status, email FROM cap.users WHERE user_id = $1', [userId]);

/** Publishes an event into the Orchestrator's outbox, as OL would (a late or repeated delivery). */
async function publishAsOl(type: 'user.created' | 'user.deleted', data: Record<string, unknown>) {
  const sequelize = createSequelize(platform.databaseUrl, 'ol', 1);
  try {
    const events = createEventRuntime(platform.databaseUrl, createLogger('silent')).forService('ol', 'ol', sequelize);
    return await sequelize.transaction((transaction) => events.publish(transaction, type, data));
  } finally {
    await sequelize.close();
  }
}

const processedBy = async (consumer: string, eventId: string) =>
  (await sql(platform, 'SELECT 1 FROM cap.inbox WHERE consumer = $1 AND event_id = $2', [consumer, eventId])).length ===
  1;

test('a call without a token, or with one that is not valid, is 401 auth.unauthenticated', async (t) => {
  const cases: Array<Record<string, string>> = [{}, { authorization: 'Bearer not-a-jwt' }];
  for (const headers of cases) {
    const res = await call('GET', platform.url('/v1/cap/me'), { headers });
    t.is(res.status, 401);
    t.is(res.body.error.code, 'auth.unauthenticated');
  }
});

test('a token accepted before is refused once it expires, and a tampered copy of it never passes', async (t) => {
  const shortLived = await startTestPlatform({ accessTokenTtlSeconds: 4 });
  try {
    const user = await signUp(shortLived);
    t.is((await cap(shortLived, user, 'GET', '/me')).status, 200);
    const [header, payload] = user.accessToken.split('.');
    const forged = [header, payload, Buffer.from('not the signature').toString('base64url')].join('.');
    t.is((await call('GET', shortLived.url('/v1/cap/me'), { token: forged })).status, 401);
    const { exp } = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as { exp: number };
    await new Promise((resolve) => setTimeout(resolve, exp * 1000 - Date.now() + 100));
    const expired = await cap(shortLived, user, 'GET', '/me');
    t.is(expired.status, 401);
    t.is(expired.body.error.code, 'auth.unauthenticated');
  } finally {
    await shortLived.stop();
  }
});

test('user.created provisions the CapUser under the Orchestrator user id before any CAP call', async (t) => {
  const user = await signUp(platform);
  await eventually('user.created reaches CAP', async () => (await capUsers(user.userId)).length === 1);
  t.deepEqual(await capUsers(user.userId), [{ status: 'active', email: user.email }]);

  const me = await cap(platform, user, 'GET', '/me');
  t.is(me.status, 200);
  t.is(me.body.data.userId, user.userId);
  t.is((await capUsers(user.userId)).length, 1);
});

test('the first call provisions a user whose user.created has not arrived, and the late event adds nothing', async (t) => {
  // Signed up for another platform only: CAP's consumer leaves the account alone, as if the event were late.
  const user = await signUp(platform, { intents: ['lms'] });
  const me = await cap(platform, user, 'GET', '/me');
  t.is(me.status, 200);
  t.deepEqual(await capUsers(user.userId), [{ status: 'active', email: user.email }]);

  const late = await publishAsOl('user.created', { userId: user.userId, email: user.email, intents: ['cap'] });
  await eventually('the late user.created is processed', () => processedBy('cap.provision-user', late.id));
  t.deepEqual(await capUsers(user.userId), [{ status: 'active', email: user.email }]);
});

test('first calls racing user.created all succeed on one CapUser', async (t) => {
  const user = await signUp(platform);
  const replies = await Promise.all(Array.from({ length: 8 }, () => cap(platform, user, 'GET', '/me')));
  t.deepEqual(
    replies.map((r) => r.status),
    Array(8).fill(200),
  );
  t.true(replies.every((r) => r.body.data.userId === user.userId));
  const [event] = await sql<{ id: string }>(
    platform,
    "SELECT id FROM ol.outbox WHERE type = 'user.created' AND data->>'userId' = $1",
    [user.userId],
  );
  await eventually('user.created is processed', () => processedBy('cap.provision-user', event!.id));
  t.is((await capUsers(user.userId)).length, 1);
  t.deepEqual(await sql(platform, 'SELECT 1 FROM cap.dead_letters WHERE event_id = $1', [event!.id]), []);
});

test('GET /me of a new user: not verified, no persona, no centre', async (t) => {
  const user = await signUp(platform);
  const me = await cap(platform, user, 'GET', '/me');
  t.is(me.status, 200);
  t.deepEqual(me.body.data, {
    userId: user.userId,
    email: user.email,
    identityVerified: false,
    candidate: null,
    centres: [],
    assessor: null,
    awardingBody: null,
  });
});

test('GET /me shows a started onboarding as onboarding_required and a submitted one as operable', async (t) => {
  const user = await signUp(platform);
  await cap(platform, user, 'POST', '/onboarding/start', { json: { persona: 'assessor' } });
  await onboard(platform, user, 'candidate');
  const me = await cap(platform, user, 'GET', '/me');
  t.deepEqual(me.body.data.candidate, { status: 'operable' });
  t.deepEqual(me.body.data.assessor, { status: 'onboarding_required' });
});

test('PATCH /me/profile merges sections field by field and null removes', async (t) => {
  const user = await signUp(platform);
  const empty = await cap(platform, user, 'GET', '/me/profile');
  t.deepEqual(empty.body.data, { identityVerified: false });

  await cap(platform, user, 'PATCH', '/me/profile', {
    json: { personalDetails: { firstName: 'Ada', lastName: 'Obi' }, residentialAddress: { country: 'Nigeria' } },
  });
  const patched = await cap(platform, user, 'PATCH', '/me/profile', {
    json: {
      personalDetails: { lastName: 'Eze', middleName: 'N' },
      residentialAddress: null,
      contactInformation: { phoneNumber: { countryCode: '+234' } },
    },
  });
  t.is(patched.status, 200);
  const expected = {
    identityVerified: false,
    personalDetails: { firstName: 'Ada', lastName: 'Eze', middleName: 'N' },
    contactInformation: { phoneNumber: { countryCode: '+234' } },
  };
  t.deepEqual(patched.body.data, expected);
  t.deepEqual((await cap(platform, user, 'GET', '/me/profile')).body.data, expected);
});

test('PATCH /me/profile refuses fields outside the shape and malformed dates, changing nothing', async (t) => {
  const user = await signUp(platform);
  await cap(platform, user, 'PATCH', '/me/profile', { json: { personalDetails: { firstName: 'Ada' } } });
  const bad = await cap(platform, user, 'PATCH', '/me/profile', {
    json: { personalDetails: { firstName: 'Bo', dob: '12/04/1990', nin: '12345678901' } },
  });
  t.is(bad.status, 422);
  t.is(bad.body.error.code, 'validation.failed');
  t.deepEqual(bad.body.error.details.map((d: { field: string }) => d.field).sort(), [
    'personalDetails.dob',
    'personalDetails.nin',
  ]);
  t.deepEqual((await cap(platform, user, 'GET', '/me/profile')).body.data.personalDetails, { firstName: 'Ada' });
});

test('a submitted onboarding fills the empty profile sections with the person details', async (t) => {
  const user = await signUp(platform);
  await cap(platform, user, 'PATCH', '/me/profile', { json: { personalDetails: { firstName: 'Kept' } } });
  await onboard(platform, user, 'centre');
  const profile = (await cap(platform, user, 'GET', '/me/profile')).body.data;
  t.deepEqual(profile.personalDetails, { firstName: 'Kept' });
  t.deepEqual(profile.contactInformation, drafts.centre.owner.contactInformation);
  t.deepEqual(profile.residentialAddress, drafts.centre.owner.residentialAddress);
});

test('deletion eligibility: blocked only while the caller is the only super admin of a centre', async (t) => {
  const user = await signUp(platform);
  t.deepEqual((await cap(platform, user, 'GET', '/me/deletion-eligibility')).body.data, {
    canDelete: true,
    blockers: [],
  });

  await onboard(platform, user, 'centre');
  const blocked = (await cap(platform, user, 'GET', '/me/deletion-eligibility')).body.data;
  t.false(blocked.canDelete);
  t.is(blocked.blockers.length, 1);
  t.is(blocked.blockers[0].code, 'last_centre_super_admin');
  t.regex(blocked.blockers[0].message, /Lagos Skills Centre/);

  // A second active super admin (staff management arrives with the next issue) lifts the blocker.
  const partner = await signUp(platform);
  await cap(platform, partner, 'GET', '/me');
  const centreId = (await cap(platform, user, 'GET', '/me')).body.data.centres[0].centreId;
  await sql(
    platform,
    "INSERT INTO cap.centre_staff (id, centre_id, user_id, email, role, status, created_at, updated_at) VALUES ($1, $2, $3, $4, 'super_admin', 'active', now(), now())",
    [newId(), centreId, partner.userId, partner.email],
  );
  t.deepEqual((await cap(platform, user, 'GET', '/me/deletion-eligibility')).body.data, {
    canDelete: true,
    blockers: [],
  });
});

test('user.deleted deactivates the CapUser: its still-valid token gets 403 auth.account_deactivated', async (t) => {
  const user = await signUp(platform);
  t.is((await cap(platform, user, 'GET', '/me')).status, 200);
  const deleted = await call('DELETE', platform.url('/v1/ol/auth/account'), {
    token: user.accessToken,
    json: { password: user.password },
  });
  t.is(deleted.status, 200);
  await eventually('user.deleted reaches CAP', async () => (await capUsers(user.userId))[0]?.status === 'deactivated');
  for (const path of ['/me', '/onboarding/mine', '/context']) {
    const res = await cap(platform, user, 'GET', path);
    t.is(res.status, 403, path);
    t.is(res.body.error.code, 'auth.account_deactivated');
  }
});

test('user.deleted before user.created leaves the account deactivated', async (t) => {
  const userId = newId();
  const deleted = await publishAsOl('user.deleted', { userId, email: 'gone@example.test' });
  await eventually('user.deleted is processed', () => processedBy('cap.deactivate-user', deleted.id));
  const created = await publishAsOl('user.created', { userId, email: 'gone@example.test', intents: ['cap'] });
  await eventually('user.created is processed', () => processedBy('cap.provision-user', created.id));
  t.deepEqual(await capUsers(userId), [{ status: 'deactivated', email: 'gone@example.test' }]);
});

import test from 'ava';
import pg from 'pg';
import { createSequelize } from '../../server/platform/db/database.ts';
import { newId } from '../../server/platform/ids.ts';
import { createUsers } from '../../server/lms/people/users/service.ts';
import { call, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp, type SignedUpUser } from '../helpers/users.ts';

// LMS identity and onboarding over real HTTP, with real accounts from the Orchestrator's sign-up flow.
let platform: TestPlatform;
let db: pg.Client;
test.before(async () => {
  platform = await startTestPlatform();
  db = new pg.Client({ connectionString: platform.databaseUrl });
  await db.connect();
});
test.after.always(async () => {
  await db?.end();
  await platform?.stop();
});

const lms = (path: string) => platform.url(`/v1/lms${path}`);
const as = (user: SignedUpUser) => ({ token: user.accessToken });

async function lmsUserRows(userId: string): Promise<Array<{ id: string; email: string | null; status: string }>> {
  const { rows } = await db.query('SELECT id, email, status FROM lms.lms_users WHERE user_id = $1', [userId]);
  return rows;
}

/** Waits until `user.created` has reached the LMS consumer. */
async function provisionedByEvent(user: SignedUpUser) {
  for (let attempt = 0; attempt < 100; attempt++) {
    const rows = await lmsUserRows(user.userId);
    if (rows.length) return rows[0]!;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`user.created never provisioned ${user.userId} in the LMS`);
}

const personalDetails = { firstName: 'Ada', lastName: 'Obi', gender: 'female' };
const phone = { phoneNumber: { countryCode: '+234', number: '8031234567' } };
const address = { country: 'Nigeria', state: 'Lagos', lga: 'Ikeja' };

test('user.created provisions the LMS user that GET /me then describes', async (t) => {
  const user = await signUp(platform);
  const row = await provisionedByEvent(user);
  t.is(row.email, user.email);
  t.is(row.status, 'active');
  const me = await call('GET', lms('/me'), as(user));
  t.is(me.status, 200);
  t.deepEqual(me.body.data, {
    lmsUserId: row.id,
    userId: user.userId,
    personas: [],
    instructorStatus: null,
    capabilities: [],
  });
  t.is((await lmsUserRows(user.userId)).length, 1);
});

test('an account the event has not reached is provisioned on its first call, once, however many calls race', async (t) => {
  const user = await signUp(platform);
  await provisionedByEvent(user);
  await db.query('DELETE FROM lms.lms_users WHERE user_id = $1', [user.userId]); // as if user.created were still on its way
  const replies = await Promise.all(Array.from({ length: 6 }, () => call('GET', lms('/me'), as(user))));
  t.deepEqual(
    replies.map((r) => r.status),
    [200, 200, 200, 200, 200, 200],
  );
  const rows = await lmsUserRows(user.userId);
  t.is(rows.length, 1);
  t.true(replies.every((r) => r.body.data.lmsUserId === rows[0]!.id));
  t.is(rows[0]!.email, user.email, 'the email comes from the access token');
});

test('every LMS identity operation needs an access token: 401 auth.unauthenticated', async (t) => {
  const calls = [
    ['GET', '/me'],
    ['GET', '/me/profile'],
    ['PATCH', '/me/profile'],
    ['POST', '/onboarding/start'],
    ['GET', '/onboarding/mine'],
    ['GET', '/onboarding/learner'],
    ['PATCH', '/onboarding/learner/save'],
    ['POST', '/onboarding/learner/submit'],
  ] as const;
  for (const [method, path] of calls) {
    const res = await call(method, lms(path), { json: {}, token: 'not-a-token' });
    t.is(res.status, 401, `${method} ${path}`);
    t.is(res.body.error.code, 'auth.unauthenticated');
  }
});

test('the profile is a merge patch: left-out fields stay, null clears the photo, the email is read only', async (t) => {
  const user = await signUp(platform);
  const empty = await call('GET', lms('/me/profile'), as(user));
  t.is(empty.status, 200);
  t.deepEqual(empty.body.data, {
    lmsUserId: empty.body.data.lmsUserId,
    email: user.email,
    displayName: null,
    photoAssetId: null,
    photo: null,
  });

  const named = await call('PATCH', lms('/me/profile'), {
    ...as(user),
    json: { displayName: ' Ada Obi ', photoAssetId: '01JPHOTO0000000000000000AA' },
  });
  t.is(named.status, 200);
  t.is(named.body.data.displayName, 'Ada Obi');
  t.deepEqual(named.body.data.photo, { assetId: '01JPHOTO0000000000000000AA', url: null });

  const cleared = await call('PATCH', lms('/me/profile'), { ...as(user), json: { photoAssetId: null } });
  t.is(cleared.body.data.displayName, 'Ada Obi');
  t.is(cleared.body.data.photoAssetId, null);
  t.is(cleared.body.data.photo, null);

  const email = await call('PATCH', lms('/me/profile'), { ...as(user), json: { email: 'other@example.test' } });
  t.is(email.status, 422);
  t.deepEqual(email.body.error.details, [{ field: 'email', issue: 'is not a known field' }]);
  const blank = await call('PATCH', lms('/me/profile'), { ...as(user), json: { displayName: '   ' } });
  t.is(blank.status, 422);
  t.is((await call('GET', lms('/me/profile'), as(user))).body.data.email, user.email);
});

test('a learner start is 201 and starting again resumes the same draft, even when starts race', async (t) => {
  const user = await signUp(platform);
  const starts = await Promise.all(
    [1, 2, 3].map(() => call('POST', lms('/onboarding/start'), { ...as(user), json: { persona: 'learner' } })),
  );
  t.deepEqual(
    starts.map((s) => s.status),
    [201, 201, 201],
  );
  const ids = new Set(starts.map((s) => s.body.data.onboardingId));
  t.is(ids.size, 1);
  const again = await call('POST', lms('/onboarding/start'), { ...as(user), json: { persona: 'learner' } });
  t.is(again.status, 201);
  t.like(again.body.data, { onboardingId: [...ids][0], persona: 'learner', status: 'draft', completedAt: null });
});

test('onboarding/mine puts the onboardings directly on data', async (t) => {
  const user = await signUp(platform);
  const none = await call('GET', lms('/onboarding/mine'), as(user));
  t.is(none.status, 200);
  t.deepEqual(none.body.data, []);
  const started = await call('POST', lms('/onboarding/start'), { ...as(user), json: { persona: 'learner' } });
  const mine = await call('GET', lms('/onboarding/mine'), as(user));
  t.deepEqual(mine.body.data, [started.body.data]);
});

test('an onboarding never started is 404 to get, save and submit', async (t) => {
  const user = await signUp(platform);
  for (const [method, path] of [
    ['GET', '/onboarding/learner'],
    ['PATCH', '/onboarding/learner/save'],
    ['POST', '/onboarding/learner/submit'],
  ] as const) {
    const res = await call(method, lms(path), {
      ...as(user),
      json: method === 'PATCH' ? { personalDetails } : undefined,
    });
    t.is(res.status, 404, `${method} ${path}`);
    t.is(res.body.error.code, 'http.not_found');
  }
});

test('save merges into the draft: objects field by field, left-out sections kept', async (t) => {
  const user = await signUp(platform);
  await call('POST', lms('/onboarding/start'), { ...as(user), json: { persona: 'learner' } });
  const fresh = await call('GET', lms('/onboarding/learner'), as(user));
  t.deepEqual(fresh.body.data.data, { schemaVersion: 1 });

  await call('PATCH', lms('/onboarding/learner/save'), {
    ...as(user),
    json: { personalDetails: { ...personalDetails, middleName: 'Chi' } },
  });
  await call('PATCH', lms('/onboarding/learner/save'), { ...as(user), json: { contactInformation: phone } });
  const saved = await call('PATCH', lms('/onboarding/learner/save'), {
    ...as(user),
    json: { personalDetails: { ...personalDetails, firstName: 'Adaeze' } },
  });
  t.is(saved.status, 200);
  t.deepEqual(saved.body.data.data, {
    schemaVersion: 1,
    personalDetails: { ...personalDetails, firstName: 'Adaeze', middleName: 'Chi' },
    contactInformation: phone,
  });
  t.deepEqual((await call('GET', lms('/onboarding/learner'), as(user))).body.data.data, saved.body.data.data);
});

test("save turns away what is not the persona's form: 422 naming the field", async (t) => {
  const user = await signUp(platform);
  await call('POST', lms('/onboarding/start'), { ...as(user), json: { persona: 'learner' } });
  const instructorOnly = await call('PATCH', lms('/onboarding/learner/save'), {
    ...as(user),
    json: { bio: 'I teach welding', tradeIds: ['t1'] },
  });
  t.is(instructorOnly.status, 422);
  t.deepEqual(
    instructorOnly.body.error.details.map((d: { field: string }) => d.field),
    ['bio', 'tradeIds'],
  );
  const incomplete = await call('PATCH', lms('/onboarding/learner/save'), {
    ...as(user),
    json: { personalDetails: { firstName: 'Ada' } },
  });
  t.is(incomplete.status, 422);
  t.deepEqual(incomplete.body.error.details.map((d: { field: string }) => d.field).sort(), [
    'personalDetails.gender',
    'personalDetails.lastName',
  ]);
  const version = await call('PATCH', lms('/onboarding/learner/save'), { ...as(user), json: { schemaVersion: 2 } });
  t.is(version.status, 422);
  t.is(version.body.error.details[0].field, 'schemaVersion');
  t.deepEqual((await call('GET', lms('/onboarding/learner'), as(user))).body.data.data, { schemaVersion: 1 });
});

test('submit with required fields missing is 422 naming each one, and the draft stays a draft', async (t) => {
  const user = await signUp(platform);
  await call('POST', lms('/onboarding/start'), { ...as(user), json: { persona: 'learner' } });
  await call('PATCH', lms('/onboarding/learner/save'), {
    ...as(user),
    json: { personalDetails: { ...personalDetails, gender: ' ' } },
  });
  const res = await call('POST', lms('/onboarding/learner/submit'), as(user));
  t.is(res.status, 422);
  t.is(res.body.error.code, 'validation.failed');
  t.deepEqual(
    res.body.error.details,
    [
      'personalDetails.gender',
      'contactInformation.phoneNumber.countryCode',
      'contactInformation.phoneNumber.number',
      'residentialAddress.country',
      'residentialAddress.state',
      'residentialAddress.lga',
    ].map((field) => ({ field, issue: 'is required' })),
  );
  t.is((await call('GET', lms('/onboarding/learner'), as(user))).body.data.status, 'draft');
});

test('a complete learner onboarding submits, opens the learner persona, and cannot be started, saved or submitted again', async (t) => {
  const user = await signUp(platform);
  await call('POST', lms('/onboarding/start'), { ...as(user), json: { persona: 'learner' } });
  await call('PATCH', lms('/onboarding/learner/save'), {
    ...as(user),
    json: { personalDetails, contactInformation: phone, residentialAddress: address },
  });
  const submitted = await call('POST', lms('/onboarding/learner/submit'), as(user));
  t.is(submitted.status, 200);
  t.like(submitted.body.data, { persona: 'learner', status: 'completed' });
  t.truthy(Date.parse(submitted.body.data.completedAt));

  const me = await call('GET', lms('/me'), as(user));
  t.is(me.body.data.personas.length, 1);
  t.like(me.body.data.personas[0], { persona: 'learner', onboardingStatus: 'completed' });
  t.regex(me.body.data.personas[0].profileId, /^[0-9A-Z]{26}$/);
  t.deepEqual(me.body.data.capabilities, ['course.enroll']);

  const again = [
    await call('POST', lms('/onboarding/start'), { ...as(user), json: { persona: 'learner' } }),
    await call('PATCH', lms('/onboarding/learner/save'), { ...as(user), json: { personalDetails } }),
    await call('POST', lms('/onboarding/learner/submit'), as(user)),
  ];
  t.deepEqual(
    again.map((r) => [r.status, r.body.error.code]),
    Array(3).fill([409, 'lms.onboarding.already_completed']),
  );
});

test('instructor and staff onboarding need an invite: 403 lms.invite.required', async (t) => {
  const user = await signUp(platform);
  for (const persona of ['instructor', 'staff']) {
    const res = await call('POST', lms('/onboarding/start'), { ...as(user), json: { persona } });
    t.is(res.status, 403, persona);
    t.is(res.body.error.code, 'lms.invite.required');
  }
  t.deepEqual((await call('GET', lms('/onboarding/mine'), as(user))).body.data, []);
});

test('user.deleted deactivates the LMS user: its calls answer 403 auth.account_deactivated', async (t) => {
  const user = await signUp(platform);
  t.is((await call('GET', lms('/me'), as(user))).status, 200);
  const deleted = await call('DELETE', platform.url('/v1/ol/auth/account'), {
    ...as(user),
    json: { password: user.password },
  });
  t.is(deleted.status, 200, deleted.text);
  let res = await call('GET', lms('/me'), as(user));
  for (let attempt = 0; attempt < 100 && res.status === 200; attempt++) {
    await new Promise((r) => setTimeout(r, 100));
    res = await call('GET', lms('/me'), as(user));
  }
  t.is(res.status, 403);
  t.is(res.body.error.code, 'auth.account_deactivated');
  t.is(
    (await call('POST', lms('/onboarding/start'), { ...as(user), json: { persona: 'learner' } })).body.error.code,
    'auth.account_deactivated',
  );
  t.is((await lmsUserRows(user.userId))[0]!.status, 'deactivated');
});

test('the LMS consumers have no second effect on their own: a late user.created neither duplicates nor revives a user', async (t) => {
  // The consumers' work, called as the event bus calls it, on the platform's database.
  const sequelize = createSequelize(platform.databaseUrl, 'lms', 1);
  t.teardown(() => sequelize.close());
  const users = createUsers(sequelize);

  const user = await signUp(platform);
  const before = await provisionedByEvent(user);
  await users.provision({ userId: user.userId, email: 'someone-else@example.test' });
  t.deepEqual(await lmsUserRows(user.userId), [before]);

  const deletedFirst = newId();
  await users.deactivate(deletedFirst);
  await users.provision({ userId: deletedFirst, email: 'late@example.test' });
  const rows = await lmsUserRows(deletedFirst);
  t.is(rows.length, 1);
  t.is(rows[0]!.status, 'deactivated');
});

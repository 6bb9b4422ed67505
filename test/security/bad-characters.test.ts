import test from 'ava';
import { cap, onboard } from '../helpers/cap.ts';
import { call, sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp, uniqueEmail } from '../helpers/users.ts';

// Attack: text no field of ours may hold. A NUL byte or a lone surrogate in a string field used to be
// a 500 (and, in admin centre creation, after the super admin's account was made and mailed); NUL was
// also stored rewritten, so that two different addresses became one. Refused: 422 validation.failed
// at the validation layer, for every operation, before anything is written.
let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform();
});
test.after.always(() => platform?.stop());

for (const [label, bad] of [
  ['a NUL byte', 'Ada\u0000Obi'],
  ['a lone surrogate', 'Ada\uD800Obi'],
] as const) {
  test(`${label} in a CAP draft, the profile, an LMS draft or a query is 422 naming the field`, async (t) => {
    const user = await signUp(platform, { intents: ['cap', 'lms'] });
    await cap(platform, user, 'POST', '/onboarding/start', { json: { persona: 'candidate' } });
    const draft = await cap(platform, user, 'PATCH', '/onboarding/candidate/save', {
      json: { personalDetails: { firstName: bad } },
    });
    t.is(draft.status, 422, draft.text);
    t.deepEqual(draft.body.error.details, [
      { field: 'personalDetails.firstName', issue: 'must not contain a NUL character or an unpaired surrogate' },
    ]);
    t.is(
      (await cap(platform, user, 'PATCH', '/me/profile', { json: { personalDetails: { lastName: bad } } })).status,
      422,
    );
    await call('POST', platform.url('/v1/lms/onboarding/start'), {
      token: user.accessToken,
      json: { persona: 'learner' },
    });
    t.is(
      (
        await call('PATCH', platform.url('/v1/lms/onboarding/learner/save'), {
          token: user.accessToken,
          json: { personalDetails: { firstName: bad } },
        })
      ).status,
      422,
    );
  });
}

test('a NUL byte in a query parameter is 422 naming the parameter', async (t) => {
  const owner = await signUp(platform);
  await onboard(platform, owner, 'centre');
  const query = await cap(platform, owner, 'GET', '/centre/staff?q=Ada%00Obi', {
    headers: { 'X-CAP-PERSONA': 'centre' },
  });
  t.is(query.status, 422);
  t.is(query.body.error.details[0].field, 'query.q');
});

test('a NUL byte in an email is refused before any account is made, so two addresses never become one', async (t) => {
  const email = uniqueEmail('nul');
  const res = await call('POST', platform.url('/v1/ol/auth/register'), {
    json: { email: email.replace('@', '\u0000@'), password: 'Valid-pass-1', intents: ['cap'] },
  });
  t.is(res.status, 422);
  // Matched by the address's own part (unique to this test), which a stored copy, rewritten or not, starts with.
  t.is(
    (await sql(platform, 'SELECT 1 FROM ol.users WHERE email LIKE $1', [`${email.slice(0, email.indexOf('@'))}%`]))
      .length,
    0,
  );
});

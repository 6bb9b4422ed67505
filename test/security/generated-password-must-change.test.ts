import test from 'ava';
import { approvedCentreOwner, cap } from '../helpers/cap.ts';
import { call, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { latestMail, signUp, testPassword, uniqueEmail } from '../helpers/users.ts';

// Attack: using a mailed (generated) password for everything. The account had mustChangePassword, but
// nothing enforced it. Refused: until the password is changed, the tokens may only change it, sign
// out and read /me; everything else is 403 auth.password_change_required, on all three services.
let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform();
});
test.after.always(() => platform?.stop());

test('a member signed in with the mailed password may only read /me and change the password until they do', async (t) => {
  const owner = await signUp(platform);
  const centreId = await approvedCentreOwner(platform, owner);
  const email = uniqueEmail('member');
  await cap(platform, owner, 'POST', '/centre/staff', {
    headers: { 'X-CAP-PERSONA': 'centre', 'X-CAP-CENTRE-ID': centreId },
    json: { name: 'Bola Ade', email, role: 'staff' },
  });
  const { password } = await latestMail(platform, email);
  const login = (await call('POST', platform.url('/v1/ol/auth/login'), { json: { email, password } })).body.data;
  t.true(login.user.mustChangePassword);
  const member = { accessToken: login.accessToken } as Parameters<typeof cap>[1];

  t.is((await cap(platform, member, 'GET', '/me')).status, 200);
  t.is((await call('GET', platform.url('/v1/lms/me'), { token: login.accessToken })).status, 200);
  for (const refused of [
    await cap(platform, member, 'GET', '/onboarding/mine'),
    await cap(platform, member, 'GET', '/centre/staff', { headers: { 'X-CAP-PERSONA': 'centre' } }),
    await call('GET', platform.url('/v1/lms/me/profile'), { token: login.accessToken }),
    await call('DELETE', platform.url('/v1/ol/auth/account'), { token: login.accessToken, json: { password } }),
  ]) {
    t.is(refused.status, 403, refused.text);
    t.is(refused.body.error.code, 'auth.password_change_required');
  }

  const changed = await call('PATCH', platform.url('/v1/ol/auth/change-password'), {
    token: login.accessToken,
    json: { currentPassword: password, newPassword: testPassword },
  });
  t.is(changed.status, 200);
  const fresh = { accessToken: changed.body.data.accessToken } as Parameters<typeof cap>[1];
  t.is((await cap(platform, fresh, 'GET', '/onboarding/mine')).status, 200, 'the new tokens may do everything');
});

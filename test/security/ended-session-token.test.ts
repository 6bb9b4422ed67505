import test from 'ava';
import { call, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp, testPassword } from '../helpers/users.ts';

// Attack: bringing a logged-out session back. The access token of a session that was logged out is
// still within its 15 minutes; with the password, change-password used to answer a working refresh
// token. Refused: a token whose session ended is refused by every Orchestrator operation.
let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform();
});
test.after.always(() => platform?.stop());

test("after logout, the session's access token cannot change the password or get new tokens", async (t) => {
  const user = await signUp(platform);
  const out = await call('POST', platform.url('/v1/ol/auth/logout'), {
    token: user.accessToken,
    json: { refreshToken: user.refreshToken },
  });
  t.is(out.status, 200);
  const change = await call('PATCH', platform.url('/v1/ol/auth/change-password'), {
    token: user.accessToken,
    json: { currentPassword: testPassword, newPassword: 'Brand-new-pass-2' },
  });
  t.is(change.status, 401);
  t.is(change.body.error.code, 'auth.unauthenticated');
  const refresh = await call('POST', platform.url('/v1/ol/auth/refresh'), {
    json: { refreshToken: user.refreshToken },
  });
  t.is(refresh.status, 401);
});

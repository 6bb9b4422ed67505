import test from 'ava';
import { call, startReplica, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp } from '../helpers/users.ts';

// Attack: keeping a stolen refresh token alive. After its owner changed the password, the refresh token
// the session held before still worked, and so did the tokens it produced. Refused: a password change
// ends every session, the one making the change included (its reply starts a new one), on every replica
// at once; a refresh racing the change either is revoked with the rest or finds its token revoked.
let platform: TestPlatform;
let replica: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform();
  replica = await startReplica(platform);
});
test.after.always(async () => {
  await replica?.stop();
  await platform?.stop();
});

const refresh = (on: TestPlatform, refreshToken: string) =>
  call('POST', on.url('/v1/ol/auth/refresh'), { json: { refreshToken } });
/** A bearer operation of the Orchestrator, which checks that the token's session goes on. */
const unreadCount = (on: TestPlatform, token: string) =>
  call('GET', on.url('/v1/ol/notifications/unread-count'), { token });
const changePassword = (on: TestPlatform, token: string, currentPassword: string, newPassword: string) =>
  call('PATCH', on.url('/v1/ol/auth/change-password'), { token, json: { currentPassword, newPassword } });

test("a password change ends a stolen copy of the session's refresh token and what it produced, on the other replica too", async (t) => {
  const owner = await signUp(platform);
  const copy = owner.refreshToken; // stolen, not used yet
  const changed = await changePassword(platform, owner.accessToken, owner.password, 'Owner-new-pass-1');
  t.is(changed.status, 200);

  const stolen = await refresh(replica, copy);
  t.is(stolen.status, 401);
  t.is(stolen.body.error.code, 'auth.refresh_invalid');
  t.is(
    (await unreadCount(replica, owner.accessToken)).status,
    401,
    "the old session's access token is refused at once",
  );
  t.is((await unreadCount(replica, changed.body.data.accessToken)).status, 200, 'the new session works');
  t.is((await refresh(replica, changed.body.data.refreshToken)).status, 200);
});

test('a password change ends the tokens a thief already produced from a stolen refresh token', async (t) => {
  const owner = await signUp(platform);
  const thief = await refresh(replica, owner.refreshToken);
  t.is(thief.status, 200);

  t.is((await changePassword(platform, owner.accessToken, owner.password, 'Owner-new-pass-2')).status, 200);
  t.is((await refresh(replica, thief.body.data.refreshToken)).status, 401);
  t.is((await unreadCount(replica, thief.body.data.accessToken)).status, 401);
});

test('a thief refreshing over and over while the owner changes the password keeps no token that works', async (t) => {
  const owner = await signUp(platform);
  let password = owner.password;
  let ownerToken = owner.accessToken;
  let thiefToken = owner.refreshToken;
  for (let round = 0; round < 10; round++) {
    // The thief rotates as fast as it can on one replica while the owner changes the password on the other.
    let stop = false;
    let latest = thiefToken;
    const thief = (async () => {
      while (!stop) {
        const next = await refresh(replica, latest);
        if (next.status !== 200) break;
        latest = next.body.data.refreshToken;
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const newPassword = `Owner-pass-${round}x`;
    const changed = await changePassword(platform, ownerToken, password, newPassword);
    t.is(changed.status, 200, changed.text);
    stop = true;
    await thief;
    t.is((await refresh(replica, latest)).status, 401, `round ${round}: the thief's newest token died with the change`);
    // Next round: the thief has stolen the owner's new session.
    password = newPassword;
    ownerToken = changed.body.data.accessToken;
    thiefToken = changed.body.data.refreshToken;
  }
});

import test from 'ava';
import { call, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { latestMail, testPassword, uniqueEmail } from '../helpers/users.ts';

// Attack: account pre-hijacking. The attacker registers the victim's address with a password of the
// attacker's and never verifies it; the victim later proves the address (Google sign-in, or their own
// registration). Refused: proving the address drops what the unproven registrant set.
let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform();
});
test.after.always(() => platform?.stop());

const attackerPassword = 'Attacker-pass-1';
const register = (email: string, password: string) =>
  call('POST', platform.url('/v1/ol/auth/register'), { json: { email, password, intents: ['cap'] } });
const login = (email: string, password: string) =>
  call('POST', platform.url('/v1/ol/auth/login'), { json: { email, password } });

test("Google sign-in of an address someone else registered activates it without the registrant's password", async (t) => {
  const victim = uniqueEmail('victim');
  t.is((await register(victim, attackerPassword)).status, 201);
  const idToken = (await call('POST', platform.url('/v1/ol/dev/google/id-token'), { json: { email: victim } })).body
    .data.idToken;
  const google = await call('POST', platform.url('/v1/ol/auth/google'), {
    json: { idToken, provider: 'google', intents: ['cap'] },
  });
  t.is(google.status, 200, google.text);
  t.is(google.body.data.user.status, 'active');
  const attacker = await login(victim, attackerPassword);
  t.is(attacker.status, 401, 'the unproven password no longer signs in');
});

test("the owner's own registration replaces an unproven one, and verifying it keeps only the owner's password", async (t) => {
  const victim = uniqueEmail('victim');
  await register(victim, attackerPassword);
  const { otp: first } = await latestMail(platform, victim);
  const own = await register(victim, testPassword);
  t.is(own.status, 201);
  let { otp } = await latestMail(platform, victim);
  for (let i = 0; i < 100 && otp === first; i++) {
    await new Promise((r) => setTimeout(r, 100));
    ({ otp } = await latestMail(platform, victim));
  }
  const verified = await call('POST', platform.url('/v1/ol/auth/verify-account'), {
    json: { email: victim, otp, purpose: 'account_verify' },
  });
  t.is(verified.status, 200);
  t.is((await login(victim, attackerPassword)).status, 401);
  t.is((await login(victim, testPassword)).status, 200);
});

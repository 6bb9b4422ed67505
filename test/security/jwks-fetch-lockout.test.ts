import test from 'ava';
import { generateKeyPair, SignJWT } from 'jose';
import { newId } from '../../server/platform/ids.ts';
import { call, captureLogs, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp, type SignedUpUser } from '../helpers/users.ts';

// Attack: tokens naming made-up key ids, sent fast, to make CAP and the LMS spend their reads of the
// Orchestrator's JWKS, so that genuine tokens are refused while the budget recovers. Refused: an
// unknown kid is judged against the keys already held, and reads the keys again at most once per
// cooldown, whoever asks.
const logs = captureLogs();
let platform: TestPlatform;
let user: SignedUpUser;

test.before(async () => {
  platform = await startTestPlatform({}, { logger: logs.logger });
  user = await signUp(platform, { intents: ['cap', 'lms'] });
});
test.after.always(() => platform?.stop());

const jwksReads = () => logs.lines.filter((line) => line.includes('"path":"/.well-known/jwks.json"')).length;

async function forgedToken(): Promise<string> {
  const { privateKey } = await generateKeyPair('RS256');
  return new SignJWT({ email: user.email })
    .setProtectedHeader({ alg: 'RS256', kid: newId() })
    .setSubject(user.userId)
    .setIssuer('cap-platform-ol')
    .setAudience('cap-platform')
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(privateKey);
}

test('a flood of tokens with unknown kids is refused without reading the keys again each time, and genuine tokens keep working', async (t) => {
  // Both services have read the keys once for the genuine token.
  t.is((await call('GET', platform.url('/v1/cap/me'), { token: user.accessToken })).status, 200);
  t.is((await call('GET', platform.url('/v1/lms/me'), { token: user.accessToken })).status, 200);
  const before = jwksReads();

  const forged = await Promise.all(Array.from({ length: 20 }, forgedToken));
  const outcomes = await Promise.all(
    Array.from({ length: 200 }, (_, i) => {
      const service = i % 2 ? 'cap' : 'lms';
      const genuine = i % 10 === 0;
      return call('GET', platform.url(`/v1/${service}/me`), {
        token: genuine ? user.accessToken : forged[i % forged.length],
      }).then((res) => ({ genuine, status: res.status }));
    }),
  );
  t.true(
    outcomes.filter((o) => !o.genuine).every((o) => o.status === 401),
    'every forged token is 401',
  );
  t.true(
    outcomes.filter((o) => o.genuine).every((o) => o.status === 200),
    'every genuine token is 200 during the flood',
  );
  // One cooled-down read per service at most, however many unknown kids arrive.
  t.true(jwksReads() - before <= 2, `the keys were read ${jwksReads() - before} times during the flood`);

  // After the flood the genuine token still works at once.
  t.is((await call('GET', platform.url('/v1/cap/me'), { token: user.accessToken })).status, 200);
  t.is((await call('GET', platform.url('/v1/lms/me'), { token: user.accessToken })).status, 200);
});

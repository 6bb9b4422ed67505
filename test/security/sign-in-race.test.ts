import test from 'ava';
import { call, startReplica, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp } from '../helpers/users.ts';

// Attack: sending many guesses at the same moment, split over two replicas, so that each is checked
// before any failure is counted (20 wrong passwords got 19 real checks against a limit of 5). Refused:
// a try is counted in the database before its password is checked, under a lock the replicas share.
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

test('20 simultaneous wrong passwords for one account over two replicas get at most 5 password checks (401), the rest 429', async (t) => {
  const user = await signUp(platform);
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      call('POST', (i % 2 ? replica : platform).url('/v1/ol/auth/login'), {
        json: { email: user.email, password: `Wrong-pass-${i}` },
      }),
    ),
  );
  const codes = answers.map((answer) => `${answer.status} ${answer.body.error.code}`);
  const checked = codes.filter((code) => code === '401 auth.invalid_credentials').length;
  t.true(checked >= 1 && checked <= 5, `${checked} passwords were checked`);
  t.is(codes.filter((code) => code === '429 auth.too_many_attempts').length, 20 - checked);
  t.is(
    (await call('POST', replica.url('/v1/ol/auth/login'), { json: { email: user.email, password: user.password } }))
      .status,
    429,
    'the right password waits too',
  );
});

test('12 simultaneous right passwords for one account over two replicas all sign in (a shared QA actor)', async (t) => {
  const user = await signUp(platform);
  const answers = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      call('POST', (i % 2 ? replica : platform).url('/v1/ol/auth/login'), {
        json: { email: user.email, password: user.password },
      }),
    ),
  );
  t.deepEqual(
    answers.map((answer) => answer.status),
    Array(12).fill(200),
  );
});

import test from 'ava';
import { limits, waitUntil } from '../../server/orchestrator/accounts/throttle.ts';
import { call, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { latestMail, signUp } from '../helpers/users.ts';

// Attack: guessing a 4-digit password-reset code. Five tries per code and five codes an hour used to
// allow 25 guesses an hour, about 6% success a day. Refused: wrong codes count against the account
// across codes (and against the client address), with a growing wait and a mail to the owner.
let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform();
});
test.after.always(() => platform?.stop());

const reset = (email: string, otp: string) =>
  call('POST', platform.url('/v1/ol/auth/reset-password'), {
    json: { email, otp, purpose: 'password_reset', newPassword: 'Another-pass-9' },
  });
const wrong = (otp: string) => String((Number(otp) + 1) % 10_000).padStart(4, '0');

test('an attacker trying codes as fast as the budget allows gets at most 10 guesses a week: a success chance under 0.1%', (t) => {
  const week = 7 * 24 * 3600_000;
  const failures: Date[] = [];
  let now = 0;
  while (now < week) {
    const next = waitUntil(failures, limits.codePerAccount, now);
    if (next > now) {
      now = next;
      continue;
    }
    failures.unshift(new Date(now)); // a wrong guess, the moment it is allowed
    now += 1000;
  }
  const guesses = failures.filter((at) => at.getTime() < week).length;
  t.true(guesses <= 10, `${guesses} guesses in a week`);
  t.true(1 - (1 - 1 / 10_000) ** guesses < 0.001);
});

test("after 3 wrong codes the account's next try waits an hour (429 with Retry-After), across new codes too, and the owner is told by mail", async (t) => {
  const user = await signUp(platform);
  await call('POST', platform.url('/v1/ol/auth/forgot-password'), { json: { email: user.email } });
  const { otp } = await latestMail(platform, user.email);
  for (let i = 0; i < 3; i++) t.not((await reset(user.email, wrong(otp!))).status, 200);
  // A fresh code does not reset the budget.
  await call('POST', platform.url('/v1/ol/auth/forgot-password'), { json: { email: user.email } });
  let fresh = await latestMail(platform, user.email);
  for (let i = 0; i < 50 && (!fresh.otp || fresh.otp === otp); i++) {
    await new Promise((r) => setTimeout(r, 100));
    fresh = await latestMail(platform, user.email);
  }
  const refused = await reset(user.email, fresh.otp ?? otp!);
  t.is(refused.status, 429);
  t.is(refused.body.error.code, 'auth.too_many_attempts');
  const retryAfter = Number(refused.headers['retry-after']);
  t.true(retryAfter > 3000 && retryAfter <= 3600, `Retry-After ${retryAfter}`);
  let alert;
  for (let i = 0; i < 100 && !alert; i++) {
    const box = await call('GET', platform.url(`/v1/ol/dev/mailbox?to=${encodeURIComponent(user.email)}`));
    if (!box.body.data) throw new Error(box.text);
    const mails = box.body.data as Array<{ template: string }>;
    alert = mails.find((m) => m.template === 'security_alert');
    if (!alert) await new Promise((r) => setTimeout(r, 100));
  }
  t.truthy(alert, 'the owner got a security alert');
  t.is(
    (await call('POST', platform.url('/v1/ol/auth/login'), { json: { email: user.email, password: user.password } }))
      .status,
    200,
    'the owner still signs in',
  );
});

test('one client address gets 10 wrong codes an hour, across accounts', async (t) => {
  const users = await Promise.all(Array.from({ length: 4 }, () => signUp(platform)));
  let refused = 0;
  for (const user of users) {
    await call('POST', platform.url('/v1/ol/auth/forgot-password'), { json: { email: user.email } });
    for (let i = 0; i < 3; i++) if ((await reset(user.email, '0000')).status === 429) refused += 1;
  }
  // 4 accounts x 3 tries = 12 tries: the 11th and 12th are over the address's 10.
  t.true(refused >= 2, `${refused} refused`);
});

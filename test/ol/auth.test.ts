import test from 'ava';
import { call, sql, startTestPlatform, type JsonResponse, type TestPlatform } from '../helpers/platform.ts';
import { latestMail, signUp, testPassword, uniqueEmail } from '../helpers/users.ts';

// The Orchestrator's account and session rules, over real HTTP against the real platform.
let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform();
});
test.after.always(() => platform?.stop());

const auth = (path: string) => platform.url(`/v1/ol/auth${path}`);

/** Waits until `to` has at least `count` mails and returns the newest (a resend's mail arrives asynchronously). */
async function mailNumber(
  to: string,
  count: number,
  on: TestPlatform = platform,
): Promise<{ otp?: string; text: string }> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const res = await call('GET', on.url(`/v1/ol/dev/mailbox?to=${encodeURIComponent(to)}`));
    if (res.body.data.length >= count) return res.body.data[0];
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`mail ${count} never reached ${to}`);
}

async function register(email: string, on: TestPlatform = platform): Promise<JsonResponse> {
  return call('POST', on.url('/v1/ol/auth/register'), { json: { email, password: testPassword, intents: ['cap'] } });
}

const wrongCode = (otp: string) => String((Number(otp) + 1) % 10_000).padStart(4, '0');

async function outboxEvents(type: string): Promise<Array<Record<string, unknown>>> {
  const rows = await sql<{ data: Record<string, unknown> }>(platform, 'SELECT data FROM ol.outbox WHERE type = $1', [
    type,
  ]);
  return rows.map((row) => row.data);
}

test('register, verify with the mailed code and login give tokens and the AuthResult user', async (t) => {
  const email = uniqueEmail('happy');
  const registered = await register(`  ${email.toUpperCase()} `);
  t.is(registered.status, 201);
  t.deepEqual(Object.keys(registered.body.data).sort(), ['email', 'status', 'userId']);
  t.is(registered.body.data.email, email);
  t.is(registered.body.data.status, 'pending_verification');

  const { otp } = await latestMail(platform, email);
  t.regex(otp!, /^\d{4}$/);
  const verified = await call('POST', auth('/verify-account'), { json: { email, otp, purpose: 'account_verify' } });
  t.is(verified.status, 200);
  const { accessToken, refreshToken, user } = verified.body.data;
  t.truthy(accessToken);
  t.truthy(refreshToken);
  t.like(user, {
    userId: registered.body.data.userId,
    id: registered.body.data.userId,
    email,
    phone: null,
    authProvider: 'password',
    status: 'active',
    intents: ['cap'],
    mustChangePassword: false,
  });
  t.regex(user.createdAt, /^\d{4}-\d\d-\d\dT/);

  const created = (await outboxEvents('user.created')).find((data) => data.userId === user.userId);
  t.like(created, { email, intents: ['cap'], status: 'active', createdAt: user.createdAt });

  const login = await call('POST', auth('/login'), { json: { email: email.toUpperCase(), password: testPassword } });
  t.is(login.status, 200);
  t.is(login.body.data.user.userId, user.userId);
  t.is(login.body.data.user.mustChangePassword, false);
});

test('registering an address that already has a verified account is 409 auth.email_taken, whatever its case', async (t) => {
  const user = await signUp(platform);
  const again = await register(user.email.toUpperCase());
  t.is(again.status, 409);
  t.is(again.body.error.code, 'auth.email_taken');
});

test('registering an address whose account was never verified replaces that registration: same account, a new code', async (t) => {
  const email = uniqueEmail('redo');
  const first = await register(email);
  const again = await register(email.toUpperCase());
  t.is(again.status, 201);
  t.is(again.body.data.userId, first.body.data.userId);
  t.truthy((await mailNumber(email, 2)).otp, 'a second code is mailed');
});

test('register refuses a malformed email or a password breaking the rule with 422 validation.failed', async (t) => {
  const cases = [
    { email: 'not-an-email', password: testPassword, field: 'email' },
    { email: uniqueEmail('rule'), password: 'short1', field: 'password' },
    { email: uniqueEmail('rule'), password: 'no-digits-here', field: 'password' },
    { email: uniqueEmail('rule'), password: '1234567890', field: 'password' },
  ];
  for (const { email, password, field } of cases) {
    const res = await call('POST', auth('/register'), { json: { email, password, intents: ['cap'] } });
    t.is(res.status, 422, password);
    t.is(res.body.error.code, 'validation.failed');
    t.is(res.body.error.details[0].field, field);
  }
});

test('login is 401 for a wrong password or an unknown address, and 403 auth.account_not_verified before verification', async (t) => {
  const user = await signUp(platform);
  const wrong = await call('POST', auth('/login'), { json: { email: user.email, password: 'Wrong-password-1' } });
  t.is(wrong.status, 401);
  t.is(wrong.body.error.code, 'auth.invalid_credentials');
  const unknown = await call('POST', auth('/login'), {
    json: { email: uniqueEmail('nobody'), password: testPassword },
  });
  t.is(unknown.status, 401);
  t.is(unknown.body.error.code, 'auth.invalid_credentials');

  const pending = uniqueEmail('pending');
  await register(pending);
  const unverified = await call('POST', auth('/login'), { json: { email: pending, password: testPassword } });
  t.is(unverified.status, 403);
  t.is(unverified.body.error.code, 'auth.account_not_verified');
});

test('a wrong code is 422 auth.otp_invalid and the account stays pending', async (t) => {
  const email = uniqueEmail('wrong');
  await register(email);
  const { otp } = await latestMail(platform, email);
  const res = await call('POST', auth('/verify-account'), {
    json: { email, otp: wrongCode(otp!), purpose: 'account_verify' },
  });
  t.is(res.status, 422);
  t.is(res.body.error.code, 'auth.otp_invalid');
  const login = await call('POST', auth('/login'), { json: { email, password: testPassword } });
  t.is(login.body.error.code, 'auth.account_not_verified');
  const unknown = await call('POST', auth('/verify-account'), {
    json: { email: uniqueEmail('ghost'), otp: '1234', purpose: 'account_verify' },
  });
  t.is(unknown.status, 422);
  t.is(unknown.body.error.code, 'auth.otp_invalid');
});

test('an expired code is 422 auth.otp_invalid', async (t) => {
  const shortLived = await startTestPlatform({ otpTtlSeconds: 1 });
  try {
    const email = uniqueEmail('expired');
    await register(email, shortLived);
    const { otp } = await latestMail(shortLived, email);
    await new Promise((r) => setTimeout(r, 1500));
    const res = await call('POST', shortLived.url('/v1/ol/auth/verify-account'), {
      json: { email, otp, purpose: 'account_verify' },
    });
    t.is(res.status, 422);
    t.is(res.body.error.code, 'auth.otp_invalid');
  } finally {
    await shortLived.stop();
  }
});

test('the wrong try that uses up the attempts is 429 auth.otp_attempts_exceeded and the code stays dead until a new one is sent', async (t) => {
  const email = uniqueEmail('attempts');
  await register(email);
  const { otp } = await latestMail(platform, email);
  const verify = (code: string) =>
    call('POST', auth('/verify-account'), { json: { email, otp: code, purpose: 'account_verify' } });
  for (let i = 1; i < 3; i++) t.is((await verify(wrongCode(otp!))).status, 422, `wrong try ${i}`);
  const third = await verify(wrongCode(otp!));
  t.is(third.status, 429);
  t.is(third.body.error.code, 'auth.otp_attempts_exceeded');
  // The account's free wrong codes are spent too: even the right code waits (test/security/otp-guessing-budget.test.ts).
  t.is((await verify(otp!)).status, 429, 'the right code no longer works');
});

test('code mails beyond the hourly limit are 429 auth.otp_rate_limited with Retry-After, for unknown addresses too', async (t) => {
  const known = uniqueEmail('limit');
  await register(known); // the first of five mails this hour
  for (let i = 0; i < 4; i++) {
    const res = await call('POST', auth('/otp/resend'), { json: { email: known, purpose: 'account_verify' } });
    t.is(res.status, 200);
    t.deepEqual(res.body.data, { sent: true });
  }
  const limited = await call('POST', auth('/otp/resend'), { json: { email: known, purpose: 'account_verify' } });
  t.is(limited.status, 429);
  t.is(limited.body.error.code, 'auth.otp_rate_limited');
  t.true(Number(limited.headers['retry-after']) > 3500);

  const unknown = uniqueEmail('unknown');
  for (let i = 0; i < 5; i++) {
    t.deepEqual(
      (await call('POST', auth('/otp/resend'), { json: { email: unknown, purpose: 'password_reset' } })).body.data,
      { sent: true },
    );
  }
  t.is((await call('POST', auth('/forgot-password'), { json: { email: unknown } })).status, 429);
});

test('refresh takes no Authorization header, returns a new pair, and the used refresh token stops working', async (t) => {
  const user = await signUp(platform);
  const refreshed = await call('POST', auth('/refresh'), { json: { refreshToken: user.refreshToken } });
  t.is(refreshed.status, 200);
  t.deepEqual(Object.keys(refreshed.body.data).sort(), ['accessToken', 'refreshToken']);
  t.not(refreshed.body.data.refreshToken, user.refreshToken);
  const next = await call('POST', auth('/refresh'), { json: { refreshToken: refreshed.body.data.refreshToken } });
  t.is(next.status, 200);
  const unknown = await call('POST', auth('/refresh'), { json: { refreshToken: 'not-a-token' } });
  t.is(unknown.status, 401);
  t.is(unknown.body.error.code, 'auth.refresh_invalid');
});

test('presenting a rotated refresh token revokes its family: the newest token stops working too', async (t) => {
  const user = await signUp(platform);
  const first = await call('POST', auth('/refresh'), { json: { refreshToken: user.refreshToken } });
  const reuse = await call('POST', auth('/refresh'), { json: { refreshToken: user.refreshToken } });
  t.is(reuse.status, 401);
  t.is(reuse.body.error.code, 'auth.refresh_invalid');
  const newest = await call('POST', auth('/refresh'), { json: { refreshToken: first.body.data.refreshToken } });
  t.is(newest.status, 401);

  const otherSession = await call('POST', auth('/login'), { json: { email: user.email, password: user.password } });
  t.is(
    (await call('POST', auth('/refresh'), { json: { refreshToken: otherSession.body.data.refreshToken } })).status,
    200,
    'other sign-ins are untouched',
  );
});

test('logout needs a bearer token and revokes the session of the refresh token', async (t) => {
  const user = await signUp(platform);
  const anonymous = await call('POST', auth('/logout'), { json: { refreshToken: user.refreshToken } });
  t.is(anonymous.status, 401);
  t.is(anonymous.body.error.code, 'auth.unauthenticated');
  const out = await call('POST', auth('/logout'), {
    token: user.accessToken,
    json: { refreshToken: user.refreshToken },
  });
  t.is(out.status, 200);
  t.deepEqual(out.body.data, { loggedOut: true });
  t.is((await call('POST', auth('/refresh'), { json: { refreshToken: user.refreshToken } })).status, 401);
});

test('change-password ends every session, the current one included, answers the pair of a new one, and a wrong current password is 422', async (t) => {
  const user = await signUp(platform);
  const other = await call('POST', auth('/login'), { json: { email: user.email, password: user.password } });

  const wrong = await call('PATCH', auth('/change-password'), {
    token: user.accessToken,
    json: { currentPassword: 'Not-it-123', newPassword: 'New-password-42' },
  });
  t.is(wrong.status, 422);
  t.is(wrong.body.error.code, 'auth.current_password_wrong');

  const changed = await call('PATCH', auth('/change-password'), {
    token: user.accessToken,
    json: { currentPassword: user.password, newPassword: 'New-password-42' },
  });
  t.is(changed.status, 200);
  t.deepEqual(Object.keys(changed.body.data).sort(), ['accessToken', 'refreshToken']);

  t.is(
    (await call('POST', auth('/refresh'), { json: { refreshToken: other.body.data.refreshToken } })).status,
    401,
    'the other session ended',
  );
  t.is(
    (await call('POST', auth('/refresh'), { json: { refreshToken: user.refreshToken } })).status,
    401,
    "the current session's refresh token ended too",
  );
  t.is(
    (await call('POST', auth('/refresh'), { json: { refreshToken: changed.body.data.refreshToken } })).status,
    200,
    'the new session goes on',
  );
  t.is((await call('POST', auth('/login'), { json: { email: user.email, password: user.password } })).status, 401);
  t.is((await call('POST', auth('/login'), { json: { email: user.email, password: 'New-password-42' } })).status, 200);
});

test('reset-password with the mailed code sets the new password and ends every session', async (t) => {
  const user = await signUp(platform);
  const forgot = await call('POST', auth('/forgot-password'), { json: { email: user.email } });
  t.deepEqual(forgot.body.data, { sent: true });
  t.deepEqual((await call('POST', auth('/forgot-password'), { json: { email: uniqueEmail('nobody') } })).body.data, {
    sent: true,
  });
  const { otp } = await mailNumber(user.email, 2);

  const bad = await call('POST', auth('/reset-password'), {
    json: { email: user.email, otp: wrongCode(otp!), purpose: 'password_reset', newPassword: 'Reset-pass-77' },
  });
  t.is(bad.status, 422);
  t.is(bad.body.error.code, 'auth.otp_invalid');
  const reset = await call('POST', auth('/reset-password'), {
    json: { email: user.email, otp, purpose: 'password_reset', newPassword: 'Reset-pass-77' },
  });
  t.is(reset.status, 200);
  t.deepEqual(reset.body.data, { reset: true });

  t.is((await call('POST', auth('/refresh'), { json: { refreshToken: user.refreshToken } })).status, 401);
  t.is((await call('POST', auth('/login'), { json: { email: user.email, password: 'Reset-pass-77' } })).status, 200);
  const reused = await call('POST', auth('/reset-password'), {
    json: { email: user.email, otp, purpose: 'password_reset', newPassword: 'Another-pass-8' },
  });
  t.is(reused.status, 422, 'a code works once');
});

test('deleting the account blocks login, ends its sessions and token, and publishes user.deleted', async (t) => {
  const user = await signUp(platform);
  const noPassword = await call('DELETE', auth('/account'), { token: user.accessToken });
  t.is(noPassword.status, 422);
  t.is(noPassword.body.error.details[0].field, 'password');
  const wrong = await call('DELETE', auth('/account'), { token: user.accessToken, json: { password: 'Wrong-pass-1' } });
  t.is(wrong.body.error.code, 'auth.current_password_wrong');

  const deleted = await call('DELETE', auth('/account'), {
    token: user.accessToken,
    json: { password: user.password },
  });
  t.is(deleted.status, 200);
  t.deepEqual(deleted.body.data, { deleted: true });

  const login = await call('POST', auth('/login'), { json: { email: user.email, password: user.password } });
  t.is(login.status, 401);
  t.is(login.body.error.code, 'auth.invalid_credentials');
  t.is((await call('POST', auth('/refresh'), { json: { refreshToken: user.refreshToken } })).status, 401);
  t.is(
    (await call('POST', auth('/logout'), { token: user.accessToken, json: { refreshToken: user.refreshToken } }))
      .status,
    401,
  );

  const events = (await outboxEvents('user.deleted')).filter((data) => data.userId === user.userId);
  t.is(events.length, 1);
  t.is(events[0]!.email, user.email);
  t.regex(String(events[0]!.deletedAt), /^\d{4}-\d\d-\d\dT/);
});

test('Google sign-in creates an active account once, then signs the same account in', async (t) => {
  const email = uniqueEmail('google');
  const idToken = async () =>
    (await call('POST', platform.url('/v1/ol/dev/google/id-token'), { json: { email } })).body.data.idToken;
  const first = await call('POST', auth('/google'), {
    json: { idToken: await idToken(), provider: 'google', intents: ['cap'] },
  });
  t.is(first.status, 200);
  t.true(first.body.data.isNewUser);
  t.like(first.body.data.user, { email, authProvider: 'google', status: 'active', intents: ['cap'] });
  const second = await call('POST', auth('/google'), {
    json: { idToken: await idToken(), provider: 'google', intents: ['cap'] },
  });
  t.false(second.body.data.isNewUser);
  t.is(second.body.data.user.userId, first.body.data.user.userId);
  t.is((await outboxEvents('user.created')).filter((data) => data.userId === first.body.data.user.userId).length, 1);

  const forged = await call('POST', auth('/google'), {
    json: { idToken: 'not.a.token', provider: 'google', intents: ['cap'] },
  });
  t.is(forged.status, 422);
  t.is(forged.body.error.code, 'auth.google_token_invalid');
});

test('no response body or event carries the password or the code', async (t) => {
  const email = uniqueEmail('secret');
  const password = 'Unusual-secret-991';
  const texts: string[] = [];
  const record = async (res: Promise<JsonResponse>) => {
    const done = await res;
    texts.push(done.text);
    return done;
  };
  await record(call('POST', auth('/register'), { json: { email, password, intents: ['lms'] } }));
  const { otp } = await latestMail(platform, email);
  const verified = await record(
    call('POST', auth('/verify-account'), { json: { email, otp, purpose: 'account_verify' } }),
  );
  await record(call('POST', auth('/login'), { json: { email, password } }));
  await record(call('POST', auth('/login'), { json: { email, password: `${password}x` } }));
  await record(call('POST', auth('/refresh'), { json: { refreshToken: verified.body.data.refreshToken } }));
  await record(call('POST', auth('/verify-account'), { json: { email, otp, purpose: 'account_verify' } }));
  const events = JSON.stringify(await Promise.all(['user.created', 'notification.requested'].map(outboxEvents)));
  for (const text of [...texts, events]) {
    t.false(text.includes(password));
    t.false(text.includes(`"${otp}"`));
    t.false(new RegExp(`\\s${otp}\\b`).test(text));
  }
  t.false(events.includes(verified.body.data.refreshToken));
});

import test from 'ava';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { call, captureLogs, eventually, sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { latestMail, signUp, type SignedUpUser } from '../helpers/users.ts';

// The Orchestrator's bearer check keeps a session it found live (user active, a refresh token of the
// session neither revoked nor expired) between requests, and drops it when the database says the
// user's status or any of their refresh tokens changed (OL migration 0013,
// server/platform/db/caller-cache.ts). Each test first makes the session kept (two requests), then
// ends it, and checks the very next request.
const logs = captureLogs();
let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform({}, { logger: logs.logger });
});
test.after.always(() => platform?.stop());

const ol = (path: string) => platform.url(`/v1/ol${path}`);
/** A bearer operation of the Orchestrator: it checks that the token's session goes on. */
const unreadCount = (token: string, requestId = randomUUID()) =>
  call('GET', ol('/notifications/unread-count'), { token, headers: { 'x-request-id': requestId } });

/** The statements a request made (the development-mode access line's `queries`). */
async function queriesOf(requestId: string): Promise<number | undefined> {
  let line: { queries?: number } | undefined;
  await eventually('the access line is written', async () => {
    const text = logs.lines.find((l) => l.includes(requestId) && l.includes('"msg":"request"'));
    line = text ? JSON.parse(text) : undefined;
    return line !== undefined;
  });
  return line!.queries;
}

/** A signed-up user whose session the Orchestrator now keeps. */
async function keptSession(): Promise<SignedUpUser> {
  const user = await signUp(platform);
  for (let i = 0; i < 2; i++) {
    const res = await unreadCount(user.accessToken);
    if (res.status !== 200) throw new Error(`unread count: ${res.status} ${res.text}`);
  }
  return user;
}

async function refused(t: { is(a: unknown, b: unknown, m?: string): void }, token: string): Promise<void> {
  const res = await unreadCount(token);
  t.is(res.status, 401, 'refused at the next request');
  t.is(res.body.error?.code, 'auth.unauthenticated');
}

test('a kept session costs the bearer check no statement: the second request makes one fewer', async (t) => {
  const user = await signUp(platform);
  const first = randomUUID();
  const second = randomUUID();
  t.is((await unreadCount(user.accessToken, first)).status, 200);
  t.is((await unreadCount(user.accessToken, second)).status, 200);
  t.is((await queriesOf(second))!, (await queriesOf(first))! - 1);
});

test('a kept session is refused at the next request after a logout', async (t) => {
  const user = await keptSession();
  const out = await call('POST', ol('/auth/logout'), {
    token: user.accessToken,
    json: { refreshToken: user.refreshToken },
  });
  t.is(out.status, 200);
  await refused(t, user.accessToken);
});

test('a kept session is refused at the next request after a password change; the new session works', async (t) => {
  const user = await keptSession();
  const changed = await call('PATCH', ol('/auth/change-password'), {
    token: user.accessToken,
    json: { currentPassword: user.password, newPassword: 'Kept-new-pass-1' },
  });
  t.is(changed.status, 200, changed.text);
  await refused(t, user.accessToken);
  t.is((await unreadCount(changed.body.data.accessToken)).status, 200);
});

test('a kept session is refused at the next request after a password reset', async (t) => {
  const user = await keptSession();
  t.is((await call('POST', ol('/auth/forgot-password'), { json: { email: user.email } })).status, 200);
  let otp: string | undefined;
  await eventually('the reset code is mailed', async () => {
    const mail = await latestMail(platform, user.email);
    otp = mail.template === 'password_reset' ? mail.otp : undefined;
    return otp !== undefined;
  });
  const reset = await call('POST', ol('/auth/reset-password'), {
    json: { email: user.email, otp, purpose: 'password_reset', newPassword: 'Kept-reset-pass-1' },
  });
  t.is(reset.status, 200, reset.text);
  await refused(t, user.accessToken);
});

test('a kept session is refused at the next request after its rotated refresh token is presented again', async (t) => {
  const user = await keptSession();
  const rotated = await call('POST', ol('/auth/refresh'), { json: { refreshToken: user.refreshToken } });
  t.is(rotated.status, 200);
  t.is((await unreadCount(rotated.body.data.accessToken)).status, 200);
  t.is((await unreadCount(rotated.body.data.accessToken)).status, 200);
  const reused = await call('POST', ol('/auth/refresh'), { json: { refreshToken: user.refreshToken } });
  t.is(reused.status, 401);
  await refused(t, user.accessToken);
  await refused(t, rotated.body.data.accessToken);
});

test('a kept session is refused at the next request after the account is deleted', async (t) => {
  const user = await keptSession();
  const deleted = await call('DELETE', ol('/auth/account'), {
    token: user.accessToken,
    json: { password: user.password },
  });
  t.is(deleted.status, 200, deleted.text);
  await refused(t, user.accessToken);
});

test('a kept session is refused at the next request after its refresh tokens are revoked by SQL from another connection', async (t) => {
  const user = await keptSession();
  // `sql` is another connection (as psql would be) and waits until the platform has heard of the change.
  await sql(platform, 'UPDATE ol.refresh_tokens SET revoked_at = now() WHERE user_id = $1', [user.userId]);
  await refused(t, user.accessToken);
});

test('a kept session is refused at the next request after its account is deactivated by SQL from another connection', async (t) => {
  const user = await keptSession();
  await sql(platform, `UPDATE ol.users SET status = 'deactivated' WHERE id = $1`, [user.userId]);
  await refused(t, user.accessToken);
});

test('a kept session ends when its last refresh token expires, with no change to hear of', async (t) => {
  const user = await signUp(platform);
  await sql(platform, `UPDATE ol.refresh_tokens SET expires_at = now() + interval '1.5 seconds' WHERE user_id = $1`, [
    user.userId,
  ]);
  t.is((await unreadCount(user.accessToken)).status, 200);
  t.is((await unreadCount(user.accessToken)).status, 200);
  await new Promise((resolve) => setTimeout(resolve, 1600));
  await refused(t, user.accessToken);
});

test.serial(
  'losing the listening connection drops every kept session: a change it could not hear counts from then on',
  async (t) => {
    const user = await keptSession();
    // A change that fires no trigger (replication role), so nothing announces it.
    const client = new pg.Client({ connectionString: platform.databaseUrl });
    await client.connect();
    try {
      await client.query(`SET session_replication_role = replica`);
      await client.query('UPDATE ol.refresh_tokens SET revoked_at = now() WHERE user_id = $1', [user.userId]);
    } finally {
      await client.end();
    }
    t.is((await unreadCount(user.accessToken)).status, 200, 'the kept session, unaware of the silent change');
    await sql(
      platform,
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'ol-callers' AND datname = current_database()`,
    );
    await eventually('the kept session is dropped', async () => (await unreadCount(user.accessToken)).status === 401);
    await eventually(
      'the Orchestrator listens again',
      async () =>
        (
          await sql<{ n: number }>(
            platform,
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'ol-callers' AND datname = current_database()`,
          )
        )[0]!.n === 1,
    );
    await refused(t, user.accessToken);
  },
);

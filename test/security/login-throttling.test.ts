import test from 'ava';
import http from 'node:http';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp } from '../helpers/users.ts';

// Attack: guessing a password as fast as the server answers (50 wrong passwords in 1.3 s, then the
// right one worked). Refused: failures per account and client address earn a growing wait (429 with
// Retry-After, never over 15 minutes), while the owner signing in from another address is not held up.
let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform();
});
test.after.always(() => platform?.stop());

/** Loopback has many addresses: from 127.0.0.2 the server sees another client. */
function login(
  email: string,
  password: string,
  from = '127.0.0.1',
): Promise<{ status: number; retryAfter?: string; code?: string }> {
  const url = new URL(platform.url('/v1/ol/auth/login'));
  const body = JSON.stringify({ email, password });
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress: from,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            retryAfter: res.headers['retry-after'],
            code: JSON.parse(text).error?.code,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

test('after 5 wrong passwords the next try waits (429 auth.too_many_attempts with Retry-After), even with the right password', async (t) => {
  const user = await signUp(platform);
  for (let i = 0; i < 5; i++) t.is((await login(user.email, `Wrong-pass-${i}`)).status, 401);
  const sixth = await login(user.email, 'Wrong-pass-6');
  t.is(sixth.status, 429);
  t.is(sixth.code, 'auth.too_many_attempts');
  t.true(Number(sixth.retryAfter) >= 1 && Number(sixth.retryAfter) <= 15 * 60);
  t.is((await login(user.email, user.password)).status, 429, 'no guess is checked while waiting');
});

test('the owner signing in from another address is not held up by failures from the attacker', async (t) => {
  const user = await signUp(platform);
  for (let i = 0; i < 6; i++) await login(user.email, `Wrong-pass-${i}`, '127.0.0.1');
  t.is((await login(user.email, user.password, '127.0.0.1')).status, 429);
  t.is((await login(user.email, user.password, '127.0.0.2')).status, 200);
});

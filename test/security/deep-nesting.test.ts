import test from 'ava';
import { serviceNames } from '../../server/platform/config.ts';
import { maxJsonDepth } from '../../server/platform/http/app.ts';
import { loadApiDocument } from '../../server/platform/http/openapi.ts';
import { onboard as onboardCap } from '../helpers/cap.ts';
import { onboard as onboardLms } from '../helpers/lms.ts';
import { call, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp, type SignedUpUser } from '../helpers/users.ts';

// Attack: a JSON body nested 50,000 levels deep. It was a 500 (a regression): the check for NUL
// characters and lone surrogates walked the body recursively and overflowed the stack. Every JSON
// body is now measured with a stack of our own as it is parsed, on every listener, before any route
// or walk sees it: deeper than 64 levels is 400 http.json_too_deep.
let platform: TestPlatform;
let user: SignedUpUser;
test.before(async () => {
  platform = await startTestPlatform();
  user = await signUp(platform, { intents: ['cap', 'lms'] });
  await onboardCap(platform, user, 'candidate');
  await onboardLms(platform, user, 'learner');
});
test.after.always(() => platform?.stop());

/** `{"a":{"a":...{"a":1}...}}` with `depth` objects; inside `field` when given, so the body is an object of the right shape at the top. */
const nested = (depth: number, field?: string) => {
  const inner = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
  return field ? `{"${field}":${inner.slice('{"a":'.length, -1)}}` : inner;
};

async function refused(t: any, method: 'POST' | 'PATCH', path: string, body: string, token?: string) {
  const res = await call(method, platform.url(path), { body, token, headers: { 'content-type': 'application/json' } });
  t.is(res.status, 400, `${method} ${path}: ${res.text.slice(0, 200)}`);
  t.is(res.body?.error.code, 'http.json_too_deep');
  t.is(res.body?.requestId, res.headers['x-request-id']);
}

for (const [label, method, path, field, signedIn] of [
  ['register', 'POST', '/v1/ol/auth/register', 'email', false],
  ['the CAP profile', 'PATCH', '/v1/cap/me/profile', 'personalDetails', true],
  ['onboarding', 'PATCH', '/v1/cap/onboarding/candidate/save', 'personalDetails', true],
  ['the LMS profile', 'PATCH', '/v1/lms/me/profile', 'personalDetails', true],
] as const) {
  test(`a body nested 50,000 levels deep on ${label} is 400 http.json_too_deep`, async (t) => {
    await refused(t, method, path, nested(50_000), signedIn ? user.accessToken : undefined);
    await refused(t, method, path, nested(50_000, field), signedIn ? user.accessToken : undefined);
    // The same through the service's own listener.
    const service = path.split('/')[2] as 'ol' | 'cap' | 'lms';
    const own = await call(method, `${platform.urls[service]}/v1${path.slice(`/v1/${service}`.length)}`, {
      body: nested(50_000),
      token: user.accessToken,
      headers: { 'content-type': 'application/json' },
    });
    t.is(own.status, 400);
    t.is(own.body.error.code, 'http.json_too_deep');
  });
}

test(`${maxJsonDepth} levels are taken as JSON (the schema decides), ${maxJsonDepth + 1} are too deep`, async (t) => {
  const within = await call('PATCH', platform.url('/v1/cap/me/profile'), {
    body: nested(maxJsonDepth, 'personalDetails'),
    token: user.accessToken,
    headers: { 'content-type': 'application/json' },
  });
  t.is(within.status, 422, within.text);
  t.is(within.body.error.code, 'validation.failed');
  await refused(t, 'PATCH', '/v1/cap/me/profile', nested(maxJsonDepth + 1, 'personalDetails'), user.accessToken);
  // One object around 64 arrays: 65 levels.
  const arrays = '['.repeat(maxJsonDepth) + ']'.repeat(maxJsonDepth);
  await refused(t, 'PATCH', '/v1/cap/me/profile', `{"personalDetails":${arrays}}`, user.accessToken);
});

test('every operation that takes JSON answers a body nested 50,000 deep with 400 http.json_too_deep', async (t) => {
  const body = nested(50_000);
  for (const service of serviceNames) {
    for (const op of (await loadApiDocument(service)).operations) {
      if (!op.requestBody?.content['application/json']) continue;
      const path = `/v1/${service}${op.path.replace(/\{[^}]+\}/g, '01J00000000000000000000000')}`;
      const res = await call(op.method.toUpperCase() as 'POST', platform.url(path), {
        body,
        token: user.accessToken,
        headers: { 'content-type': 'application/json' },
      });
      t.is(res.status, 400, `${op.operationId}: ${res.text.slice(0, 200)}`);
      t.is(res.body?.error.code, 'http.json_too_deep', op.operationId);
    }
  }
});

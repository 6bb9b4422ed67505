import test from 'ava';
import { resolveConfig } from '../../server/platform/config.ts';
import { call, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp } from '../helpers/users.ts';

// The real web clients run on their own origin and call every service from the browser with a bearer
// token and JSON, so every call is preflighted. These tests speak the browser's side of CORS over
// real HTTP, on the gateway and on each service's own port.
const app = 'http://localhost:3000';
let dev: TestPlatform;
let production: TestPlatform;

test.before(async () => {
  [dev, production] = await Promise.all([
    startTestPlatform(),
    startTestPlatform({
      devMode: false,
      corsOrigins: 'https://app.example.org',
      serviceApiKey: 'a-production-service-key',
      mailUrl: 'smtp://127.0.0.1:9',
      googleClientId: 'client',
      identityHmacKey: 'a-production-hmac-key',
      paymentSecretKey: 'a-production-payment-key',
    }),
  ]);
});
test.after.always(() => Promise.all([dev?.stop(), production?.stop()]));

const preflight = (
  url: string,
  origin: string,
  method = 'POST',
  headers = 'authorization,content-type,x-cap-persona,x-cap-centre-id,x-request-id',
) =>
  call('OPTIONS', url, {
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
  });

/** One operation of each service, on the gateway and on the service's own listener. */
const targets = (platform: TestPlatform) => [
  `${platform.urls.gateway}/v1/ol/auth/register`,
  `${platform.urls.gateway}/v1/cap/me`,
  `${platform.urls.gateway}/v1/cap/onboarding/candidate/save`,
  `${platform.urls.gateway}/v1/lms/me`,
  `${platform.urls.ol}/v1/auth/login`,
  `${platform.urls.cap}/v1/identity-verification`,
  `${platform.urls.lms}/v1/onboarding/start`,
];

test('in development mode a preflight from a local origin on any port is 204 with the allow headers, before any routing', async (t) => {
  for (const url of targets(dev)) {
    for (const origin of [app, 'http://127.0.0.1:5173']) {
      const res = await preflight(url, origin, 'PATCH');
      t.is(res.status, 204, url);
      t.is(res.headers['access-control-allow-origin'], origin, url);
      t.regex(String(res.headers['access-control-allow-methods']), /PATCH/);
      const allowed = String(res.headers['access-control-allow-headers']).toLowerCase();
      for (const header of ['authorization', 'content-type', 'x-cap-persona', 'x-cap-centre-id', 'x-request-id'])
        t.true(allowed.includes(header), header);
      t.regex(String(res.headers.vary), /Origin/);
      t.is(res.headers['access-control-allow-credentials'], undefined, 'bearer tokens, no cookies: no credentials');
    }
  }
});

test('a preflight to a path no operation serves is still answered by CORS, not 405 or 404', async (t) => {
  const res = await preflight(`${dev.urls.gateway}/v1/cap/no/such/path`, app);
  t.is(res.status, 204);
});

test('the real request gets Access-Control-Allow-Origin and exposes X-Request-Id and Retry-After to the page', async (t) => {
  const user = await signUp(dev);
  const res = await call('GET', `${dev.urls.gateway}/v1/cap/me`, { token: user.accessToken, headers: { origin: app } });
  t.is(res.status, 200);
  t.is(res.headers['access-control-allow-origin'], app);
  const exposed = String(res.headers['access-control-expose-headers']).toLowerCase();
  t.true(exposed.includes('x-request-id'));
  t.true(exposed.includes('retry-after'));
});

test('in production only the configured origins are allowed: another origin gets no Access-Control-Allow-Origin', async (t) => {
  for (const url of targets(production)) {
    const outsider = await preflight(url, app);
    t.is(outsider.headers['access-control-allow-origin'], undefined, url);
    const listed = await preflight(url, 'https://app.example.org');
    t.is(listed.status, 204);
    t.is(listed.headers['access-control-allow-origin'], 'https://app.example.org', url);
  }
  const real = await call('GET', `${production.urls.gateway}/v1/cap/healthz`, { headers: { origin: app } });
  t.is(real.status, 200);
  t.is(real.headers['access-control-allow-origin'], undefined);
});

test('CORS_ORIGINS that is not a list of origins is refused at start with the setting named', (t) => {
  for (const bad of [
    'localhost:3000',
    'https://app.example.org/path',
    'ftp://files.example.org',
    'https://a.example.org, nonsense',
  ]) {
    t.throws(
      () => resolveConfig({ corsOrigins: bad }),
      { message: /invalid setting corsOrigins: .* is not an origin/ },
      bad,
    );
  }
  t.deepEqual(resolveConfig({ corsOrigins: 'https://a.example.org, http://localhost:3000' }).corsOrigins, [
    'https://a.example.org',
    'http://localhost:3000',
  ]);
});

test('a JSON reply carries the security headers of an API and none of those that only guard a rendered page', async (t) => {
  const reply = await call('GET', `${dev.urls.gateway}/v1/cap/healthz`);
  t.is(reply.headers['content-security-policy'], "default-src 'none'; frame-ancestors 'none'");
  t.is(reply.headers['x-frame-options'], 'DENY');
  t.is(reply.headers['x-content-type-options'], 'nosniff');
  t.regex(String(reply.headers['strict-transport-security']), /max-age=\d+/);
  for (const pageOnly of [
    'x-dns-prefetch-control',
    'x-download-options',
    'x-permitted-cross-domain-policies',
    'origin-agent-cluster',
    'referrer-policy',
  ]) {
    t.is(reply.headers[pageOnly], undefined, pageOnly);
  }
  const docs = await call('GET', `${dev.urls.gateway}/v1/cap/docs`);
  t.is(docs.headers['referrer-policy'], 'no-referrer');
  t.is(docs.headers['x-dns-prefetch-control'], 'off');
});

test('every reply says nosniff and no-store; the reference page may not be framed and runs no inline script', async (t) => {
  const login = await call('POST', `${dev.urls.gateway}/v1/ol/auth/login`, {
    json: { email: 'nobody@example.test', password: 'Wrong-pass-1' },
  });
  t.is(login.headers['x-content-type-options'], 'nosniff');
  t.is(login.headers['cache-control'], 'no-store');
  const docs = await call('GET', `${dev.urls.gateway}/v1/cap/docs`);
  t.is(docs.status, 200);
  t.is(docs.headers['x-frame-options'], 'SAMEORIGIN');
  t.regex(String(docs.headers['content-security-policy']), /frame-ancestors 'self'/);
  t.regex(String(docs.headers['content-security-policy']), /script-src 'self'/);
  t.notRegex(docs.text, /<script>[^<]/, 'no inline script');
  const asset = await call('GET', `${dev.urls.gateway}/v1/cap/docs/assets/reference.js`);
  t.is(asset.status, 200);
  t.regex(String(asset.headers['cache-control']), /max-age/);
});

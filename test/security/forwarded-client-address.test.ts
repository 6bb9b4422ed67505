import test from 'ava';
import { resolveConfig } from '../../server/platform/config.ts';
import { runCapctl } from '../helpers/cli.ts';
import { call, captureLogs, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp } from '../helpers/users.ts';

// Attack: posing as other clients with X-Forwarded-For to dodge the sign-in limits, and, the other way
// round, a load balancer making every client one address. Refused: the header is believed only from
// the proxies TRUST_PROXY names, through each of them, on every listener.
let direct: TestPlatform;
let proxied: TestPlatform;
const proxiedLogs = captureLogs();
test.before(async () => {
  [direct, proxied] = await Promise.all([
    startTestPlatform(),
    // The test talks to the platform from loopback: to the platform, it is the proxy.
    startTestPlatform({ trustProxy: 'loopback' }, { logger: proxiedLogs.logger }),
  ]);
});
test.after.always(() => Promise.all([direct?.stop(), proxied?.stop()]));

function login(base: string, email: string, password: string, forwardedFor?: string) {
  return call('POST', `${base}/auth/login`, {
    json: { email, password },
    headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
  });
}

test('without TRUST_PROXY, X-Forwarded-For is ignored: a client cannot pose as other clients to get more tries', async (t) => {
  const user = await signUp(direct);
  const ol = direct.url('/v1/ol');
  for (let i = 0; i < 5; i++) t.is((await login(ol, user.email, `Wrong-pass-${i}`, `198.51.100.${i}`)).status, 401);
  const sixth = await login(ol, user.email, user.password, '198.51.100.99');
  t.is(sixth.status, 429);
  t.is(sixth.body.error.code, 'auth.too_many_attempts');
});

test('behind a trusted proxy, 100 failed sign-ins from 100 forwarded addresses do not stop a correct sign-in from another', async (t) => {
  const user = await signUp(proxied);
  const ol = proxied.url('/v1/ol');
  const statuses: number[] = [];
  for (let batch = 0; batch < 10; batch++) {
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        login(ol, user.email, `Wrong-pass-${batch}${i}`, `198.51.100.${batch * 10 + i + 1}`),
      ),
    );
    statuses.push(...answers.map((answer) => answer.status));
  }
  t.deepEqual([...new Set(statuses)], [401], 'each forwarded address had one try of its own');
  t.is((await login(ol, user.email, user.password, '203.0.113.7')).status, 200);
});

test('behind a trusted proxy, every listener counts the forwarded client, and a client cannot add a hop of its own', async (t) => {
  const user = await signUp(proxied);
  // The gateway and the Orchestrator's own port share the count of one forwarded client.
  const listeners = [proxied.url('/v1/ol'), `${proxied.urls.ol}/v1`];
  for (let i = 0; i < 5; i++)
    t.is((await login(listeners[i % 2]!, user.email, `Wrong-pass-${i}`, '198.51.100.200')).status, 401);
  for (const base of listeners) {
    t.is((await login(base, user.email, user.password, '198.51.100.200')).status, 429, base);
    // Only the last entry comes from the trusted proxy; what the client wrote before it is not believed.
    t.is((await login(base, user.email, user.password, '203.0.113.9, 198.51.100.200')).status, 429, base);
  }
  t.is((await login(listeners[1]!, user.email, user.password, '198.51.100.201')).status, 200);
});

test('behind a trusted proxy, the access log names the forwarded client on every listener', async (t) => {
  const urls = [
    proxied.url('/v1/cap/healthz'),
    ...['ol', 'cap', 'lms'].map((name) => `${proxied.urls[name]}/v1/healthz`),
  ];
  for (const [i, url] of urls.entries()) {
    const res = await call('GET', url, {
      headers: { 'x-forwarded-for': `198.51.100.${150 + i}`, 'x-request-id': `forwarded-${i}` },
    });
    t.is(res.status, 200);
  }
  const lines = proxiedLogs.lines
    .map((line) => JSON.parse(line))
    .filter((line) => line.msg === 'request' && String(line.requestId).startsWith('forwarded-'));
  t.deepEqual(
    lines.map((line) => [line.requestId, line.client]).sort(),
    urls.map((_, i) => [`forwarded-${i}`, `198.51.100.${150 + i}`]),
  );
});

test("TRUST_PROXY takes Express's values: false, true, a hop count, addresses, CIDR ranges and the named ranges", (t) => {
  const trust = (value?: string) => resolveConfig({ trustProxy: value }).trustProxy;
  t.is(trust(), false);
  t.is(trust('false'), false);
  t.is(trust('0'), false);
  t.is(trust('true'), true);
  t.is(trust('2'), 2);
  t.deepEqual(trust('loopback, 10.0.0.0/8,192.168.1.10, fd00::/8,linklocal,uniquelocal'), [
    'loopback',
    '10.0.0.0/8',
    '192.168.1.10',
    'fd00::/8',
    'linklocal',
    'uniquelocal',
  ]);
  t.deepEqual(resolveConfig({}, { TRUST_PROXY: '172.16.0.0/12' }).trustProxy, ['172.16.0.0/12']);
  for (const bad of ['proxy.example.org', '10.0.0.0/33', '10.0.0.300', '-1', ',']) {
    t.throws(() => trust(bad), { message: /^invalid setting trustProxy: / }, bad);
  }
});

test('capctl serve refuses a TRUST_PROXY that is not an address list: invalid setting trustProxy, exit 2', async (t) => {
  const flag = await runCapctl(['serve', '--trust-proxy', 'lb.internal']);
  t.is(flag.code, 2);
  t.regex(flag.stderr, /invalid setting trustProxy: invalid IP address: lb\.internal/);
  const env = await runCapctl(['serve'], { TRUST_PROXY: '10.1.2.0/40' });
  t.is(env.code, 2);
  t.regex(env.stderr, /invalid setting trustProxy: invalid range on address: 10\.1\.2\.0\/40/);
});

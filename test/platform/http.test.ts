import test from 'ava';
import net from 'node:net';
import express from 'express';
import { listen } from '../../server/platform/http/app.ts';
import { loadApiDocument } from '../../server/platform/http/openapi.ts';
import { ConfigError, resolveConfig, serviceNames } from '../../server/platform/config.ts';
import { call, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';

// The kernel's behaviour on the real server, on the gateway prefix of every service and on every
// service's own listener.
let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform({ bodyLimitBytes: 2048 });
});
test.after.always(() => platform?.stop());

/** Every base URL a service answers on: its gateway prefix and its own port. */
const bases = () => serviceNames.flatMap((s) => [`${platform.urls.gateway}/v1/${s}`, `${platform.urls[s]}/v1`]);

test('healthz and readyz answer 200 with the envelope on every prefix and port', async (t) => {
  for (const base of bases()) {
    const health = await call('GET', `${base}/healthz`);
    t.is(health.status, 200, base);
    t.is(health.body.success, true);
    t.is(health.body.data.status, 'ok');
    const ready = await call('GET', `${base}/readyz`);
    t.is(ready.status, 200, base);
    t.is(ready.body.data.status, 'ready');
  }
});

test('an unknown route is 404 http.not_found with a request id, on every prefix and at the root', async (t) => {
  for (const base of [...bases(), platform.urls.gateway]) {
    const res = await call('GET', `${base}/no/such/route`);
    t.is(res.status, 404, base);
    t.is(res.body.success, false);
    t.is(res.body.error.code, 'http.not_found');
    t.is(typeof res.body.error.message, 'string');
    t.is(res.body.requestId, res.headers['x-request-id']);
  }
});

test('malformed JSON is 400 http.bad_json on every prefix', async (t) => {
  for (const base of bases()) {
    const res = await call('POST', `${base}/healthz`, {
      body: '{"a":',
      headers: { 'content-type': 'application/json' },
    });
    t.is(res.status, 400, base);
    t.is(res.body.error.code, 'http.bad_json');
  }
});

test('a body over the limit is 413 http.payload_too_large on every prefix', async (t) => {
  for (const base of bases()) {
    const res = await call('POST', `${base}/healthz`, { json: { padding: 'x'.repeat(4096) } });
    t.is(res.status, 413, base);
    t.is(res.body.error.code, 'http.payload_too_large');
  }
});

test('a parameter that breaks the document is 422 validation.failed with details', async (t) => {
  for (const base of bases()) {
    const res = await call('GET', `${base}/docs/assets/bad%20name`);
    t.is(res.status, 422, base);
    t.is(res.body.error.code, 'validation.failed');
    t.deepEqual(res.body.error.details[0].field, 'path.asset');
  }
});

test('a sane incoming X-Request-Id is kept; an unsafe one is replaced', async (t) => {
  const kept = await call('GET', platform.url('/v1/cap/healthz'), { headers: { 'x-request-id': 'trace-123.abc' } });
  t.is(kept.headers['x-request-id'], 'trace-123.abc');
  const replaced = await call('GET', platform.url('/v1/cap/nope'), { headers: { 'x-request-id': 'bad id <script>' } });
  t.regex(String(replaced.headers['x-request-id']), /^[0-9A-Z]{26}$/);
  t.is(replaced.body.requestId, replaced.headers['x-request-id']);
});

test('every response carries X-Request-Id', async (t) => {
  for (const path of ['/v1/ol/healthz', '/v1/lms/openapi.json', '/v1/cap/docs', '/nowhere']) {
    const res = await call('GET', platform.url(path));
    t.regex(String(res.headers['x-request-id']), /.+/, path);
  }
});

test('each service serves its OpenAPI 3.1 document and a browsable reference', async (t) => {
  for (const base of bases()) {
    const doc = await call('GET', `${base}/openapi.json`);
    t.is(doc.status, 200);
    t.is(doc.body.openapi, '3.1.0');
    t.truthy(doc.body.components.schemas.ErrorEnvelope, 'shared components are bundled in');
    const page = await call('GET', `${base}/docs`);
    t.is(page.status, 200);
    t.regex(String(page.headers['content-type']), /text\/html/);
    t.regex(page.text, /docs\/assets\/swagger-ui-bundle\.js/);
    const asset = await call('GET', `${base}/docs/assets/swagger-ui-bundle.js`);
    t.is(asset.status, 200);
  }
});

test('the mounted routes of each service are exactly the operations of its document', async (t) => {
  // Reads the live router of the gateway, so a route added by hand outside the document is caught.
  for (const service of serviceNames) {
    const doc = await loadApiDocument(service);
    const documented = doc.operations.map((o) => `${o.method.toUpperCase()} ${o.path}`).sort();
    t.deepEqual([...platform.routers[service]!.routes].sort(), documented, service);
  }
});

/** Raw HTTP/1.1 on one socket: each `send` writes a GET and resolves to the head of its answer. */
async function rawConnection(url: string) {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let buffered = '';
  let waiting: ((head: string) => void) | undefined;
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())));
  socket.on('data', (chunk) => {
    buffered += chunk.toString('latin1');
    const match = /^HTTP\/1\.1 [\s\S]*?\r\n\r\n/.exec(buffered);
    const length = Number(/content-length: (\d+)/i.exec(match?.[0] ?? '')?.[1] ?? 0);
    if (match && buffered.length >= match[0].length + length) {
      buffered = buffered.slice(match[0].length + length);
      waiting?.(match[0]);
    }
  });
  socket.on('error', () => undefined);
  return {
    closed,
    send: (path: string) =>
      new Promise<string>((resolve) => {
        waiting = resolve;
        socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
      }),
    destroy: () => socket.destroy(),
  };
}

test("an idle connection is kept 65 s by default (longer than a load balancer's 60), so it is still open after Node's own 5 s", async (t) => {
  const connection = await rawConnection(platform.urls.gateway!);
  t.teardown(() => connection.destroy());
  t.regex(await connection.send('/v1/ol/healthz'), /\r\nKeep-Alive: timeout=65\r\n/i);
  await new Promise((resolve) => setTimeout(resolve, 6000));
  t.regex(await connection.send('/v1/cap/healthz'), /^HTTP\/1\.1 200 /, 'the same connection answers after 6 s idle');
});

test('HTTP_KEEP_ALIVE_TIMEOUT_SECONDS is how long an idle connection stays open', async (t) => {
  t.is(resolveConfig({}, { HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: '120' }).httpKeepAliveTimeoutSeconds, 120);
  t.is(resolveConfig({}, {}).httpKeepAliveTimeoutSeconds, 65);
  t.throws(() => resolveConfig({}, { HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: '0' }), {
    instanceOf: ConfigError,
    message: /httpKeepAliveTimeoutSeconds/,
  });
  const app = express().get('/', (_req, res) => void res.send('ok'));
  const listener = await listen(app, '127.0.0.1', 0, 'test', 1);
  t.teardown(() => listener.close());
  const connection = await rawConnection(listener.url);
  t.teardown(() => connection.destroy());
  t.regex(await connection.send('/'), /\r\nKeep-Alive: timeout=1\r\n/i);
  const idleFrom = Date.now();
  const closedAfter = (await connection.closed) - idleFrom;
  t.true(closedAfter >= 900 && closedAfter < 3000, `closed after ${closedAfter} ms idle`);
});

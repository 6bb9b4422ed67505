import test from 'ava';
import { loadApiDocument } from '../server/platform/http/openapi.ts';
import { serviceNames } from '../server/platform/config.ts';
import { call, startTestPlatform, type TestPlatform } from './helpers/platform.ts';

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
    const res = await call('POST', `${base}/healthz`, { body: '{"a":', headers: { 'content-type': 'application/json' } });
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

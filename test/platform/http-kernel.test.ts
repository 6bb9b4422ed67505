import test from 'ava';
import path from 'node:path';
import { createHttpApp, listen, type Listener } from '../../server/platform/http/app.ts';
import { loadApiDocument } from '../../server/platform/http/openapi.ts';
import { bindOperations } from '../../server/platform/http/operations.ts';
import { pageOf, pageRequest } from '../../server/platform/http/pagination.ts';
import { created, ok } from '../../server/platform/http/reply.ts';
import { newId } from '../../server/platform/ids.ts';
import { createLogger } from '../../server/platform/logger.ts';
import { call } from '../helpers/platform.ts';
import { AppError } from '../../server/platform/http/errors.ts';
import type { Call, SecurityHandler } from '../../server/platform/http/operations.ts';

// The binder's mechanics, on a small document of our own: routing by operationId, validation from the
// schema, response checking. The platform's own documents are covered in platform-http.test.ts.
const fixture = path.resolve('test/fixtures/kernel-api.yaml');
const widgets = Array.from({ length: 5 }, (_, i) => ({ id: newId(), name: `w${i}` }));
let server: Listener;

// The schemes of /guarded: one that answers later (a token checked against keys fetched), two at once
// (a token verified before). Each adds its name to the principal it admits.
const admittedBy = (call: Call, scheme: string) =>
  (call.principal = { kind: 'service', claims: { by: [...((call.principal?.claims?.by as string[]) ?? []), scheme] } });
const slowKey: SecurityHandler = async (call) => {
  await new Promise((resolve) => setTimeout(resolve, 5));
  if (call.req.headers['x-slow-key'] !== 'good') throw new AppError(401, 'auth.slow_refused', 'Slow key refused.');
  admittedBy(call, 'slow');
};
const quickKey: SecurityHandler = (call) => {
  if (call.req.headers['x-quick-key'] !== 'good') throw new AppError(403, 'auth.quick_refused', 'Quick key refused.');
  admittedBy(call, 'quick');
};
const otherKey: SecurityHandler = (call) => {
  if (call.req.headers['x-other-key'] !== 'good') throw new AppError(403, 'auth.other_refused', 'Other key refused.');
  admittedBy(call, 'other');
};
let base: string;
/** The query the last `listWidgets` call reached its handler with. */
let listedWith: Record<string, unknown> | undefined;

test.before(async () => {
  const doc = await loadApiDocument(fixture);
  const router = bindOperations(
    'widgets',
    doc,
    {
      createWidget: (c) => (c.body.name === 'broken' ? created({ nom: 1 }) : created({ name: c.body.name })),
      listWidgets: (c) => {
        listedWith = c.query;
        const page = pageRequest(c.query);
        const after = page.cursor ? widgets.findIndex((w) => w.id === page.cursor) + 1 : 0;
        const { items, meta } = pageOf(widgets.slice(after, after + page.limit + 1), page.limit);
        return ok(items, meta as unknown as Record<string, unknown>);
      },
      widgetSummary: () => ok({ total: widgets.length }),
      getWidget: (c) => ok({ id: c.params.id }),
      getGuarded: (c) => ok({ admittedBy: c.principal?.claims?.by }),
    },
    { checkResponses: true, security: { slowKey, quickKey, otherKey } },
  );
  server = await listen(
    createHttpApp([{ prefix: '/api', router }], createLogger('silent'), {
      bodyLimitBytes: 1024,
      corsOrigins: [],
      devMode: true,
      countQueries: true,
      trustProxy: false,
    }),
    '127.0.0.1',
    0,
    'test',
  );
  base = `${server.url}/api`;
});
test.after.always(() => server?.close());

test('a document operation without a handler stops the service from starting', async (t) => {
  const doc = await loadApiDocument(fixture);
  const error = t.throws(() => bindOperations('widgets', doc, { createWidget: () => ok(null) }));
  t.regex(error!.message, /documented but not routed: listWidgets, widgetSummary, getWidget/);
});

test('a handler for an undocumented operation stops the service from starting', async (t) => {
  const doc = await loadApiDocument(fixture);
  const all = {
    createWidget: () => ok(null),
    listWidgets: () => ok(null),
    widgetSummary: () => ok(null),
    getWidget: () => ok(null),
  };
  const error = t.throws(() => bindOperations('widgets', doc, { ...all, deleteWidget: () => ok(null) }));
  t.regex(error!.message, /routed but not documented: deleteWidget/);
});

test('a body that breaks the schema is 422 validation.failed naming every field', async (t) => {
  const res = await call('POST', `${base}/widgets`, {
    json: { size: 0, colour: 'green', extra: true, owner: { email: 'nope' } },
  });
  t.is(res.status, 422);
  t.is(res.body.error.code, 'validation.failed');
  t.deepEqual(res.body.error.details.map((d: { field: string }) => d.field).sort(), [
    'colour',
    'extra',
    'name',
    'owner.email',
    'size',
  ]);
  t.true(
    res.body.error.details.some(
      (d: { field: string; issue: string }) => d.field === 'colour' && d.issue === 'must be one of: red, blue',
    ),
  );
  t.is(res.body.requestId, res.headers['x-request-id']);
});

test('a missing required body is 422 on the body field', async (t) => {
  const res = await call('POST', `${base}/widgets`);
  t.is(res.status, 422);
  t.deepEqual(res.body.error.details, [{ field: 'body', issue: 'is required' }]);
});

test('a body that is not JSON is 415 http.unsupported_media_type', async (t) => {
  const res = await call('POST', `${base}/widgets`, {
    body: 'name=x',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  t.is(res.status, 415);
  t.is(res.body.error.code, 'http.unsupported_media_type');
});

test('a bare POST with an empty chunked body and no Content-Type is a missing body, not 415 (the Pact verifier sends one)', async (t) => {
  const empty = new ReadableStream({ start: (controller) => controller.close() });
  const res = await fetch(`${base}/widgets`, { method: 'POST', body: empty, duplex: 'half' } as RequestInit);
  t.is(res.status, 422);
  t.is(((await res.json()) as any).error.details[0].field, 'body');
});

test('a valid body reaches the handler', async (t) => {
  const res = await call('POST', `${base}/widgets`, { json: { name: 'gear', size: 3 } });
  t.is(res.status, 201);
  t.deepEqual(res.body, { success: true, data: { name: 'gear' } });
});

test('a reply that breaks its own document is a 500 internal.response_contract, never sent as is', async (t) => {
  const res = await call('POST', `${base}/widgets`, { json: { name: 'broken', size: 1 } });
  t.is(res.status, 500);
  t.is(res.body.error.code, 'internal.response_contract');
});

test('path parameters are validated: a malformed id is 422 on path.id', async (t) => {
  const res = await call('GET', `${base}/widgets/not-a-ulid`);
  t.is(res.status, 422);
  t.is(res.body.error.details[0].field, 'path.id');
});

test('a literal path segment wins over a template (summary is not an id)', async (t) => {
  const res = await call('GET', `${base}/widgets/summary`);
  t.is(res.status, 200);
  t.deepEqual(res.body.data, { total: 5 });
});

test('limit outside 1-100 is 422 on query.limit', async (t) => {
  for (const limit of ['0', '101', 'ten']) {
    const res = await call('GET', `${base}/widgets?limit=${limit}`);
    t.is(res.status, 422, limit);
    t.is(res.body.error.details[0].field, 'query.limit');
  }
});

test('cursor pagination walks every row once, with meta.pagination on each page', async (t) => {
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await call('GET', `${base}/widgets?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
    t.is(res.status, 200);
    t.is(res.body.meta.pagination.limit, 2);
    seen.push(...res.body.data.map((w: { id: string }) => w.id));
    cursor = res.body.meta.pagination.nextCursor;
    t.is(res.body.meta.pagination.hasMore, cursor !== null);
    pages++;
  } while (cursor);
  t.is(pages, 3);
  t.deepEqual(
    seen,
    widgets.map((w) => w.id),
  );
});

// Serial: the other tests list widgets too, and `listedWith` is the last call's.
test.serial(
  'a query parameter the document does not name is ignored: the call succeeds and the handler never sees it',
  async (t) => {
    const res = await call('GET', `${base}/widgets?limit=2&queue=new&constructor=1`);
    t.is(res.status, 200);
    t.deepEqual(listedWith, { limit: 2 });
  },
);

test('the default page size comes from the document', async (t) => {
  const res = await call('GET', `${base}/widgets`);
  t.is(res.body.meta.pagination.limit, 20);
});

test('a cursor the API did not issue is 422 on query.cursor', async (t) => {
  const res = await call('GET', `${base}/widgets?cursor=garbage`);
  t.is(res.status, 422);
  t.is(res.body.error.details[0].field, 'query.cursor');
});

test('a known path with another method is 405 with an Allow header', async (t) => {
  const res = await call('DELETE', `${base}/widgets`);
  t.is(res.status, 405);
  t.is(res.body.error.code, 'http.method_not_allowed');
  t.is(res.headers.allow, 'GET, POST');
});

test('security: an alternative admits a call only when all its schemes do, waiting for those that answer later', async (t) => {
  const res = await call('GET', `${base}/guarded`, { headers: { 'x-slow-key': 'good', 'x-quick-key': 'good' } });
  t.is(res.status, 200);
  t.deepEqual(res.body.data.admittedBy, ['slow', 'quick']);
});

test('security: a later alternative admits a call the first refused, without the principal the first left', async (t) => {
  const res = await call('GET', `${base}/guarded`, {
    headers: { 'x-slow-key': 'good', 'x-quick-key': 'bad', 'x-other-key': 'good' },
  });
  t.is(res.status, 200);
  t.deepEqual(res.body.data.admittedBy, ['other']);
});

test("security: when no alternative admits the call, the first alternative's error is the answer", async (t) => {
  const slowRefused = await call('GET', `${base}/guarded`, { headers: { 'x-slow-key': 'bad' } });
  t.is(slowRefused.status, 401);
  t.is(slowRefused.body.error.code, 'auth.slow_refused');
  const quickRefused = await call('GET', `${base}/guarded`, { headers: { 'x-slow-key': 'good' } });
  t.is(quickRefused.status, 403);
  t.is(quickRefused.body.error.code, 'auth.quick_refused');
});

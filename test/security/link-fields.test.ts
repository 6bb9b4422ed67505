import test from 'ava';
import { serviceNames } from '../../server/platform/config.ts';
import { loadApiDocument, type JsonSchema, type Operation } from '../../server/platform/http/openapi.ts';
import { compileOperation, toDetails } from '../../server/platform/http/validation.ts';
import { call, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp, type SignedUpUser } from '../helpers/users.ts';

// Attack: a link that runs script where a client renders it. `POST /conversations` with an attachment
// `{"url": "javascript:alert(document.cookie)"}` was 201 and reached the recipient. Every request
// field a client may render as a link is `format: uri`, which in a request means an https:// link
// (http:// too in development mode): one check, from the documents, for every such field.
let platform: TestPlatform;
let ada: SignedUpUser;
let ben: SignedUpUser;
test.before(async () => {
  platform = await startTestPlatform();
  [ada, ben] = await Promise.all([signUp(platform), signUp(platform)]);
});
test.after.always(() => platform?.stop());

interface Field {
  where: string;
  schema: JsonSchema;
}

/** Every string field of a schema (through allOf/anyOf/oneOf, items and properties), by dotted path. */
function stringFields(
  schema: JsonSchema | undefined,
  at: string,
  out: Field[] = [],
  seen = new Set<unknown>(),
): Field[] {
  if (!schema || typeof schema !== 'object' || seen.has(schema)) return out;
  seen.add(schema);
  const types = ([] as unknown[]).concat(schema.type ?? []);
  if (types.includes('string')) out.push({ where: at, schema });
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const)
    for (const branch of (schema[key] as JsonSchema[] | undefined) ?? []) stringFields(branch, at, out, seen);
  for (const [name, property] of Object.entries((schema.properties as Record<string, JsonSchema> | undefined) ?? {}))
    stringFields(property, at ? `${at}.${name}` : name, out, seen);
  if (schema.items) stringFields(schema.items as JsonSchema, `${at}[]`, out, seen);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object')
    stringFields(schema.additionalProperties as JsonSchema, `${at}.*`, out, seen);
  return out;
}

/** Every string field of every request (body, query, path, header) of the three documents. */
async function requestStrings(): Promise<Array<Field & { operation: Operation }>> {
  const found: Array<Field & { operation: Operation }> = [];
  for (const service of serviceNames) {
    for (const operation of (await loadApiDocument(service)).operations) {
      for (const field of stringFields(operation.requestBody?.content['application/json']?.schema, 'body'))
        found.push({ ...field, operation });
      for (const p of operation.parameters)
        for (const field of stringFields(p.schema, `${p.in}.${p.name}`)) found.push({ ...field, operation });
    }
  }
  return found;
}

/**
 * A field a client may render as a link: a URL format, or a name that says link, URL or website. A
 * `readOnly` field (a resolved link a save may send back) is ignored in requests, so never rendered.
 */
const linkLike = (field: Field) =>
  !field.schema.readOnly &&
  (/^(uri|url|iri|uri-reference|iri-reference)$/.test(String(field.schema.format ?? '')) ||
    /(url|uri|link|href|website|homepage)$/i.test(field.where.split('.').pop()!.replace(/\[\]$/, '')));

test('every link-like request field of the three documents is format uri (checked as a link), and the list is what the test knows', async (t) => {
  const links = (await requestStrings()).filter(linkLike);
  const listed = links.map((f) => `${f.operation.operationId} ${f.where}`).sort();
  t.log(listed.join('\n'));
  t.deepEqual(
    links.filter((f) => f.schema.format !== 'uri').map((f) => `${f.operation.operationId} ${f.where}`),
    [],
    'each is format: uri',
  );
  // A new link field joins this list on purpose, and is then checked like the others.
  t.deepEqual(listed, [
    'broadcastConversation body.attachments[].url',
    'createConversation body.attachments[].url',
    'createInterviewTemplate body.link',
    'payApplication body.returnUrl',
    'postConversationMessage body.attachments[].url',
    'rescheduleInterviewBooking body.link',
    'setInterviewSchedule body.link',
  ]);
});

const refused = [
  'javascript:alert(document.cookie)',
  'JaVaScRiPt:alert(1)',
  ' javascript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'vbscript:msgbox(1)',
  'file:///etc/passwd',
  '//evil.example/x',
  'https://',
  'https://exa mple.test/',
  'https://example.test/\nx',
  'ftp://example.test/a',
];

test('in production a link field takes https:// only: javascript:, data:, vbscript:, http:// and the rest are refused naming the field', async (t) => {
  for (const field of (await requestStrings()).filter(linkLike)) {
    const check = compileOperation({
      ...field.operation,
      requestBody: { content: { 'application/json': { schema: field.schema } } },
    }).body!;
    t.true(check('https://meet.example.test/room?x=1#top'), field.where);
    for (const value of [...refused, 'http://meet.example.test/room']) {
      t.false(check(value), `${field.operation.operationId} ${field.where}: ${value}`);
      t.deepEqual(toDetails(check.errors, 'body'), [{ field: 'body', issue: 'must be a web link (https://...)' }]);
    }
  }
});

test('a conversation attachment with a javascript: url is 422 naming the field, and nothing reaches the recipient', async (t) => {
  for (const url of refused) {
    const res = await call('POST', platform.url('/v1/ol/conversations'), {
      token: ada.accessToken,
      json: { recipientId: ben.userId, message: 'see attached', attachments: [{ name: 'cv.pdf', url }] },
    });
    t.is(res.status, 422, url);
    t.is(res.body.error.code, 'validation.failed');
    t.deepEqual(
      res.body.error.details,
      [{ field: 'attachments[0].url', issue: 'must be a web link (https://...)' }],
      url,
    );
  }
  t.deepEqual((await call('GET', platform.url('/v1/ol/conversations'), { token: ben.accessToken })).body.data, []);
  // Development mode's links are local: http:// is taken there.
  const local = await call('POST', platform.url('/v1/ol/conversations'), {
    token: ada.accessToken,
    json: {
      recipientId: ben.userId,
      message: 'see attached',
      attachments: [{ name: 'cv.pdf', url: 'http://127.0.0.1:4000/cv.pdf' }],
    },
  });
  t.is(local.status, 201, local.text);
});

test('an interview link, on a sitting, a template or a reschedule, that is not a web link is 422 naming the field', async (t) => {
  const id = '01J00000000000000000000000';
  const sitting = {
    scheduledAt: new Date(Date.now() + 86_400_000).toISOString(),
    mode: 'online',
    link: 'javascript:alert(1)',
  };
  for (const [method, path, json] of [
    ['POST', `/v1/cap/applications/${id}/interview/schedule`, sitting],
    ['POST', '/v1/cap/centre/interviews', { ...sitting, title: 'Sitting', panelId: id }],
    ['PATCH', `/v1/cap/centre/interview-bookings/${id}`, { link: 'data:text/html,x' }],
  ] as const) {
    const res = await call(method, platform.url(path), { token: ada.accessToken, json });
    t.is(res.status, 422, `${method} ${path}: ${res.text}`);
    t.deepEqual(res.body.error.details, [{ field: 'link', issue: 'must be a web link (https://...)' }]);
  }
});

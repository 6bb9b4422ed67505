import test from 'ava';
import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import type { PlatformConfig } from '../../server/platform/config.ts';
import { newId } from '../../server/platform/ids.ts';
import { call, sql, captureLogs, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp, testPassword, uniqueEmail } from '../helpers/users.ts';

const require = createRequire(import.meta.url);
const latencyMs = 100;
const logs = captureLogs();
const logLines = logs.lines;
let platform: TestPlatform;
let config: PlatformConfig;

// Everything the platform logs (trace level, nothing redacted) lands in logLines.
test.before(async () => {
  platform = await startTestPlatform({ identityLatencyMs: latencyMs }, { logger: logs.logger });
  config = platform.config;
});
test.after.always(() => platform?.stop());

// A client written from proto/ alone, the way any other team would write one.
const identityProto = protoLoader.loadSync(path.resolve('proto/orchestrator/v1/identity.proto'), {
  keepCase: true,
  defaults: true,
});
const IdentityService = (grpc.loadPackageDefinition(identityProto) as any).orchestrator.v1.IdentityService;

function rpc(
  method: 'VerifyIdentity' | 'ProvisionAccount',
  request: object,
  serviceKey: string | null = config.serviceApiKey,
): Promise<any> {
  const client = new IdentityService(platform.urls.grpc, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  if (serviceKey !== null) metadata.set('x-platform-service-key', serviceKey);
  return new Promise((resolve, reject) =>
    client[method](request, metadata, (err: grpc.ServiceError | null, response: unknown) => {
      client.close();
      if (err) reject(err);
      else resolve(response);
    }),
  );
}

async function rpcError(
  method: 'VerifyIdentity' | 'ProvisionAccount',
  request: object,
  serviceKey?: string | null,
): Promise<grpc.ServiceError> {
  const outcome = await rpc(method, request, serviceKey).then(
    () => undefined,
    (err: grpc.ServiceError) => err,
  );
  if (!outcome) throw new Error(`${method} succeeded`);
  return outcome;
}

/** An 11-digit test number of a sandbox class, unique to the call. */
const testNumber = (prefix: string) => `${prefix}${String(crypto.randomInt(0, 1e8)).padStart(8, '0')}`;

async function verifyRequest(overrides: Record<string, string> = {}) {
  const user = await signUp(platform);
  return {
    user_id: user.userId,
    type: 'nin',
    identification_number: testNumber('100'),
    first_name: 'Amaka',
    last_name: 'Eze',
    date_of_birth: '1990-04-17',
    ...overrides,
  };
}

test('a client built from proto/ alone calls both RPCs with the service key', async (t) => {
  const verified = await rpc('VerifyIdentity', await verifyRequest());
  t.is(verified.verified, true);
  const provisioned = await rpc('ProvisionAccount', { email: uniqueEmail('proto-client'), intents: ['cap'] });
  t.regex(provisioned.user_id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
  t.is(provisioned.is_new, true);
});

test('a call without the service key, or with a wrong one, is UNAUTHENTICATED', async (t) => {
  const request = await verifyRequest();
  t.is((await rpcError('VerifyIdentity', request, null)).code, grpc.status.UNAUTHENTICATED);
  t.is((await rpcError('VerifyIdentity', request, 'not-the-key')).code, grpc.status.UNAUTHENTICATED);
  t.is((await rpcError('ProvisionAccount', { email: uniqueEmail('no-key') }, null)).code, grpc.status.UNAUTHENTICATED);
  t.is((await sql(platform, `SELECT 1 FROM ol.identity_checks WHERE user_id = $1`, [request.user_id])).length, 0);
});

test('reflection lists the IdentityService and the health service', async (t) => {
  const reflectionProto = path.join(
    path.dirname(require.resolve('@grpc/reflection/package.json')),
    'build/proto/grpc/reflection/v1/reflection.proto',
  );
  const loaded = grpc.loadPackageDefinition(protoLoader.loadSync(reflectionProto, { keepCase: true })) as any;
  const client = new loaded.grpc.reflection.v1.ServerReflection(platform.urls.grpc, grpc.credentials.createInsecure());
  t.teardown(() => client.close());
  const listed = await new Promise<any>((resolve, reject) => {
    const stream = client.ServerReflectionInfo();
    stream.once('data', (response: unknown) => {
      resolve(response);
      stream.end();
    });
    stream.once('error', reject);
    stream.write({ list_services: '' });
  });
  const names = listed.list_services_response.service.map((service: { name: string }) => service.name);
  t.true(names.includes('orchestrator.v1.IdentityService'));
  t.true(names.includes('grpc.health.v1.Health'));
});

test('health answers SERVING for the server and for the IdentityService', async (t) => {
  const loaded = grpc.loadPackageDefinition(
    protoLoader.loadSync(healthProtoPath, { keepCase: true, enums: String }),
  ) as any;
  const client = new loaded.grpc.health.v1.Health(platform.urls.grpc, grpc.credentials.createInsecure());
  t.teardown(() => client.close());
  const check = (service: string) =>
    new Promise<{ status: string }>((resolve, reject) =>
      client.Check({ service }, (err: Error | null, response: { status: string }) =>
        err ? reject(err) : resolve(response),
      ),
    );
  t.is((await check('')).status, 'SERVING');
  t.is((await check('orchestrator.v1.IdentityService')).status, 'SERVING');
});

test('a sandbox number starting 100 verifies, with the check time and an opaque sandbox reference', async (t) => {
  const request = await verifyRequest();
  const before = Date.now();
  const response = await rpc('VerifyIdentity', request);
  t.like(response, { verified: true, provider: 'sandbox' });
  t.regex(response.provider_reference, /^sbx_[A-Za-z0-9_-]{32}$/);
  const verifiedAt = Date.parse(response.verified_at);
  t.true(verifiedAt >= before - 1000 && verifiedAt <= Date.now());
  t.is(new Date(verifiedAt).toISOString(), response.verified_at);
});

const failingClasses = [
  { prefix: '200', outcome: 'name_mismatch' },
  { prefix: '300', outcome: 'dob_mismatch' },
  { prefix: '456', outcome: 'not_found' },
];
for (const { prefix, outcome } of failingClasses) {
  test(`a sandbox number starting ${prefix} is not verified (${outcome}) and has no verified_at`, async (t) => {
    const request = await verifyRequest({ identification_number: testNumber(prefix) });
    const response = await rpc('VerifyIdentity', request);
    t.like(response, { verified: false, provider: 'sandbox', verified_at: '' });
    t.regex(response.provider_reference, /^sbx_/);
    const [row] = await sql(platform, `SELECT outcome, verified_at FROM ol.identity_checks WHERE user_id = $1`, [
      request.user_id,
    ]);
    t.like(row, { outcome, verified_at: null });
  });
}

test('the sandbox answers no sooner than the configured latency', async (t) => {
  const request = await verifyRequest();
  const started = performance.now();
  await rpc('VerifyIdentity', request);
  t.true(performance.now() - started >= latencyMs);
});

test('each check is stored with the HMAC of type and number, and a fresh reference each time', async (t) => {
  const request = await verifyRequest();
  const first = await rpc('VerifyIdentity', request);
  const second = await rpc('VerifyIdentity', request);
  t.not(first.provider_reference, second.provider_reference);
  const rows = await sql(platform, `SELECT * FROM ol.identity_checks WHERE user_id = $1 ORDER BY id`, [
    request.user_id,
  ]);
  const expectedHmac = crypto
    .createHmac('sha256', config.identityHmacKey)
    .update(`nin:${request.identification_number}`)
    .digest('hex');
  t.deepEqual(
    rows.map((row) => [row.document_type, row.number_hmac, row.outcome, row.provider, row.provider_reference]),
    [
      ['nin', expectedHmac, 'verified', 'sandbox', first.provider_reference],
      ['nin', expectedHmac, 'verified', 'sandbox', second.provider_reference],
    ],
  );
  t.is((rows[0]!.verified_at as Date).toISOString(), first.verified_at);
});

const invalidRequests: Array<[string, Record<string, string>, RegExp]> = [
  ['a missing user_id', { user_id: '' }, /^user_id is required$/],
  ['a type other than nin', { type: 'passport' }, /^type must be one of: nin$/],
  [
    'a 10-digit number',
    { identification_number: '1000000000' },
    /^identification_number must be exactly 11 digits for type nin$/,
  ],
  ['a 12-digit number', { identification_number: '100000000001' }, /identification_number must be exactly 11 digits/],
  [
    'a number with letters',
    { identification_number: '1000000000a' },
    /identification_number must be exactly 11 digits/,
  ],
  ['a missing first name', { first_name: ' ' }, /^first_name is required/],
  ['a missing last name', { last_name: '' }, /^last_name is required/],
  [
    'a date of birth in another format',
    { date_of_birth: '17/04/1990' },
    /^date_of_birth must be a real date written YYYY-MM-DD/,
  ],
  ['a date of birth that does not exist', { date_of_birth: '1990-02-30' }, /^date_of_birth must be a real date/],
  ['a date of birth in the future', { date_of_birth: '2999-01-01' }, /not in the future$/],
];
for (const [label, overrides, message] of invalidRequests) {
  test(`VerifyIdentity with ${label} is INVALID_ARGUMENT`, async (t) => {
    const request = {
      user_id: 'user',
      type: 'nin',
      identification_number: '10000000001',
      first_name: 'Amaka',
      last_name: 'Eze',
      date_of_birth: '1990-04-17',
      ...overrides,
    };
    const error = await rpcError('VerifyIdentity', request);
    t.is(error.code, grpc.status.INVALID_ARGUMENT);
    t.regex(error.details, message);
    t.false(error.details.includes(request.identification_number));
  });
}

test('VerifyIdentity names every broken field at once', async (t) => {
  const error = await rpcError('VerifyIdentity', { type: 'nin', identification_number: '1', date_of_birth: 'x' });
  t.is(error.code, grpc.status.INVALID_ARGUMENT);
  for (const field of ['user_id', 'identification_number', 'first_name', 'last_name', 'date_of_birth'])
    t.true(error.details.includes(field), field);
});

test('VerifyIdentity for an unknown user is NOT_FOUND', async (t) => {
  const error = await rpcError('VerifyIdentity', { ...(await verifyRequest()), user_id: newId() });
  t.is(error.code, grpc.status.NOT_FOUND);
});

test('VerifyIdentity for a user who has not verified their email is FAILED_PRECONDITION', async (t) => {
  const registered = await call('POST', platform.url('/v1/ol/auth/register'), {
    json: { email: uniqueEmail('pending'), password: testPassword, intents: ['cap'] },
  });
  const error = await rpcError('VerifyIdentity', { ...(await verifyRequest()), user_id: registered.body.data.userId });
  t.is(error.code, grpc.status.FAILED_PRECONDITION);
  t.regex(error.details, /pending_verification/);
});

test('after checks of every kind, no table of any schema and no log line holds a raw number', async (t) => {
  const numbers = ['100', '200', '300', '789'].map(testNumber);
  for (const number of numbers) await rpc('VerifyIdentity', await verifyRequest({ identification_number: number }));
  await rpcError('VerifyIdentity', await verifyRequest({ identification_number: `${numbers[0]}9` }));

  const tables = await sql<{ table_schema: string; table_name: string }>(
    platform,
    `SELECT table_schema, table_name FROM information_schema.tables
     WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
  );
  t.true(tables.some((table) => table.table_schema === 'ol' && table.table_name === 'identity_checks'));
  let dump = '';
  for (const { table_schema, table_name } of tables) {
    dump += JSON.stringify(await sql(platform, `SELECT * FROM "${table_schema}"."${table_name}"`));
  }
  t.true(
    logLines.some((line) => line.includes('identity checked')),
    'the log was captured',
  );
  for (const number of numbers) {
    t.false(dump.includes(number), `the database holds ${number}`);
    t.false(
      logLines.some((line) => line.includes(number)),
      `the log holds ${number}`,
    );
  }
});

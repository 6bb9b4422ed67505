import test from 'ava';
import crypto from 'node:crypto';
import { cap, drafts } from '../helpers/cap.ts';
import { captureLogs, sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp, type SignedUpUser } from '../helpers/users.ts';

// POST /identity-verification: CAP's side of VerifyIdentity, over the real gRPC listener.

const logs = captureLogs();
let platform: TestPlatform;

test.before(async () => {
  platform = await startTestPlatform({}, { logger: logs.logger });
});
test.after.always(() => platform?.stop());

/** An 11-digit sandbox number of one class (100 verifies, 200 name mismatch, 300 birth date mismatch), unique to the call. */
const nin = (prefix: string) => `${prefix}${String(crypto.randomInt(0, 1e8)).padStart(8, '0')}`;

const verify = (
  on: TestPlatform,
  user: SignedUpUser,
  identificationNumber: string,
  headers: Record<string, string> = {},
) => cap(on, user, 'POST', '/identity-verification', { json: { type: 'nin', identificationNumber }, headers });

/** A user whose candidate draft holds their personal details, as the client has it when it verifies. */
async function candidateWithDraft(on: TestPlatform = platform): Promise<SignedUpUser> {
  const user = await signUp(on);
  await cap(on, user, 'POST', '/onboarding/start', { json: { persona: 'candidate' } });
  await cap(on, user, 'PATCH', '/onboarding/candidate/save', { json: drafts.candidate });
  return user;
}

test('a number starting 100 verifies the caller: verifiedAt and provider come back, and GET /me shows identityVerified', async (t) => {
  const user = await candidateWithDraft();
  const before = Date.now();
  const res = await verify(platform, user, nin('100'));
  t.is(res.status, 200, res.text);
  t.like(res.body.data, { verified: true, provider: 'sandbox' });
  const verifiedAt = Date.parse(res.body.data.verifiedAt);
  t.true(verifiedAt >= before - 1000 && verifiedAt <= Date.now());
  t.true((await cap(platform, user, 'GET', '/me')).body.data.identityVerified);
  t.true((await cap(platform, user, 'GET', '/me/profile')).body.data.identityVerified);
});

const failures = [
  ['200', 'a name mismatch', 'identity.not_verified', 'name_mismatch'],
  ['300', 'a date-of-birth mismatch', 'identity.not_verified', 'dob_mismatch'],
  ['456', 'an unknown number', 'identity.not_found', 'not_found'],
] as const;
for (const [prefix, kind, code, outcome] of failures) {
  test(`${kind} (${prefix}...) is 422 ${code} with the outcome as the detail (the client decides by status), and the user stays unverified`, async (t) => {
    const user = await candidateWithDraft();
    const res = await verify(platform, user, nin(prefix));
    t.is(res.status, 422, res.text);
    t.is(res.body.error.code, code);
    t.deepEqual(res.body.error.details, [{ field: 'identificationNumber', issue: outcome }]);
    t.false((await cap(platform, user, 'GET', '/me')).body.data.identityVerified);
  });
}

test('verifying again works (the client verifies in onboarding and again in the RPL wizard)', async (t) => {
  const user = await candidateWithDraft();
  const number = nin('100');
  const first = await verify(platform, user, number);
  const second = await verify(platform, user, number);
  t.is(second.status, 200, second.text);
  t.true(first.body.data.verified && second.body.data.verified);
  const [row] = await sql(platform, 'SELECT identity_verified_at FROM cap.users WHERE user_id = $1', [user.userId]);
  t.is((row!.identity_verified_at as Date).toISOString(), second.body.data.verifiedAt);
});

test('a failed check after a successful one does not undo the verification', async (t) => {
  const user = await candidateWithDraft();
  await verify(platform, user, nin('100'));
  const failed = await verify(platform, user, nin('200'));
  t.is(failed.status, 422);
  t.true((await cap(platform, user, 'GET', '/me')).body.data.identityVerified);
});

test('the result is recorded on the CapUser with the provider and its reference, never the number', async (t) => {
  const user = await candidateWithDraft();
  const number = nin('100');
  await verify(platform, user, number);
  const [row] = await sql(platform, 'SELECT * FROM cap.users WHERE user_id = $1', [user.userId]);
  t.like(row, { identity_verified: true, identity_provider: 'sandbox' });
  t.regex(String(row!.identity_provider_reference), /^sbx_/);
  t.false(JSON.stringify(row).includes(number));
});

test('the details come from the profile when the caller has no onboarding draft', async (t) => {
  const user = await signUp(platform);
  await cap(platform, user, 'PATCH', '/me/profile', { json: { personalDetails: drafts.candidate.personalDetails } });
  const res = await verify(platform, user, nin('100'));
  t.is(res.status, 200, res.text);
  t.true(res.body.data.verified);
});

test("the details come from a centre draft's owner", async (t) => {
  const user = await signUp(platform);
  await cap(platform, user, 'POST', '/onboarding/start', { json: { persona: 'centre' } });
  await cap(platform, user, 'PATCH', '/onboarding/centre/save', { json: { owner: drafts.centre.owner } });
  t.true((await verify(platform, user, nin('100'))).body.data.verified);
});

test('without a name and date of birth anywhere, 422 identity.details_missing names each missing field', async (t) => {
  const nobody = await signUp(platform);
  const none = await verify(platform, nobody, nin('100'));
  t.is(none.status, 422);
  t.is(none.body.error.code, 'identity.details_missing');
  t.deepEqual(
    none.body.error.details.map((d: { field: string }) => d.field),
    ['personalDetails.firstName', 'personalDetails.lastName', 'personalDetails.dob'],
  );

  const partial = await signUp(platform);
  await cap(platform, partial, 'PATCH', '/me/profile', { json: { personalDetails: { firstName: 'Ada' } } });
  const res = await verify(platform, partial, nin('100'));
  t.is(res.status, 422);
  t.deepEqual(
    res.body.error.details.map((d: { field: string }) => d.field),
    ['personalDetails.lastName', 'personalDetails.dob'],
  );
  t.false((await cap(platform, partial, 'GET', '/me')).body.data.identityVerified);
});

test('details the identity service refuses (a birth date in the future) are 422 identity.details_invalid', async (t) => {
  const user = await signUp(platform);
  await cap(platform, user, 'PATCH', '/me/profile', {
    json: { personalDetails: { ...drafts.candidate.personalDetails, dob: '2999-01-01' } },
  });
  const res = await verify(platform, user, nin('100'));
  t.is(res.status, 422);
  t.is(res.body.error.code, 'identity.details_invalid');
});

test('a number that is not 11 digits, or a type other than nin, is 422 validation.failed without echoing the number', async (t) => {
  const user = await candidateWithDraft();
  for (const identificationNumber of ['1000000000', '100000000012', '1000000000a']) {
    const res = await verify(platform, user, identificationNumber);
    t.is(res.status, 422);
    t.is(res.body.error.code, 'validation.failed');
    t.false(res.text.includes(identificationNumber));
  }
  const passport = await cap(platform, user, 'POST', '/identity-verification', {
    json: { type: 'passport', identificationNumber: nin('100') },
  });
  t.is(passport.status, 422);
});

test('identity verification takes no persona headers: whatever they say, it answers', async (t) => {
  const user = await candidateWithDraft();
  const res = await verify(platform, user, nin('100'), {
    'X-CAP-PERSONA': 'centre',
    'X-CAP-CENTRE-ID': 'not-a-centre',
  });
  t.is(res.status, 200, res.text);
});

test('a call without a token is 401', async (t) => {
  const res = await cap(platform, { accessToken: '' } as SignedUpUser, 'POST', '/identity-verification', {
    json: { type: 'nin', identificationNumber: nin('100') },
  });
  t.is(res.status, 401);
});

test('after checks of every kind, no table of the cap schema and no log line holds a raw number', async (t) => {
  const numbers = ['100', '200', '300', '789'].map(nin);
  const user = await candidateWithDraft();
  for (const number of numbers) await verify(platform, user, number);
  const tooLong = `${nin('100')}9`;
  numbers.push(tooLong);
  await verify(platform, user, tooLong); // refused by the document
  await verify(platform, await signUp(platform), numbers[0]!); // refused: no details

  const tables = await sql<{ table_name: string }>(
    platform,
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'cap' AND table_type = 'BASE TABLE'`,
  );
  t.true(tables.some((table) => table.table_name === 'users'));
  let dump = '';
  for (const { table_name } of tables) dump += JSON.stringify(await sql(platform, `SELECT * FROM cap."${table_name}"`));
  t.true(
    logs.lines.some((line) => line.includes('/identity-verification')),
    'the log was captured',
  );
  for (const number of numbers) {
    t.false(dump.includes(number), `the cap schema holds ${number}`);
    t.false(
      logs.lines.some((line) => line.includes(number)),
      `the log holds ${number}`,
    );
  }
});

test('an Orchestrator that cannot be reached is 503 identity.provider_unavailable, nothing is recorded, and the user can retry', async (t) => {
  const down = await startTestPlatform({ olGrpcAddress: '127.0.0.1:1' });
  t.teardown(() => down.stop());
  const user = await candidateWithDraft(down);
  const res = await verify(down, user, nin('100'));
  t.is(res.status, 503);
  t.is(res.body.error.code, 'identity.provider_unavailable');
  t.regex(res.body.error.message, /try again/);
  const [row] = await sql(down, 'SELECT identity_verified, identity_provider FROM cap.users WHERE user_id = $1', [
    user.userId,
  ]);
  t.deepEqual(row, { identity_verified: false, identity_provider: null });
  t.is((await verify(down, user, nin('100'))).status, 503);
});

test('an Orchestrator that refuses CAP (a wrong service key) is 502 identity.upstream_error', async (t) => {
  // CAP alone, configured against this file's Orchestrator with a key that is not the Orchestrator's.
  const capOnly = await startTestPlatform({
    only: ['cap'],
    olUrl: platform.url('/v1/ol'),
    olGrpcAddress: platform.urls.grpc!,
    serviceApiKey: 'not-the-orchestrator-key',
  });
  t.teardown(() => capOnly.stop());
  const user = await signUp(platform);
  await cap(capOnly, user, 'PATCH', '/me/profile', { json: { personalDetails: drafts.candidate.personalDetails } });
  const res = await verify(capOnly, user, nin('100'));
  t.is(res.status, 502);
  t.is(res.body.error.code, 'identity.upstream_error');
});

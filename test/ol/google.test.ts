import test from 'ava';
import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import {
  createGoogleVerifier,
  GoogleTokenError,
  type GoogleTokenProblem,
} from '../../server/orchestrator/google/verify.ts';
import { runCapctl } from '../helpers/cli.ts';
import { call, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';

// The sandbox signs as Google does (the short issuer spelling); the verifier is configured with the
// long one, so every token accepted here also proves both spellings are taken.
const clientId = 'test-google-client';
let platform: TestPlatform;
let verify: ReturnType<typeof createGoogleVerifier>;

test.before(async () => {
  platform = await startTestPlatform({ googleIssuer: 'accounts.google.com', googleClientId: clientId });
  verify = createGoogleVerifier({ googleIssuer: 'https://accounts.google.com', googleClientId: clientId }, () =>
    platform.url('/v1/ol/dev/google/jwks.json'),
  );
});
test.after.always(() => platform?.stop());

async function mint(body: Record<string, unknown>): Promise<string> {
  const res = await call('POST', platform.url('/v1/ol/dev/google/id-token'), { json: body });
  if (res.status !== 200) throw new Error(`mint failed: ${res.status} ${res.text}`);
  return res.body.data.idToken;
}

async function refusal(token: string, verifier = verify): Promise<GoogleTokenProblem> {
  const err = await verifier(token).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof GoogleTokenError)) throw new Error(`expected a GoogleTokenError, got ${String(err)}`);
  return err.reason;
}

test('a sandbox ID token verifies and names the address', async (t) => {
  const token = await mint({ email: 'Ada@Example.Test', name: 'Ada Lovelace' });
  const identity = await verify(token);
  t.like(identity, { email: 'ada@example.test', emailVerified: true, name: 'Ada Lovelace' });
  t.regex(identity.sub, /^\d{21}$/);
});

test('a sandbox ID token has the shape of a Google one, with a subject stable per address', async (t) => {
  const first = await mint({ email: 'shape@example.test', emailVerified: false });
  const second = await mint({ email: 'shape@example.test' });
  const claims = decodeJwt(first);
  t.like(claims, {
    iss: 'accounts.google.com',
    aud: clientId,
    azp: clientId,
    email: 'shape@example.test',
    email_verified: false,
  });
  t.regex(String(claims.sub), /^\d{21}$/);
  t.is(claims.exp! - claims.iat!, 3600);
  t.is(decodeJwt(second).sub, claims.sub);
  t.not(decodeJwt(await mint({ email: 'other@example.test' })).sub, claims.sub);
  const header = decodeProtectedHeader(first);
  t.is(header.alg, 'RS256');
  const jwks = await call('GET', platform.url('/v1/ol/dev/google/jwks.json'));
  t.is(jwks.status, 200);
  t.true(jwks.body.keys.some((key: { kid: string; d?: string }) => key.kid === header.kid && key.d === undefined));
});

test('an ID token for another client is refused', async (t) => {
  t.is(await refusal(await mint({ email: 'aud@example.test', audience: 'someone-else' })), 'audience');
});

test('an expired ID token is refused', async (t) => {
  t.is(await refusal(await mint({ email: 'late@example.test', expiresInSeconds: -120 })), 'expired');
});

test('an ID token signed by another key is refused, even under the sandbox key id', async (t) => {
  const genuine = await mint({ email: 'forged@example.test' });
  const { privateKey } = await generateKeyPair('RS256');
  const forged = await new SignJWT(decodeJwt(genuine))
    .setProtectedHeader(decodeProtectedHeader(genuine) as { alg: string })
    .sign(privateKey);
  t.is(await refusal(forged), 'signature');
});

test('an ID token from another issuer is refused', async (t) => {
  const strict = createGoogleVerifier({ googleIssuer: 'https://issuer.example', googleClientId: clientId }, () =>
    platform.url('/v1/ol/dev/google/jwks.json'),
  );
  t.is(await refusal(await mint({ email: 'iss@example.test' }), strict), 'issuer');
});

test('a token that is not a signed JWT is refused as malformed', async (t) => {
  t.is(await refusal('not-a-token'), 'malformed');
});

test('unreachable signing keys are reported as such, not as a bad token', async (t) => {
  const offline = createGoogleVerifier(
    { googleIssuer: 'accounts.google.com', googleClientId: clientId },
    () => 'http://127.0.0.1:1/jwks.json',
  );
  t.is(await refusal(await mint({ email: 'offline@example.test' }), offline), 'keys_unavailable');
});

test('minting checks its input', async (t) => {
  const res = await call('POST', platform.url('/v1/ol/dev/google/id-token'), { json: { email: 'not-an-email' } });
  t.is(res.status, 422);
  t.is(res.body.error.code, 'validation.failed');
});

test('capctl google-token prints a token the verifier accepts', async (t) => {
  const plain = await runCapctl([
    'google-token',
    '--email',
    'cli@example.test',
    '--name',
    'Cli User',
    '--base-url',
    platform.urls.gateway!,
  ]);
  t.is(plain.code, 0, plain.stderr);
  t.like(await verify(plain.stdout.trim()), { email: 'cli@example.test', name: 'Cli User' });
  const json = await runCapctl(['google-token', '--email', 'cli@example.test', '--json'], {
    CAPCTL_BASE_URL: platform.urls.gateway!,
  });
  t.is(json.code, 0, json.stderr);
  t.like(await verify(JSON.parse(json.stdout).idToken), { email: 'cli@example.test' });
});

test('capctl google-token exits 3 when the platform cannot be reached', async (t) => {
  const result = await runCapctl(['google-token', '--email', 'cli@example.test', '--base-url', 'http://127.0.0.1:1']);
  t.is(result.code, 3);
  t.regex(result.stderr, /cannot reach/);
});

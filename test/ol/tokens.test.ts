import test from 'ava';
import { Command } from 'commander';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRemoteJWKSet, decodeProtectedHeader, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { registerKeys } from '../../cli/commands/keys.ts';
import { startPlatform, type RunningPlatform } from '../../server/main.ts';
import { anyFreePorts, resolveConfig } from '../../server/platform/config.ts';
import { isUlid } from '../../server/platform/ids.ts';
import { call, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp } from '../helpers/users.ts';

// Access tokens, the JWKS and key rotation, checked the way an outside JOSE client would.
let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform();
});
test.after.always(() => platform?.stop());

const jwksUrl = (base: string) => `${base}/v1/ol/.well-known/jwks.json`;

/** Runs `capctl keys ...` in this process and returns what it printed. */
async function capctlKeys(args: string[]): Promise<{ stdout: string; stderr: string; exitCode: number | undefined }> {
  const program = new Command('capctl').exitOverride();
  registerKeys(program);
  let stdout = '';
  let stderr = '';
  const write = { out: process.stdout.write, err: process.stderr.write };
  process.stdout.write = ((chunk: string) => ((stdout += chunk), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string) => ((stderr += chunk), true)) as typeof process.stderr.write;
  try {
    await program.parseAsync(['keys', ...args], { from: 'user' });
  } finally {
    process.stdout.write = write.out;
    process.stderr.write = write.err;
  }
  const exitCode = typeof process.exitCode === 'number' ? process.exitCode : undefined;
  process.exitCode = undefined;
  return { stdout, stderr, exitCode };
}

test('an access token verifies against the published JWKS with a standard JOSE library', async (t) => {
  const user = await signUp(platform);
  const { payload, protectedHeader } = await jwtVerify(
    user.accessToken,
    createRemoteJWKSet(new URL(jwksUrl(platform.urls.gateway!))),
    {
      issuer: 'cap-platform-ol',
      audience: 'cap-platform',
      algorithms: ['RS256'],
    },
  );
  t.is(protectedHeader.alg, 'RS256');
  t.truthy(protectedHeader.kid);
  t.is(payload.sub, user.userId);
  t.is(payload.email, user.email);
  t.deepEqual(payload.intents, ['cap']);
  t.is(payload.exp! - payload.iat!, 900);
  t.true(isUlid(String(payload.jti)));
});

test('the JWKS is a bare key set, cacheable for five minutes, without private parts', async (t) => {
  const res = await call('GET', jwksUrl(platform.urls.gateway!));
  t.is(res.status, 200);
  t.is(res.headers['cache-control'], 'public, max-age=300');
  t.is(res.body.success, undefined);
  t.true(res.body.keys.length >= 1);
  for (const key of res.body.keys) {
    t.like(key, { kty: 'RSA', alg: 'RS256', use: 'sig' });
    t.is(key.d, undefined);
  }
});

test('a bearer operation refuses a missing, tampered, foreign or expired token with 401 auth.unauthenticated', async (t) => {
  const user = await signUp(platform);
  const [header, payload, signature] = user.accessToken.split('.');
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
  const tampered = [
    header,
    Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url'),
    signature,
  ].join('.');

  const foreignKey = await generateKeyPair('RS256');
  // Same claims and kid, but signed by a key the Orchestrator never published.
  const foreign = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: decodeProtectedHeader(user.accessToken).kid! })
    .sign(foreignKey.privateKey);

  for (const token of [undefined, 'garbage', tampered, foreign]) {
    const res = await call('POST', platform.url('/v1/ol/auth/logout'), {
      token,
      json: { refreshToken: user.refreshToken },
    });
    t.is(res.status, 401, String(token).slice(0, 20));
    t.is(res.body.error.code, 'auth.unauthenticated');
  }
  const expiring = await startTestPlatform({ accessTokenTtlSeconds: 1 });
  try {
    const shortLived = await signUp(expiring);
    await new Promise((r) => setTimeout(r, 2100));
    const res = await call('POST', expiring.url('/v1/ol/auth/logout'), {
      token: shortLived.accessToken,
      json: { refreshToken: shortLived.refreshToken },
    });
    t.is(res.status, 401);
  } finally {
    await expiring.stop();
  }
});

test('a token the Orchestrator verified before (and keeps) is refused once it expires', async (t) => {
  const expiring = await startTestPlatform({ accessTokenTtlSeconds: 2, only: ['ol'] });
  try {
    const user = await signUp(expiring);
    const read = () => call('GET', expiring.url('/v1/ol/notifications'), { token: user.accessToken });
    t.is((await read()).status, 200);
    t.is((await read()).status, 200); // answered from the verified tokens kept
    await new Promise((r) => setTimeout(r, 2100));
    const res = await read();
    t.is(res.status, 401);
    t.is(res.body.error.code, 'auth.unauthenticated');
  } finally {
    await expiring.stop();
  }
});

test('key rotation keeps earlier tokens valid and signs new ones with the new kid', async (t) => {
  const before = await signUp(platform);
  const oldKid = decodeProtectedHeader(before.accessToken).kid;

  const rotated = await capctlKeys(['rotate', '--database-url', platform.databaseUrl, '--json']);
  t.is(rotated.exitCode, undefined, rotated.stderr);
  const { kid: newKid, retired } = JSON.parse(rotated.stdout);
  t.not(newKid, oldKid);
  t.deepEqual(retired, [oldKid]);

  const listed = JSON.parse((await capctlKeys(['ls', '--database-url', platform.databaseUrl, '--json'])).stdout);
  t.like(listed[0], { kid: newKid, active: true, published: true });
  t.like(listed[1], { kid: oldKid, active: false, published: true });

  // A restarted server (a second process on the same database) signs with the new key at once.
  let restarted: RunningPlatform | undefined;
  try {
    restarted = await startPlatform(
      resolveConfig({
        databaseUrl: platform.databaseUrl,
        ...anyFreePorts,
        logLevel: 'silent',
      }),
    );
    const gateway = restarted.urls.gateway!;
    const login = await call('POST', `${gateway}/v1/ol/auth/login`, {
      json: { email: before.email, password: before.password },
    });
    t.is(decodeProtectedHeader(login.body.data.accessToken).kid, newKid);

    const keys = createRemoteJWKSet(new URL(jwksUrl(gateway)));
    for (const token of [before.accessToken, login.body.data.accessToken]) {
      await t.notThrowsAsync(jwtVerify(token, keys, { issuer: 'cap-platform-ol', audience: 'cap-platform' }));
    }
    // The old token still passes OL's own bearer check, on either server.
    for (const base of [gateway, platform.urls.gateway!]) {
      const change = await call('PATCH', `${base}/v1/ol/auth/change-password`, {
        token: before.accessToken,
        json: { currentPassword: 'wrong-on-purpose-1', newPassword: 'Whatever-pass-1' },
      });
      t.is(change.body.error.code, 'auth.current_password_wrong', base);
    }
  } finally {
    await restarted?.stop();
  }
});

test('capctl keys says clearly when a running capctl holds the data directory', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-keys-'));
  try {
    fs.writeFileSync(path.join(dataDir, 'capctl.lock'), String(process.pid));
    const result = await capctlKeys(['rotate', '--data-dir', dataDir]);
    t.is(result.exitCode, 1);
    t.regex(result.stderr, /in use by another capctl/);
    t.regex(result.stderr, /stop `capctl serve`/);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

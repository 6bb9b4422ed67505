import test from 'ava';
import { ConfigError, resolveConfig } from '../../server/platform/config.ts';
import { call, sql, startReplica, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp, testPassword, uniqueEmail } from '../helpers/users.ts';

// PASSWORD_HASH_COST: a development-mode platform hashes at argon2's minimum cost, a production-cost
// one at the recommended parameters, and upgrades a weaker stored hash when its owner signs in.
let dev: TestPlatform;
let production: TestPlatform;
test.before(async () => {
  dev = await startTestPlatform();
  production = await startReplica(dev, { passwordHashCost: 'production' });
});
test.after.always(async () => {
  await production?.stop();
  await dev?.stop();
});

const minimumParameters = '$argon2id$v=19$m=8,t=1,p=1$';
const productionParameters = '$argon2id$v=19$m=19456,t=2,p=1$';

async function storedHash(email: string): Promise<string> {
  const [row] = await sql<{ password_hash: string }>(dev, 'SELECT password_hash FROM ol.users WHERE email = $1', [
    email,
  ]);
  return row!.password_hash;
}

const login = (on: TestPlatform, email: string, password = testPassword) =>
  call('POST', on.url('/v1/ol/auth/login'), { json: { email, password } });

test('PASSWORD_HASH_COST defaults to minimum in development mode and production otherwise; production allows nothing else', (t) => {
  t.is(resolveConfig({}, {}).passwordHashCost, 'minimum');
  t.is(
    resolveConfig(
      {
        devMode: false,
        serviceApiKey: 'a-service-key-of-16+',
        mailUrl: 'smtp://mail',
        googleClientId: 'g',
        identityHmacKey: 'k',
        paymentSecretKey: 'sk_live_0123456789abcdef',
      },
      {},
    ).passwordHashCost,
    'production',
  );
  t.is(resolveConfig({}, { PASSWORD_HASH_COST: 'production' }).passwordHashCost, 'production');
  t.throws(() => resolveConfig({}, { PASSWORD_HASH_COST: 'cheap' }), {
    instanceOf: ConfigError,
    message: /invalid setting passwordHashCost: expected one of production, minimum/,
  });
  t.throws(() => resolveConfig({ passwordHashCost: 'minimum' }, { NODE_ENV: 'production' }), {
    instanceOf: ConfigError,
    message: /passwordHashCost: only production is allowed when NODE_ENV=production/,
  });
});

test('a development-mode platform stores argon2id hashes at the minimum cost, and signs them in', async (t) => {
  const user = await signUp(dev);
  const hash = await storedHash(user.email);
  t.true(hash.startsWith(minimumParameters), hash);
  t.is((await login(dev, user.email)).status, 200);
  t.is(await storedHash(user.email), hash, 'a hash at the server cost is kept');
});

test('a development-mode hash is upgraded to the production cost by the next sign-in on a production-cost platform of the same database', async (t) => {
  const user = await signUp(dev);
  t.true((await storedHash(user.email)).startsWith(minimumParameters));

  const signedIn = await login(production, user.email);
  t.is(signedIn.status, 200);
  const upgraded = await storedHash(user.email);
  t.true(upgraded.startsWith(productionParameters), upgraded);

  // The upgraded hash is the same password: both platforms sign it in, and the cheaper one never lowers it.
  t.is((await login(production, user.email)).status, 200);
  t.is(await storedHash(user.email), upgraded);
  t.is((await login(dev, user.email)).status, 200);
  t.is(await storedHash(user.email), upgraded);
  t.is((await login(production, user.email, 'Wrong-horse-9')).status, 401);
});

test('a sign-in that fails or is refused leaves a weaker hash as it was', async (t) => {
  const user = await signUp(dev);
  const before = await storedHash(user.email);
  t.is((await login(production, user.email, 'Wrong-horse-9')).status, 401);
  t.is(await storedHash(user.email), before);

  // Right password, but the address was never proven: 403, and no upgrade.
  const email = uniqueEmail('unproven');
  t.is(
    (await call('POST', dev.url('/v1/ol/auth/register'), { json: { email, password: testPassword, intents: ['cap'] } }))
      .status,
    201,
  );
  const unproven = await storedHash(email);
  const refused = await login(production, email);
  t.is(refused.status, 403);
  t.is(refused.body.error.code, 'auth.account_not_verified');
  t.is(await storedHash(email), unproven);
});

test('a production-cost platform hashes new passwords at the production cost', async (t) => {
  const user = await signUp(production);
  t.true((await storedHash(user.email)).startsWith(productionParameters));
});

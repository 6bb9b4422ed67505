import test from 'ava';
import http from 'node:http';
import { createThrottle } from '../../server/orchestrator/accounts/throttle.ts';
import { createSequelize } from '../../server/platform/db/database.ts';
import { sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp, uniqueEmail, type SignedUpUser } from '../helpers/users.ts';

// Attack: locking everyone at one address out. Many people share an address (an office, a QA machine
// running scenarios in rounds, each with its deliberate wrong password): 30 failures among them used
// to refuse every sign-in from it for 15 minutes, correct passwords included. Held: the address limit
// counts only failures on accounts the address never signed in to (guessing across accounts), and
// never holds up an account that signed in from the address before.
let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform();
});
test.after.always(() => platform?.stop());

/** Loopback has many addresses: from 127.0.0.x the server sees another client. The helper signs up from 127.0.0.1. */
function login(email: string, password: string, from: string): Promise<number> {
  const url = new URL(platform.url('/v1/ol/auth/login'));
  const body = JSON.stringify({ email, password });
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress: from,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

test("an address's wrong passwords on accounts it signed in to do not hold up anyone else's sign-in from it", async (t) => {
  const from = '127.0.0.3';
  const users: SignedUpUser[] = await Promise.all(Array.from({ length: 8 }, () => signUp(platform)));
  for (const user of users) {
    t.is(await login(user.email, user.password, from), 200);
    for (let i = 0; i < 4; i++) t.is(await login(user.email, `Wrong-pass-${i}`, from), 401);
  }
  // 32 failures from this address, more than its 30: a newcomer at the address still signs in.
  const newcomer = await signUp(platform);
  t.is(await login(newcomer.email, newcomer.password, from), 200);
});

test('an address past 30 failures on accounts it never signed in to waits, correct passwords included, except for accounts it signed in to', async (t) => {
  const from = '127.0.0.4';
  const [regular, stranger] = await Promise.all([signUp(platform), signUp(platform)]);
  t.is(await login(regular.email, regular.password, from), 200);
  for (let i = 0; i < 30; i++) t.is(await login(uniqueEmail('nobody'), `Guess-pass-${i}`, from), 401);
  t.is(
    await login(stranger!.email, stranger!.password, from),
    429,
    'a right password for an account new to this address tells a guesser nothing',
  );
  t.is(
    await login(regular!.email, regular!.password, from),
    200,
    'someone who signed in from here before is not held up',
  );
  t.is(await login(stranger!.email, stranger!.password, '127.0.0.5'), 200, 'other addresses are not held up');
});

test('a sign-in older than 30 days no longer lets an account through a waiting address, and is pruned', async (t) => {
  const from = '127.0.0.6';
  const user = await signUp(platform);
  t.is(await login(user.email, user.password, from), 200);
  const subject = `account:${user.email}|address:${from}`;
  await sql(platform, "UPDATE ol.auth_known_clients SET signed_in_at = now() - interval '31 days' WHERE subject = $1", [
    subject,
  ]);
  for (let i = 0; i < 30; i++) t.is(await login(uniqueEmail('nobody'), `Guess-pass-${i}`, from), 401);
  t.is(await login(user.email, user.password, from), 429);

  const sequelize = createSequelize(platform.databaseUrl, 'ol', 1);
  try {
    await createThrottle(sequelize).prune();
  } finally {
    await sequelize.close();
  }
  t.deepEqual(await sql(platform, 'SELECT subject FROM ol.auth_known_clients WHERE subject = $1', [subject]), []);
});

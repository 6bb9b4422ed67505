import test, { type ExecutionContext } from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCapctl } from '../helpers/cli.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { testPassword, uniqueEmail } from '../helpers/users.ts';

let platform: TestPlatform;

test.before(async () => {
  platform = await startTestPlatform();
});
test.after.always(() => platform?.stop());

/** Each test gets its own config directory, so profiles never leak between tests. */
function capctl(t: ExecutionContext) {
  const configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-config-'));
  t.teardown(() => fs.rmSync(configDir, { recursive: true, force: true }));
  const env = { CAPCTL_CONFIG_DIR: configDir, CAPCTL_BASE_URL: platform.urls.gateway! };
  return {
    configDir,
    profileFile: (name = 'default') => path.join(configDir, 'profiles', `${name}.json`),
    run: (...args: string[]) => runCapctl(args, env),
    json: async (...args: string[]) => {
      const result = await runCapctl([...args, '--json'], env);
      if (result.code !== 0)
        throw new Error(`capctl ${args.join(' ')} exited ${result.code}: ${result.stdout}${result.stderr}`);
      return JSON.parse(result.stdout);
    },
  };
}

async function registeredAndVerified(cli: ReturnType<typeof capctl>, email = uniqueEmail('cli')) {
  await cli.json('register', '--email', email, '--password', testPassword);
  await cli.json('verify', '--email', email);
  return email;
}

test('register, verify from the dev mailbox, whoami, me, logout: the new-user path', async (t) => {
  const cli = capctl(t);
  const email = uniqueEmail('cli');
  const registered = await cli.json('register', '--email', email, '--password', testPassword, '--intent', 'cap');
  t.like(registered, { email, status: 'pending_verification' });

  const verified = await cli.json('verify', '--email', email);
  t.like(verified, { profile: 'default', user: { email, status: 'active' } });
  const profile = JSON.parse(fs.readFileSync(cli.profileFile(), 'utf8'));
  t.like(profile, { email, userId: registered.userId, baseUrl: platform.urls.gateway });
  t.truthy(profile.accessToken);
  t.truthy(profile.refreshToken);
  t.is(fs.statSync(cli.profileFile()).mode & 0o777, 0o600);

  t.like(await cli.json('whoami'), { userId: registered.userId, email, intents: ['cap'] });
  const me = await cli.json('me', '--service', 'cap');
  t.is(typeof me.identityVerified, 'boolean');
  t.true(Array.isArray(me.centres));

  const out = await cli.run('logout');
  t.is(out.code, 0, out.stderr);
  t.regex(out.stdout, /signed out/);
  t.false(fs.existsSync(cli.profileFile()));
  const after = await cli.run('whoami');
  t.is(after.code, 2);
  t.regex(after.stderr, /not signed in/);
});

test('login saves the session under its profile, and a wrong password exits 1 with the server code', async (t) => {
  const cli = capctl(t);
  const email = await registeredAndVerified(cli);
  const login = await cli.run('login', '--email', email, '--password', testPassword, '--profile', 'second');
  t.is(login.code, 0, login.stderr);
  t.regex(login.stdout, new RegExp(`signed in as ${email.replace(/[.+]/g, '\\$&')}.*profile second`));
  t.true(fs.existsSync(cli.profileFile('second')));

  const wrong = await cli.run('login', '--email', email, '--password', 'Not-the-password-1');
  t.is(wrong.code, 1);
  t.regex(wrong.stderr, /^auth\.[a-z_]+: /);
  const wrongJson = await runCapctl(['login', '--email', email, '--password', 'Not-the-password-1', '--json'], {
    CAPCTL_CONFIG_DIR: cli.configDir,
    CAPCTL_BASE_URL: platform.urls.gateway!,
  });
  t.is(wrongJson.code, 1);
  t.like(JSON.parse(wrongJson.stdout), { error: { status: 401 } });
});

test('an access token the server refuses is renewed through refresh, and the new pair is saved', async (t) => {
  const cli = capctl(t);
  await registeredAndVerified(cli);
  const before = JSON.parse(fs.readFileSync(cli.profileFile(), 'utf8'));
  fs.writeFileSync(cli.profileFile(), JSON.stringify({ ...before, accessToken: 'x.e30.x' }), { mode: 0o600 });

  const me = await cli.json('me', '--service', 'cap');
  t.true(Array.isArray(me.centres));
  const renewed = JSON.parse(fs.readFileSync(cli.profileFile(), 'utf8'));
  t.not(renewed.refreshToken, before.refreshToken);
  t.not(renewed.accessToken, 'x.e30.x');

  fs.writeFileSync(cli.profileFile(), JSON.stringify({ ...renewed, accessToken: 'x.e30.x' }), { mode: 0o600 });
  t.like(await cli.json('whoami'), { userId: before.userId });
  t.not(JSON.parse(fs.readFileSync(cli.profileFile(), 'utf8')).refreshToken, renewed.refreshToken);
});

test('a session the server has ended asks the person to sign in again', async (t) => {
  const cli = capctl(t);
  await registeredAndVerified(cli);
  const stale = fs.readFileSync(cli.profileFile(), 'utf8');
  t.is((await cli.run('logout')).code, 0);
  fs.mkdirSync(path.dirname(cli.profileFile()), { recursive: true });
  fs.writeFileSync(cli.profileFile(), stale.replace(/"accessToken": "[^"]+"/, '"accessToken": "x.e30.x"'), {
    mode: 0o600,
  });
  const result = await cli.run('whoami');
  t.is(result.code, 1);
  t.regex(result.stderr, /session of profile default has ended.*capctl login/);
});

test('missing values are usage errors when stdin is not a terminal', async (t) => {
  const cli = capctl(t);
  const noPassword = await cli.run('register', '--email', uniqueEmail('cli'));
  t.is(noPassword.code, 2);
  t.regex(noPassword.stderr, /--password is required/);
  const noEmail = await cli.run('login');
  t.is(noEmail.code, 2);
  t.regex(noEmail.stderr, /--email is required/);
  const badService = await cli.run('me', '--service', 'ol');
  t.is(badService.code, 2);
});

test('capctl mail shows the dev mailbox and the OTP it carries; mail last --wait waits for the first mail', async (t) => {
  const cli = capctl(t);
  const email = uniqueEmail('cli');
  await cli.json('register', '--email', email, '--password', testPassword);
  const last = await cli.json('mail', 'last', '--to', email, '--wait', '10');
  t.like(last, { to: email, template: 'account_verify' });
  t.regex(last.otp, /^\d{4}$/);
  const human = await cli.run('mail', 'last', '--to', email);
  t.regex(human.stdout, new RegExp(`^otp: ${last.otp}$`, 'm'));
  t.deepEqual(
    (await cli.json('mail', 'ls', '--to', email)).map((m: { id: string }) => m.id),
    [last.id],
  );

  const none = await cli.run('mail', 'last', '--to', uniqueEmail('nobody'));
  t.is(none.code, 1);
  t.regex(none.stderr, /no mail for/);
  t.is((await cli.run('mail', 'last', '--to', email, '--wait', '61')).code, 2, '--wait is at most 60 seconds');
});

test('verify with a wrong code exits 1 with the server code and saves no session', async (t) => {
  const cli = capctl(t);
  const email = uniqueEmail('cli');
  await cli.json('register', '--email', email, '--password', testPassword);
  const { otp } = await cli.json('mail', 'last', '--to', email, '--wait', '10');
  const wrong = await cli.run('verify', '--email', email, '--otp', otp === '0000' ? '1111' : '0000');
  t.is(wrong.code, 1);
  t.regex(wrong.stderr, /^[a-z_]+\.[a-z_.]+: /);
  t.false(fs.existsSync(cli.profileFile()));
});

test('an unreachable platform exits 3', async (t) => {
  const cli = capctl(t);
  const result = await cli.run(
    'login',
    '--email',
    'a@example.test',
    '--password',
    testPassword,
    '--base-url',
    'http://127.0.0.1:1',
  );
  t.is(result.code, 3);
  t.regex(result.stderr, /cannot reach/);
});

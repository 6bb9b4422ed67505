import test, { type ExecutionContext } from 'ava';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCapctl, startServe, type RunningServe } from '../helpers/cli.ts';
import { call } from '../helpers/platform.ts';
import { testPassword, uniqueEmail } from '../helpers/users.ts';

// capctl admin create, centre create, staff add|ls and identity verify against a running `capctl serve`
// on its own embedded database, as a new user would run them.

const freePorts = [
  '--port',
  '0',
  '--ol-port',
  '0',
  '--cap-port',
  '0',
  '--lms-port',
  '0',
  '--grpc-port',
  '0',
  '--lms-grpc-port',
  '0',
];
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-centre-'));
let serve: RunningServe;

test.before(async () => {
  serve = await startServe(['--data-dir', dataDir, ...freePorts], { DATABASE_URL: '' });
});
test.after.always(async () => {
  await serve?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** capctl with its own config directory (profiles), pointed at the running serve. */
function capctl(t: ExecutionContext) {
  const configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-config-'));
  t.teardown(() => fs.rmSync(configDir, { recursive: true, force: true }));
  const env = { CAPCTL_CONFIG_DIR: configDir, CAPCTL_BASE_URL: serve.urls.gateway!, DATABASE_URL: '' };
  const run = (...args: string[]) => runCapctl(args, env);
  const json = async (...args: string[]) => {
    const result = await runCapctl([...args, '--json'], env);
    if (result.code !== 0)
      throw new Error(`capctl ${args.join(' ')} exited ${result.code}: ${result.stdout}${result.stderr}`);
    return JSON.parse(result.stdout);
  };
  const profile = (name: string) =>
    JSON.parse(fs.readFileSync(path.join(configDir, 'profiles', `${name}.json`), 'utf8'));
  return {
    run,
    json,
    profile,
    adminCreate: (...args: string[]) =>
      run('admin', 'create', '--data-dir', dataDir, '--grpc-address', serve.urls.grpc!, ...args),
    /** Signs in with the password in the newest mail, changes it, and signs in again with the new one. */
    async firstSignIn(email: string, profileName: string) {
      const { password } = await json('mail', 'last', '--to', email);
      const login = await run('login', '--email', email, '--password', password, '--profile', profileName);
      if (login.code !== 0) throw new Error(`login: ${login.stderr}`);
      const changed = await call('PATCH', `${serve.urls.gateway}/v1/ol/auth/change-password`, {
        token: profile(profileName).accessToken,
        json: { currentPassword: password, newPassword: testPassword },
      });
      if (changed.status !== 200) throw new Error(`change-password: ${changed.text}`);
      await json('login', '--email', email, '--password', testPassword, '--profile', profileName);
      return login;
    },
  };
}

const nin = (prefix: string) => `${prefix}${String(crypto.randomInt(0, 1e8)).padStart(8, '0')}`;

test('admin create against a running serve provisions the account (password by mail) and grants platform_admin; again, it changes nothing', async (t) => {
  const cli = capctl(t);
  const email = uniqueEmail('admin');
  const first = await cli.adminCreate('--email', email, '--name', 'Grace Admin', '--json');
  t.is(first.code, 0, first.stderr);
  t.like(JSON.parse(first.stdout), { email, role: 'platform_admin', newAccount: true, granted: true });
  t.truthy((await cli.json('mail', 'last', '--to', email)).password);

  const again = await cli.adminCreate('--email', email);
  t.is(again.code, 0, again.stderr);
  t.regex(again.stdout, /already holds platform_admin/);
  t.regex(again.stdout, /existing account/);
});

test('as a new user would: admin create, centre create, staff add; the member signs in, changes the password and sees the centre', async (t) => {
  const cli = capctl(t);
  const adminEmail = uniqueEmail('admin');
  t.is((await cli.adminCreate('--email', adminEmail)).code, 0);
  const adminLogin = await cli.firstSignIn(adminEmail, 'admin');
  t.regex(adminLogin.stderr, /must change its password/);

  const founderEmail = uniqueEmail('founder');
  const centre = await cli.json(
    'centre',
    'create',
    '--profile',
    'admin',
    '--name',
    'Kano Craft Centre',
    '--registration-no',
    'RC-7781',
    '--admin-name',
    'Sani Lawal',
    '--admin-email',
    founderEmail,
  );
  t.like(centre, { name: 'Kano Craft Centre', status: 'approved', superAdmin: { email: founderEmail } });

  await cli.firstSignIn(founderEmail, 'founder');
  const memberEmail = uniqueEmail('member');
  const added = await cli.run(
    'staff',
    'add',
    '--profile',
    'founder',
    '--centre',
    centre.id,
    '--name',
    'Ife Ojo',
    '--email',
    memberEmail,
    '--role',
    'staff',
  );
  t.is(added.code, 0, added.stderr);
  t.regex(added.stdout, new RegExp(`added ${memberEmail.replace(/[.+]/g, '\\$&')} as staff \\(pending`));

  const memberLogin = await cli.firstSignIn(memberEmail, 'member');
  t.regex(memberLogin.stderr, /must change its password/);
  const me = await cli.json('me', '--service', 'cap', '--profile', 'member');
  t.deepEqual(me.centres, [{ centreId: centre.id, name: 'Kano Craft Centre', role: 'staff', status: 'operable' }]);

  const staff = await cli.json('staff', 'ls', '--profile', 'founder');
  t.deepEqual(
    staff.map((s: { email: string; status: string }) => [s.email, s.status]),
    [
      [memberEmail, 'active'],
      [founderEmail, 'active'],
    ],
  );
  const refused = await cli.run(
    'staff',
    'add',
    '--profile',
    'member',
    '--name',
    'Not Allowed',
    '--email',
    uniqueEmail('x'),
    '--role',
    'staff',
  );
  t.is(refused.code, 1);
  t.regex(refused.stderr, /^centre\.role_forbidden: /);
});

test('centre create by someone who is no platform admin exits 1 with auth.permission_denied', async (t) => {
  const cli = capctl(t);
  const email = uniqueEmail('plain');
  await cli.json('register', '--email', email, '--password', testPassword);
  await cli.json('verify', '--email', email);
  const res = await cli.run(
    'centre',
    'create',
    '--name',
    'No Centre',
    '--registration-no',
    'RC-1',
    '--admin-name',
    'A B',
    '--admin-email',
    uniqueEmail('y'),
  );
  t.is(res.code, 1);
  t.regex(res.stderr, /^auth\.permission_denied: /);
});

test('identity verify uses the stored session: exit 0 when verified, 1 when not, 2 for a number that is not 11 digits', async (t) => {
  const cli = capctl(t);
  const email = uniqueEmail('verify');
  await cli.json('register', '--email', email, '--password', testPassword);
  await cli.json('verify', '--email', email);
  await call('PATCH', `${serve.urls.gateway}/v1/cap/me/profile`, {
    token: cli.profile('default').accessToken,
    json: { personalDetails: { firstName: 'Ada', lastName: 'Obi', dob: '1990-04-12' } },
  });

  const verified = await cli.run('identity', 'verify', '--nin', nin('100'));
  t.is(verified.code, 0, verified.stderr);
  t.regex(verified.stdout, /^verified by sandbox at \d{4}-/);
  const mismatch = await cli.run('identity', 'verify', '--nin', nin('200'), '--json');
  t.is(mismatch.code, 1);
  t.like(JSON.parse(mismatch.stdout).error, {
    status: 422,
    code: 'identity.not_verified',
    details: [{ field: 'identificationNumber', issue: 'name_mismatch' }],
  });
  t.is((await cli.run('identity', 'verify', '--nin', '123')).code, 2);
  t.true((await cli.json('me', '--service', 'cap')).identityVerified);
});

test('admin create with no serve running on the data directory exits 3 and says so', async (t) => {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-empty-'));
  t.teardown(() => fs.rmSync(empty, { recursive: true, force: true }));
  const res = await runCapctl(['admin', 'create', '--email', uniqueEmail('nobody'), '--data-dir', empty], {
    DATABASE_URL: '',
  });
  t.is(res.code, 3);
  t.regex(res.stderr, /no capctl serve is running on data directory/);
});

test('commands that need a session exit 2 without one', async (t) => {
  const cli = capctl(t);
  for (const args of [
    ['staff', 'ls'],
    ['identity', 'verify', '--nin', nin('100')],
    [
      'centre',
      'create',
      '--name',
      'N',
      '--registration-no',
      'R',
      '--admin-name',
      'A',
      '--admin-email',
      'a@example.test',
    ],
  ]) {
    const res = await cli.run(...args);
    t.is(res.code, 2, args.join(' '));
    t.regex(res.stderr, /not signed in/);
  }
});

test('admin centres list|suspend|approve moderate centres as the signed-in platform admin; several ids change all or none', async (t) => {
  const cli = capctl(t);
  const adminEmail = uniqueEmail('admin');
  await cli.adminCreate('--email', adminEmail);
  await cli.firstSignIn(adminEmail, 'admin');
  const made = [];
  for (const name of ['Jos Crafts', 'Ilorin Works']) {
    made.push(
      await cli.json(
        'centre',
        'create',
        '--profile',
        'admin',
        '--name',
        name,
        '--registration-no',
        `RC-${crypto.randomUUID()}`,
        '--admin-name',
        'A B',
        '--admin-email',
        uniqueEmail('f'),
      ),
    );
  }
  const ids = made.map((c) => c.id as string);
  const suspended = await cli.json('admin', 'centres', 'suspend', ...ids, '--profile', 'admin');
  t.deepEqual(
    suspended.map((c: { status: string }) => c.status),
    ['suspended', 'suspended'],
  );
  const listed = await cli.json('admin', 'centres', 'list', '--status', 'suspended', '--profile', 'admin');
  t.true(ids.every((id) => listed.some((c: { id: string }) => c.id === id)));
  const plain = await cli.run('admin', 'centres', 'approve', ids[0]!, '--profile', 'admin');
  t.is(plain.code, 0, plain.stderr);
  t.regex(plain.stdout, /^approved: Jos Crafts/);
  const deleted = await cli.run('admin', 'centres', 'delete', ids[0]!, '--profile', 'admin');
  t.is(deleted.code, 0, 'an unused centre (only its super admin) is deleted');
});

test('capctl invitations list|accept: someone who already had an account accepts the centre that invited them', async (t) => {
  const cli = capctl(t);
  const adminEmail = uniqueEmail('admin');
  await cli.adminCreate('--email', adminEmail);
  await cli.firstSignIn(adminEmail, 'admin');
  const founderEmail = uniqueEmail('founder');
  const centre = await cli.json(
    'centre',
    'create',
    '--profile',
    'admin',
    '--name',
    'Abeokuta Works',
    '--registration-no',
    `RC-${crypto.randomUUID()}`,
    '--admin-name',
    'A B',
    '--admin-email',
    founderEmail,
  );
  await cli.firstSignIn(founderEmail, 'founder');
  const existingEmail = uniqueEmail('existing');
  await cli.json('register', '--email', existingEmail, '--password', testPassword);
  await cli.json('verify', '--email', existingEmail, '--profile', 'existing');
  await cli.json(
    'staff',
    'add',
    '--profile',
    'founder',
    '--centre',
    centre.id,
    '--name',
    'Kemi',
    '--email',
    existingEmail,
    '--role',
    'staff',
  );
  const [invitation] = await cli.json('invitations', 'list', '--profile', 'existing');
  t.like(invitation, { kind: 'centre', organisationName: 'Abeokuta Works', role: 'staff' });
  const accepted = await cli.run('invitations', 'accept', invitation.id, '--profile', 'existing');
  t.is(accepted.code, 0, accepted.stderr);
  const me = await cli.json('me', '--service', 'cap', '--profile', 'existing');
  t.like(me.centres, [{ centreId: centre.id, status: 'operable' }]);
});

import test from 'ava';
import { runCapctl } from '../helpers/cli.ts';
import { lms, onboard } from '../helpers/lms.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp } from '../helpers/users.ts';

// `capctl lms staff invite`: the operator's way to the first LMS staff of a running platform.
let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform();
});
test.after.always(async () => {
  await platform?.stop();
});

test('capctl lms staff invite lets the address become staff with the role through the staff onboarding; again, it changes nothing', async (t) => {
  const user = await signUp(platform);
  const invite = (...extra: string[]) =>
    runCapctl([
      'lms',
      'staff',
      'invite',
      '--email',
      user.email.toUpperCase(),
      '--database-url',
      platform.databaseUrl,
      ...extra,
    ]);
  const first = await invite('--role', 'support', '--json');
  t.is(first.code, 0, first.stderr);
  t.deepEqual(JSON.parse(first.stdout), { email: user.email, role: 'support', invited: true });
  const again = await invite('--role', 'support');
  t.is(again.code, 0, again.stderr);
  t.regex(again.stdout, /already invited or staff: nothing changed/);

  await onboard(platform, user, 'staff');
  t.is((await lms(platform, user, 'GET', '/me')).body.data.staffRole, 'support');
});

test('capctl lms staff invite without a running platform exits 3; with an unknown role, 2', async (t) => {
  const none = await runCapctl([
    'lms',
    'staff',
    'invite',
    '--email',
    'x@example.test',
    '--data-dir',
    '/nonexistent/capctl',
  ]);
  t.is(none.code, 3);
  t.regex(none.stderr, /no capctl serve is running/);
  const role = await runCapctl([
    'lms',
    'staff',
    'invite',
    '--email',
    'x@example.test',
    '--role',
    'owner',
    '--database-url',
    platform.databaseUrl,
  ]);
  t.is(role.code, 2);
});

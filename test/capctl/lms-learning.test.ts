import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCapctl } from '../helpers/cli.ts';
import { lms, lmsInstructor, lmsLearner, lmsStaff } from '../helpers/lms.ts';
import { lmsCourse, lmsDatabase } from '../helpers/lms-learning.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { testPassword, type SignedUpUser } from '../helpers/users.ts';

// `capctl lms enroll` (enrol, and check out a paid course) and `capctl lms scorm upload` (the bundled
// package or a file, attached as an item when asked), as signed-in users.
let platform: TestPlatform;
let db: ReturnType<typeof lmsDatabase>;
const configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-lms-'));

test.before(async () => {
  platform = await startTestPlatform();
  db = lmsDatabase(platform);
});
test.after.always(async () => {
  fs.rmSync(configDir, { recursive: true, force: true });
  await db?.close();
  await platform?.stop();
});

const capctl = (...args: string[]) =>
  runCapctl(args, { CAPCTL_CONFIG_DIR: configDir, CAPCTL_BASE_URL: platform.urls.gateway! });
async function login(user: SignedUpUser, profile: string) {
  const result = await capctl('login', '--email', user.email, '--password', testPassword, '--profile', profile);
  if (result.code !== 0) throw new Error(result.stderr);
}

test('capctl lms enroll checks out a paid course, and capctl pay on the printed URL activates the enrollment', async (t) => {
  const learner = await lmsLearner(platform);
  await login(learner, 'learner');
  const { courseId } = await lmsCourse(db.sequelize, {
    createdBy: learner.lmsUserId,
    priceMinorUnits: '1200000',
    items: [{ type: 'native_lesson' }],
  });
  const enrolled = await capctl('lms', 'enroll', courseId, '--profile', 'learner', '--json');
  t.is(enrolled.code, 0, enrolled.stderr);
  const { enrollment, checkout } = JSON.parse(enrolled.stdout);
  t.like(enrollment, { courseId, status: 'pending' });
  t.like(checkout, { amount: { amountMinorUnits: '1200000', currency: 'NGN' } });
  const paid = await capctl('pay', checkout.checkoutUrl);
  t.is(paid.code, 0, paid.stderr);
  await eventually(
    'the enrollment is active',
    async () => (await lms(platform, learner, 'GET', `/enrollments/${enrollment.id}`)).body.data.status === 'active',
  );
  const again = await capctl('lms', 'enroll', courseId, '--profile', 'learner');
  t.is(again.code, 1);
  t.regex(again.stderr, /lms\.enrollment\.exists/);
});

test('capctl lms scorm upload sends the bundled package and attaches it as a SCORM item', async (t) => {
  const instructor = await lmsInstructor(platform, await lmsStaff(platform));
  await login(instructor, 'author');
  const courseId = (
    await lms(platform, instructor, 'POST', '/authoring/courses', {
      title: 'Workshop safety',
      price: { amountMinorUnits: '0', currency: 'NGN' },
    })
  ).body.data.id;
  const moduleId = (
    await lms(platform, instructor, 'POST', `/authoring/courses/${courseId}/modules`, { title: 'Basics' })
  ).body.data.id;
  const result = await capctl(
    'lms',
    'scorm',
    'upload',
    '--module',
    `${courseId}/${moduleId}`,
    '--title',
    'Safety basics',
    '--profile',
    'author',
  );
  t.is(result.code, 0, result.stderr);
  t.regex(
    result.stdout,
    /^package [0-9A-HJKMNP-TV-Z]{26} \(workshop-safety\.zip, \d+ bytes\)\nitem [0-9A-HJKMNP-TV-Z]{26} launches index\.html\n$/,
  );

  const bad = path.join(configDir, 'not-a-package.zip');
  fs.writeFileSync(bad, Buffer.from('504b0506000000000000000000000000000000000000', 'hex')); // an empty zip: no manifest
  const refused = await capctl(
    'lms',
    'scorm',
    'upload',
    bad,
    '--module',
    `${courseId}/${moduleId}`,
    '--profile',
    'author',
  );
  t.is(refused.code, 1);
  t.regex(refused.stderr, /lms\.scorm\.invalid_package/);
});

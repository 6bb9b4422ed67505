import test from 'ava';
import type { Browser } from 'playwright-core';
import { browserTest, browserUnavailable, launchChromium, serveSite } from '../helpers/browser.ts';
import { lmsLearner, type LmsPerson } from '../helpers/lms.ts';
import { lmsCourse, lmsDatabase, uploadSamplePackage } from '../helpers/lms-learning.ts';
import { call, eventually, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';

// The bundled SCORM 1.2 package played in headless Chromium through the LMS's player page, framed by
// a web client on its own origin as the real clients do: the package talks to the player's SCORM API,
// and what it reports (status, score, suspend data) is what the LMS records.

const it = browserTest(test);
let platform: TestPlatform;
let db: ReturnType<typeof lmsDatabase>;
let browser: Browser | undefined;
let site: Awaited<ReturnType<typeof serveSite>> | undefined;
let packageAssetId: string;
let author: LmsPerson;

test.before(async () => {
  if (browserUnavailable()) return;
  platform = await startTestPlatform();
  db = lmsDatabase(platform);
  author = await lmsLearner(platform);
  packageAssetId = await uploadSamplePackage(platform, author);
  // The web client: a page that frames whatever player URL it is given.
  site = await serveSite({
    '/learn.html': {
      type: 'text/html',
      body: `<!doctype html><title>Course</title><iframe id="player" style="width:900px;height:700px"></iframe>
        <script>document.getElementById('player').src = new URL(location.href).searchParams.get('player');</script>`,
    },
  });
  browser = await launchChromium();
});
test.after.always(async () => {
  await browser?.close();
  await site?.close();
  await db?.close();
  await platform?.stop();
});

async function enrolledInScormCourse() {
  const learner = await lmsLearner(platform);
  const { courseId, itemIds } = await lmsCourse(db.sequelize, {
    createdBy: author.lmsUserId,
    items: [{ type: 'scorm_package', title: 'Workshop safety basics', packageAssetId }],
  });
  const enrollmentId = await db.grant(courseId, learner.lmsUserId);
  return { learner, enrollmentId, itemId: itemIds[0]! };
}

async function launch(learner: LmsPerson, enrollmentId: string, itemId: string) {
  const res = await call('POST', platform.url(`/v1/lms/enrollments/${enrollmentId}/items/${itemId}/launch`), {
    token: learner.accessToken,
  });
  if (res.status !== 200) throw new Error(`launch: ${res.status} ${res.text}`);
  return res.body.data as { sessionId: string; launchUrl: string; playerUrl: string };
}

/** Opens the web client's course page framing the player; answers the SCO's frame (the package's index.html). */
async function openPlayer(playerUrl: string) {
  // 127.0.0.1 like the API: another origin, the same site (the content cookie is SameSite=Lax over plain HTTP).
  const page = await browser!.newPage();
  const client = site!.origin.replace('localhost', '127.0.0.1');
  await page.goto(`${client}/learn.html?player=${encodeURIComponent(playerUrl)}`);
  const sco = page.frameLocator('#player').frameLocator('#sco');
  return { page, sco };
}

it('the package plays through the player page: the quiz score and status it reports are what the LMS records', async (t) => {
  const { learner, enrollmentId, itemId } = await enrolledInScormCourse();
  const session = await launch(learner, enrollmentId, itemId);
  const { page, sco } = await openPlayer(session.playerUrl);
  t.teardown(() => page.close());
  await sco.locator('#position').filter({ hasText: 'Page 1 of 3' }).waitFor();
  await sco.frameLocator('#page').locator('#welcome').waitFor();
  await sco.locator('#next').click();
  await sco.locator('#next').click();
  await sco.locator('#position').filter({ hasText: 'Page 3 of 3' }).waitFor();
  const quiz = sco.frameLocator('#page');
  await quiz.locator('input[name=q1][value=b]').check();
  await quiz.locator('input[name=q2][value=a]').check();
  await quiz.locator('input[name=q3][value=a]').check(); // wrong: 2 of 3
  await quiz.locator('#submit').click();
  await quiz.locator('#result').filter({ hasText: 'You scored 67%: not passed yet' }).waitFor();
  let progress = await call('GET', platform.url(`/v1/lms/enrollments/${enrollmentId}/progress`), {
    token: learner.accessToken,
  });
  t.like(progress.body.data.items[0], { itemId, status: 'failed', scorePercent: 67 });

  await quiz.locator('input[name=q3][value=b]').check();
  await quiz.locator('#submit').click();
  await quiz.locator('#result').filter({ hasText: 'You scored 100%: passed' }).waitFor();
  progress = await call('GET', platform.url(`/v1/lms/enrollments/${enrollmentId}/progress`), {
    token: learner.accessToken,
  });
  t.like(progress.body.data.items[0], { itemId, status: 'completed', scorePercent: 100 });
  t.like(progress.body.data, { percentComplete: 100, enrollmentStatus: 'completed' });
  const recorded = await call('GET', session.launchUrl, { token: learner.accessToken });
  t.like(recorded.body.data.cmi, {
    lessonStatus: 'passed',
    scoreRaw: 100,
    scoreMax: 100,
    location: 'pages/3-quiz.html',
    suspendData: '{"page":2}',
  });
  t.regex(recorded.body.data.cmi.sessionTime, /^\d{2,4}:\d{2}:\d{2}(\.\d+)?$/);
});

it('leaving and launching again resumes the package where the learner left it, from suspend_data', async (t) => {
  const { learner, enrollmentId, itemId } = await enrolledInScormCourse();
  const first = await launch(learner, enrollmentId, itemId);
  const opened = await openPlayer(first.playerUrl);
  await opened.sco.locator('#next').click();
  await opened.sco.locator('#position').filter({ hasText: 'Page 2 of 3' }).waitFor();
  await opened.sco.locator('#exit').click(); // Save and exit: LMSFinish
  await opened.page.close();
  await eventually('the suspend data is recorded', async () => {
    const session = await call('GET', first.launchUrl, { token: learner.accessToken });
    return session.body.data.cmi?.suspendData === '{"page":1}';
  });

  const second = await launch(learner, enrollmentId, itemId);
  const again = await openPlayer(second.playerUrl);
  t.teardown(() => again.page.close());
  await again.sco.locator('#position').filter({ hasText: 'Page 2 of 3' }).waitFor();
  await again.sco.frameLocator('#page').locator('#hazards').waitFor();
  t.is(await again.sco.locator('#back').isDisabled(), false);
  const session = await call('GET', second.launchUrl, { token: learner.accessToken });
  t.like(session.body.data.cmi, {
    lessonStatus: 'incomplete',
    suspendData: '{"page":1}',
    location: 'pages/2-hazards.html',
  });
});

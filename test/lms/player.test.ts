import test from 'ava';
import { call, sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { lmsLearner, type LmsPerson } from '../helpers/lms.ts';
import { lmsCourse, lmsDatabase, uploadSamplePackage } from '../helpers/lms-learning.ts';

// The player over HTTP: launching items, the SCORM session (player page, package files, content
// token, CMI commits turned into progress, resume), sequencing locks and the completion policy.
let platform: TestPlatform;
let db: ReturnType<typeof lmsDatabase>;
let author: LmsPerson;
let packageAssetId: string;

test.before(async () => {
  platform = await startTestPlatform();
  db = lmsDatabase(platform);
  author = await lmsLearner(platform);
  packageAssetId = await uploadSamplePackage(platform, author);
});
test.after.always(async () => {
  await db?.close();
  await platform?.stop();
});

const lms = (path: string) => platform.url(`/v1/lms${path}`);

/** A learner enrolled (granted) in a fresh course of a SCORM item then a lesson, the lesson locked behind the SCORM item. */
async function enrolled(options: { requires?: Record<number, number[]> } = {}) {
  const learner = await lmsLearner(platform);
  const course = await lmsCourse(db.sequelize, {
    createdBy: author.lmsUserId,
    items: [
      { type: 'scorm_package', title: 'Workshop safety basics', packageAssetId },
      { type: 'native_lesson', title: 'Wrap-up' },
    ],
    requires: options.requires ?? { 1: [0] },
  });
  const enrollmentId = await db.grant(course.courseId, learner.lmsUserId);
  return { learner, enrollmentId, ...course };
}

async function launchScorm(learner: LmsPerson, enrollmentId: string, itemId: string) {
  const res = await call('POST', lms(`/enrollments/${enrollmentId}/items/${itemId}/launch`), {
    token: learner.accessToken,
  });
  if (res.status !== 200) throw new Error(`launch: ${res.status} ${res.text}`);
  return res.body.data as { sessionId: string; launchUrl: string; playerUrl: string; contentBaseUrl: string };
}

const token = (playerUrl: string) => new URL(playerUrl).searchParams.get('ct')!;

test('launching a SCORM item opens a session whose URLs are on the host and prefix the launch was called on', async (t) => {
  const { learner, enrollmentId, itemIds } = await enrolled();
  const launch = await launchScorm(learner, enrollmentId, itemIds[0]!);
  const base = lms('');
  t.is(launch.launchUrl, `${base}/player/scorm/${launch.sessionId}`);
  t.true(launch.playerUrl.startsWith(`${base}/player/scorm/${launch.sessionId}/player?ct=`));
  t.is(launch.contentBaseUrl, `${base}/player/scorm/${launch.sessionId}/content/`);
  const session = await call('GET', launch.launchUrl, { token: learner.accessToken });
  t.is(session.status, 200);
  t.like(session.body.data, {
    sessionId: launch.sessionId,
    enrollmentId,
    itemId: itemIds[0],
    packageAssetId,
    scoHref: 'index.html',
  });
  t.false('cmi' in session.body.data, 'no CMI before the first commit: the package starts cold');
  const progress = await call('GET', lms(`/enrollments/${enrollmentId}/progress`), { token: learner.accessToken });
  t.like(progress.body.data.items[0], { itemId: itemIds[0], status: 'in_progress', locked: false });
});

test('the player page is HTML with the SCORM 1.2 API, framed content and the content token as a cookie', async (t) => {
  const { learner, enrollmentId, itemIds } = await enrolled();
  const launch = await launchScorm(learner, enrollmentId, itemIds[0]!);
  const page = await call('GET', launch.playerUrl);
  t.is(page.status, 200);
  t.regex(String(page.headers['content-type']), /^text\/html/);
  t.regex(page.text, /Scorm12API/);
  t.regex(page.text, /"scoUrl":"content\/index.html"/);
  t.regex(String(page.headers['content-security-policy']), /frame-ancestors 'self' http:\/\/localhost:\*/);
  t.regex(
    String(page.headers['set-cookie']),
    new RegExp(`^lms_scorm_ct=${token(launch.playerUrl)}; Path=/v1/lms/player/scorm/${launch.sessionId}/; .*HttpOnly`),
  );
});

test('the player opened with a bearer token gets a fresh content token, which replaces the one in playerUrl', async (t) => {
  const { learner, enrollmentId, itemIds } = await enrolled();
  const launch = await launchScorm(learner, enrollmentId, itemIds[0]!);
  const page = await call('GET', `${launch.launchUrl}/player`, { token: learner.accessToken });
  t.is(page.status, 200);
  const fresh = /"contentToken":"([^"]+)"/.exec(page.text)![1]!;
  t.not(fresh, token(launch.playerUrl));
  t.is(
    (await call('GET', `${launch.contentBaseUrl}index.html`, { headers: { 'x-elimi-scorm-token': fresh } })).status,
    200,
  );
  t.is(
    (
      await call('GET', `${launch.contentBaseUrl}index.html`, {
        headers: { 'x-elimi-scorm-token': token(launch.playerUrl) },
      })
    ).status,
    401,
  );
});

test('package files are served from the extracted package with the content token, nested paths included', async (t) => {
  const { learner, enrollmentId, itemIds } = await enrolled();
  const launch = await launchScorm(learner, enrollmentId, itemIds[0]!);
  const ct = token(launch.playerUrl);
  const byCookie = await call('GET', `${launch.contentBaseUrl}pages/3-quiz.html`, {
    headers: { cookie: `lms_scorm_ct=${ct}` },
  });
  t.is(byCookie.status, 200);
  t.regex(String(byCookie.headers['content-type']), /^text\/html/);
  t.regex(byCookie.text, /recordQuiz/);
  const byHeader = await call('GET', `${launch.contentBaseUrl}sco.js`, { headers: { 'x-elimi-scorm-token': ct } });
  t.is(byHeader.status, 200);
  t.regex(String(byHeader.headers['content-type']), /^text\/javascript/);
  const byBearer = await call('GET', `${launch.contentBaseUrl}style.css`, { token: learner.accessToken });
  t.is(byBearer.status, 200);
  const root = await call('GET', launch.contentBaseUrl, { headers: { cookie: `lms_scorm_ct=${ct}` } });
  t.is(root.status, 302);
  t.is(root.headers.location, `/v1/lms/player/scorm/${launch.sessionId}/content/index.html`);
});

test("package files need a bearer token or the session's content token", async (t) => {
  const { learner, enrollmentId, itemIds } = await enrolled();
  const launch = await launchScorm(learner, enrollmentId, itemIds[0]!);
  const none = await call('GET', `${launch.contentBaseUrl}index.html`);
  t.is(none.status, 401);
  t.is(none.body.error.code, 'auth.unauthenticated');
  const forged = await call('GET', `${launch.contentBaseUrl}index.html`, {
    headers: { 'x-elimi-scorm-token': 'not-a-token' },
  });
  t.is(forged.status, 401);
  const player = await call('GET', `${launch.launchUrl}/player`);
  t.is(player.status, 401);
});

test('a content token opens its own session only', async (t) => {
  const first = await enrolled();
  const second = await enrolled();
  const mine = await launchScorm(first.learner, first.enrollmentId, first.itemIds[0]!);
  const theirs = await launchScorm(second.learner, second.enrollmentId, second.itemIds[0]!);
  const res = await call('GET', `${theirs.contentBaseUrl}index.html`, {
    headers: { 'x-elimi-scorm-token': token(mine.playerUrl) },
  });
  t.is(res.status, 403);
  t.is(res.body.error.code, 'auth.out_of_scope');
  const commit = await call('POST', `${theirs.launchUrl}/cmi`, {
    headers: { 'x-elimi-scorm-token': token(mine.playerUrl) },
    json: { lessonStatus: 'passed' },
  });
  t.is(commit.status, 403);
  const bearer = await call('GET', theirs.launchUrl, { token: first.learner.accessToken });
  t.is(bearer.status, 403);
  t.is(bearer.body.error.code, 'auth.out_of_scope');
});

test('nothing outside the package folder is served, however the path climbs', async (t) => {
  const { learner, enrollmentId, itemIds } = await enrolled();
  const launch = await launchScorm(learner, enrollmentId, itemIds[0]!);
  const headers = { 'x-elimi-scorm-token': token(launch.playerUrl) };
  for (const path of [
    '%2e%2e/%2e%2e/%2e%2e/package.json',
    'pages/%2e%2e/%2e%2e/x',
    '%2Fetc%2Fpasswd',
    'pages',
    'missing.html',
  ]) {
    const res = await call('GET', `${launch.contentBaseUrl}${path}`, { headers });
    t.is(res.status, 404, path);
  }
});

test("a CMI commit is kept and becomes the item's progress: passed with 80 of 100 completes it with 80%", async (t) => {
  const { learner, enrollmentId, itemIds } = await enrolled();
  const launch = await launchScorm(learner, enrollmentId, itemIds[0]!);
  const headers = { 'x-elimi-scorm-token': token(launch.playerUrl) };
  const incomplete = await call('POST', `${launch.launchUrl}/cmi`, {
    headers,
    json: {
      lessonStatus: 'incomplete',
      suspendData: '{"page":1}',
      location: 'pages/2-hazards.html',
      sessionTime: '0000:00:30.00',
    },
  });
  t.is(incomplete.status, 200);
  t.like(incomplete.body.data.items[0], { itemId: itemIds[0], status: 'in_progress' });
  t.is(incomplete.body.data.percentComplete, 0);
  const passed = await call('POST', `${launch.launchUrl}/cmi`, {
    headers,
    json: {
      lessonStatus: 'passed',
      scoreRaw: 80,
      scoreMax: 100,
      suspendData: '{"page":2}',
      location: 'pages/3-quiz.html',
      sessionTime: '0000:02:10.00',
    },
  });
  t.is(passed.status, 200);
  t.like(passed.body.data.items[0], { status: 'completed', scorePercent: 80 });
  t.like(passed.body.data.items[1], { locked: false, status: 'not_started' });
  t.is(passed.body.data.percentComplete, 50);
  // A later 'incomplete' (a relaunch that only browsed) does not undo the completion.
  const again = await call('POST', `${launch.launchUrl}/cmi`, {
    headers,
    json: { lessonStatus: 'incomplete', suspendData: '{"page":0}' },
  });
  t.like(again.body.data.items[0], { status: 'completed', scorePercent: 80 });
});

test('a relaunch resumes from the last commit: the session and the player page carry its suspend data', async (t) => {
  const { learner, enrollmentId, itemIds } = await enrolled();
  const first = await launchScorm(learner, enrollmentId, itemIds[0]!);
  await call('POST', `${first.launchUrl}/cmi`, {
    token: learner.accessToken,
    json: {
      lessonStatus: 'incomplete',
      suspendData: '{"page":1}',
      location: 'pages/2-hazards.html',
      sessionTime: '0000:00:42.00',
    },
  });
  const second = await launchScorm(learner, enrollmentId, itemIds[0]!);
  t.not(second.sessionId, first.sessionId);
  const session = await call('GET', second.launchUrl, { token: learner.accessToken });
  t.deepEqual(session.body.data.cmi, {
    lessonStatus: 'incomplete',
    scoreRaw: null,
    scoreMax: null,
    suspendData: '{"page":1}',
    location: 'pages/2-hazards.html',
    sessionTime: '0000:00:42.00',
  });
  const page = await call('GET', second.playerUrl);
  t.true(page.text.includes('"suspendData":"{\\"page\\":1}"'));
});

test('a locked item is refused on launch and on progress with lms.sequencing.locked, and opens once its prerequisite is completed', async (t) => {
  const { learner, enrollmentId, itemIds } = await enrolled({ requires: { 1: [0] } });
  const before = await call('GET', lms(`/enrollments/${enrollmentId}/progress`), { token: learner.accessToken });
  t.like(before.body.data.items[1], { itemId: itemIds[1], status: 'locked', locked: true });
  const launch = await call('POST', lms(`/enrollments/${enrollmentId}/items/${itemIds[1]}/launch`), {
    token: learner.accessToken,
  });
  t.is(launch.status, 409);
  t.is(launch.body.error.code, 'lms.sequencing.locked');
  const progress = await call('POST', lms(`/enrollments/${enrollmentId}/items/${itemIds[1]}/progress`), {
    token: learner.accessToken,
    json: { status: 'completed' },
  });
  t.is(progress.status, 409);
  t.is(progress.body.error.code, 'lms.sequencing.locked');
  const scorm = await launchScorm(learner, enrollmentId, itemIds[0]!);
  await call('POST', `${scorm.launchUrl}/cmi`, { token: learner.accessToken, json: { lessonStatus: 'completed' } });
  const open = await call('POST', lms(`/enrollments/${enrollmentId}/items/${itemIds[1]}/launch`), {
    token: learner.accessToken,
  });
  t.is(open.status, 200);
  t.like(open.body.data, { itemId: itemIds[1], type: 'native_lesson', sessionId: null });
});

test('meeting the completion policy completes the enrollment and publishes lms.course.completed once', async (t) => {
  const { learner, enrollmentId, itemIds, courseId } = await enrolled();
  const scorm = await launchScorm(learner, enrollmentId, itemIds[0]!);
  await call('POST', `${scorm.launchUrl}/cmi`, {
    token: learner.accessToken,
    json: { lessonStatus: 'passed', scoreRaw: 9, scoreMax: 10 },
  });
  const done = await call('POST', lms(`/enrollments/${enrollmentId}/items/${itemIds[1]}/progress`), {
    token: learner.accessToken,
    json: { status: 'completed' },
  });
  t.is(done.status, 200);
  t.like(done.body.data, { enrollmentId, percentComplete: 100, enrollmentStatus: 'completed' });
  const again = await call('POST', lms(`/enrollments/${enrollmentId}/items/${itemIds[1]}/progress`), {
    token: learner.accessToken,
    json: { status: 'completed' },
  });
  t.is(again.status, 409);
  t.is(again.body.error.code, 'lms.enrollment.not_active');
  const events = await sql<{ data: Record<string, unknown> }>(
    platform,
    `SELECT data FROM lms.outbox WHERE type = 'lms.course.completed' AND data->>'enrollmentId' = $1`,
    [enrollmentId],
  );
  t.is(events.length, 1);
  t.like(events[0]!.data, { courseId, learnerLmsUserId: learner.lmsUserId, to: 'completed' });
});

test('progress of a SCORM item comes from its CMI commits, not from the progress operation', async (t) => {
  const { learner, enrollmentId, itemIds } = await enrolled();
  const res = await call('POST', lms(`/enrollments/${enrollmentId}/items/${itemIds[0]}/progress`), {
    token: learner.accessToken,
    json: { status: 'completed' },
  });
  t.is(res.status, 409);
  t.is(res.body.error.code, 'lms.item.progress_not_manual');
});

test("another learner's enrollment is out of scope: 403 auth.out_of_scope", async (t) => {
  const { enrollmentId, itemIds } = await enrolled();
  const { learner } = await enrolled();
  const launch = await call('POST', lms(`/enrollments/${enrollmentId}/items/${itemIds[0]}/launch`), {
    token: learner.accessToken,
  });
  t.is(launch.status, 403);
  t.is(launch.body.error.code, 'auth.out_of_scope');
  const progress = await call('GET', lms(`/enrollments/${enrollmentId}/progress`), { token: learner.accessToken });
  t.is(progress.status, 403);
  t.is(progress.body.error.code, 'auth.out_of_scope');
});

test('an enrollment without an active entitlement is refused on launch with lms.entitlement.required', async (t) => {
  const { learner, enrollmentId, itemIds } = await enrolled();
  await sql(
    platform,
    `UPDATE lms.lms_entitlements SET status = 'revoked' WHERE id = (SELECT entitlement_id FROM lms.lms_enrollments WHERE id = $1)`,
    [enrollmentId],
  );
  const res = await call('POST', lms(`/enrollments/${enrollmentId}/items/${itemIds[0]}/launch`), {
    token: learner.accessToken,
  });
  t.is(res.status, 403);
  t.is(res.body.error.code, 'lms.entitlement.required');
});

test('an unknown enrollment or item is 404', async (t) => {
  const { learner, enrollmentId } = await enrolled();
  t.is(
    (await call('GET', lms('/enrollments/01JUNKNOWNUNKNOWNUNKNOWN00/progress'), { token: learner.accessToken })).status,
    404,
  );
  t.is(
    (
      await call('POST', lms(`/enrollments/${enrollmentId}/items/01JUNKNOWNUNKNOWNUNKNOWN00/launch`), {
        token: learner.accessToken,
      })
    ).status,
    404,
  );
  t.is(
    (await call('GET', lms('/player/scorm/01JUNKNOWNUNKNOWNUNKNOWN00'), { token: learner.accessToken })).status,
    404,
  );
});

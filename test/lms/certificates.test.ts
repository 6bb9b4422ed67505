import test from 'ava';
import { lms, lmsLearner, lmsStaff, type LmsPerson } from '../helpers/lms.ts';
import { lmsCourse, lmsDatabase, learningPlatform, stopLearning } from '../helpers/lms-learning.ts';
import { pdfText } from '../helpers/pdf.ts';
import { call, eventually, sql, type TestPlatform } from '../helpers/platform.ts';

// Completing a course issues an LMS certificate: a row with a verification code at once, in the
// completing transaction, and a real PDF stored as the learner's own asset right after.
let platform: TestPlatform;
let db: ReturnType<typeof lmsDatabase>;
let author: LmsPerson;

test.before(async () => ({ platform, db, person: author } = await learningPlatform(lmsLearner)));
test.after.always(() => stopLearning(platform, db));

async function completedCourse() {
  const learner = await lmsLearner(platform);
  const { courseId, itemIds } = await lmsCourse(db.sequelize, {
    createdBy: author.lmsUserId,
    title: 'Safe ladder use',
    items: [{ type: 'native_lesson' }],
  });
  const enrollmentId = await db.grant(courseId, learner.lmsUserId);
  const before = await lms(platform, learner, 'GET', `/enrollments/${enrollmentId}/certificate`);
  const done = await lms(platform, learner, 'POST', `/enrollments/${enrollmentId}/items/${itemIds[0]}/progress`, {
    status: 'completed',
  });
  return { learner, courseId, enrollmentId, before, done };
}

test("completing a course issues one certificate, announced on lms.course.completed, with a PDF stored as the learner's asset", async (t) => {
  const { learner, courseId, enrollmentId, before, done } = await completedCourse();
  t.is(before.status, 404);
  t.like(done.body.data, { enrollmentStatus: 'completed', certificateIssued: true });
  const certificate = (await lms(platform, learner, 'GET', `/enrollments/${enrollmentId}/certificate`)).body.data;
  t.like(certificate, {
    enrollmentId,
    courseId,
    courseTitle: 'Safe ladder use',
    learnerLmsUserId: learner.lmsUserId,
    status: 'issued',
    revokedAt: null,
  });
  const [event] = await sql<{ data: Record<string, unknown> }>(
    platform,
    `SELECT data FROM lms.outbox WHERE type = 'lms.course.completed' AND data->>'enrollmentId' = $1`,
    [enrollmentId],
  );
  t.is(event!.data.certificateId, certificate.id);
  const [row] = await sql<{ verification_code: string }>(
    platform,
    'SELECT verification_code FROM lms.lms_certificates WHERE id = $1',
    [certificate.id],
  );
  t.regex(row!.verification_code, /^[0-9A-HJKMNP-TV-Z]{12}$/);

  await eventually('the PDF is stored', async () =>
    Boolean((await lms(platform, learner, 'GET', `/certificates/${certificate.id}`)).body.data.assetId),
  );
  const { assetId } = (await lms(platform, learner, 'GET', `/certificates/${certificate.id}`)).body.data;
  const resolved = await call('POST', platform.url('/v1/ol/storage/resolve'), {
    token: learner.accessToken,
    json: { assetIds: [assetId] },
  });
  t.is(resolved.body.data[0]?.mimeType, 'application/pdf', 'the learner resolves it as their own file');
  const pdf = new Uint8Array(await (await fetch(resolved.body.data[0].url)).arrayBuffer());
  const text = await pdfText(pdf);
  t.regex(text, /Certificate of Completion/);
  t.regex(text, /Safe ladder use/);
  t.true(text.includes(row!.verification_code));

  const mine = await lms(platform, learner, 'GET', '/certificates/mine');
  t.deepEqual(
    mine.body.data.map((c: { id: string }) => c.id),
    [certificate.id],
  );
});

test("a certificate is its learner's and staff's to read: another learner gets 403 auth.out_of_scope", async (t) => {
  const { enrollmentId } = await completedCourse();
  const other = await lmsLearner(platform);
  const certificateId = (
    await sql<{ id: string }>(platform, 'SELECT id FROM lms.lms_certificates WHERE enrollment_id = $1', [enrollmentId])
  )[0]!.id;
  for (const path of [`/certificates/${certificateId}`, `/enrollments/${enrollmentId}/certificate`]) {
    const res = await lms(platform, other, 'GET', path);
    t.is(res.status, 403, path);
    t.is(res.body.error.code, 'auth.out_of_scope');
  }
  const staff = await lmsStaff(platform, 'support');
  t.is((await lms(platform, staff, 'GET', `/certificates/${certificateId}`)).status, 200);
  t.is((await lms(platform, other, 'GET', '/certificates/01JUNKNOWNUNKNOWNUNKNOWN00')).status, 404);
});

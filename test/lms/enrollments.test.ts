import test from 'ava';
import { lms, lmsLearner, type LmsPerson } from '../helpers/lms.ts';
import { lmsCourse, lmsDatabase, learningPlatform, stopLearning } from '../helpers/lms-learning.ts';
import { completedThreeTimes, payCheckout } from '../helpers/payments.ts';
import { eventually, sql, type TestPlatform } from '../helpers/platform.ts';
import { signUp } from '../helpers/users.ts';

// Enrolling, paying through the Orchestrator's sandbox provider, and payment.completed granting the
// course once.
let platform: TestPlatform;
let db: ReturnType<typeof lmsDatabase>;
let author: LmsPerson;

test.before(async () => ({ platform, db, person: author } = await learningPlatform(lmsLearner)));
test.after.always(() => stopLearning(platform, db));

const course = (priceMinorUnits: string, status: 'draft' | 'published' = 'published') =>
  lmsCourse(db.sequelize, { createdBy: author.lmsUserId, priceMinorUnits, status, items: [{ type: 'native_lesson' }] });

const ngn = (minor: string) => ({ amountMinorUnits: minor, currency: 'NGN' });

test('enrolling in a free course activates it at once with a zero self_pay entitlement; enrolling again is 409 lms.enrollment.exists', async (t) => {
  const learner = await lmsLearner(platform);
  const { courseId } = await course('0');
  const res = await lms(platform, learner, 'POST', `/courses/${courseId}/enrollments`);
  t.is(res.status, 201);
  t.like(res.body.data, {
    courseId,
    learnerLmsUserId: learner.lmsUserId,
    status: 'active',
    percentComplete: 0,
    courseTitle: 'Workshop safety',
  });
  t.like(res.body.data.entitlement, { source: 'self_pay', status: 'active', amount: ngn('0') });
  const again = await lms(platform, learner, 'POST', `/courses/${courseId}/enrollments`);
  t.is(again.status, 409);
  t.is(again.body.error.code, 'lms.enrollment.exists');
  const checkout = await lms(platform, learner, 'POST', `/enrollments/${res.body.data.id}/checkout`);
  t.is(checkout.status, 409);
  t.is(checkout.body.error.code, 'lms.checkout.already_paid');
});

test('enrolling needs a completed learner onboarding: 403 lms.onboarding.incomplete', async (t) => {
  const stranger = await signUp(platform);
  const { courseId } = await course('0');
  const res = await lms(platform, stranger, 'POST', `/courses/${courseId}/enrollments`);
  t.is(res.status, 403);
  t.is(res.body.error.code, 'lms.onboarding.incomplete');
  t.is((await lms(platform, stranger, 'GET', '/enrollments/mine')).body.error.code, 'lms.onboarding.incomplete');
});

test('a draft or unknown course cannot be enrolled in: 404', async (t) => {
  const learner = await lmsLearner(platform);
  const { courseId } = await course('0', 'draft');
  t.is((await lms(platform, learner, 'POST', `/courses/${courseId}/enrollments`)).status, 404);
  t.is((await lms(platform, learner, 'POST', '/courses/01JUNKNOWNUNKNOWNUNKNOWN00/enrollments')).status, 404);
});

test('a paid course waits for its checkout: the amount is the course price, a second checkout answers the same payment, paying activates the enrollment', async (t) => {
  const learner = await lmsLearner(platform);
  const { courseId } = await course('1500000');
  const enrolled = await lms(platform, learner, 'POST', `/courses/${courseId}/enrollments`);
  t.like(enrolled.body.data, { status: 'pending' });
  t.false('entitlement' in enrolled.body.data);
  const enrollmentId = enrolled.body.data.id;
  const resumed = await lms(platform, learner, 'POST', `/courses/${courseId}/enrollments`);
  t.is(resumed.body.data.id, enrollmentId);

  const checkout = await lms(platform, learner, 'POST', `/enrollments/${enrollmentId}/checkout`, {
    amount: { amountMinorUnits: '1', currency: 'NGN' },
  });
  t.is(checkout.status, 200);
  t.like(checkout.body.data, { amount: ngn('1500000') });
  t.regex(checkout.body.data.checkoutUrl, /^http/);
  const twice = await lms(platform, learner, 'POST', `/enrollments/${enrollmentId}/checkout`);
  t.is(twice.body.data.paymentId, checkout.body.data.paymentId);
  const [payment] = await sql<{ purpose: string; purpose_reference_id: string; amount_minor: string }>(
    platform,
    'SELECT purpose, purpose_reference_id, amount_minor::text FROM ol.payments WHERE id = $1',
    [checkout.body.data.paymentId],
  );
  t.deepEqual(payment, { purpose: 'lms_enrollment', purpose_reference_id: enrollmentId, amount_minor: '1500000' });

  const launchBefore = await lms(
    platform,
    learner,
    'POST',
    `/enrollments/${enrollmentId}/items/${(await sql<{ id: string }>(platform, 'SELECT id FROM lms.lms_items WHERE course_id = $1', [courseId]))[0]!.id}/launch`,
  );
  t.is(launchBefore.status, 403);
  t.is(launchBefore.body.error.code, 'lms.entitlement.required');

  const reference = (
    await sql<{ reference: string }>(platform, 'SELECT reference FROM ol.payments WHERE id = $1', [
      checkout.body.data.paymentId,
    ])
  )[0]!.reference;
  t.is((await payCheckout(platform, reference)).status, 200);
  await eventually(
    'the enrollment is active',
    async () => (await lms(platform, learner, 'GET', `/enrollments/${enrollmentId}`)).body.data.status === 'active',
  );
  const detail = await lms(platform, learner, 'GET', `/enrollments/${enrollmentId}`);
  t.like(detail.body.data.entitlement, {
    source: 'self_pay',
    status: 'active',
    paymentId: checkout.body.data.paymentId,
    amount: ngn('1500000'),
  });
  t.like(detail.body.data.progress, { enrollmentId, enrollmentStatus: 'active', percentComplete: 0 });
  const paidAgain = await lms(platform, learner, 'POST', `/enrollments/${enrollmentId}/checkout`);
  t.is(paidAgain.body.error.code, 'lms.checkout.already_paid');
  const mine = await lms(platform, learner, 'GET', '/enrollments/mine?status=active');
  t.deepEqual(
    mine.body.data.map((e: { id: string }) => e.id),
    [enrollmentId],
  );
});

test('payment.completed delivered three times grants one entitlement and one activation', async (t) => {
  const learner = await lmsLearner(platform);
  const { courseId } = await course('700000');
  const enrollmentId = (await lms(platform, learner, 'POST', `/courses/${courseId}/enrollments`)).body.data.id;
  const checkout = (await lms(platform, learner, 'POST', `/enrollments/${enrollmentId}/checkout`)).body.data;
  await completedThreeTimes(platform, checkout.paymentId, enrollmentId, '700000');
  t.deepEqual(await sql(platform, 'SELECT status FROM lms.lms_enrollments WHERE id = $1', [enrollmentId]), [
    { status: 'active' },
  ]);
  const entitlements = await sql(platform, 'SELECT 1 FROM lms.lms_entitlements WHERE course_id = $1', [courseId]);
  t.is(entitlements.length, 1);
  const activations = await sql(
    platform,
    `SELECT 1 FROM lms.outbox WHERE type = 'lms.enrollment.activated' AND data->>'enrollmentId' = $1`,
    [enrollmentId],
  );
  t.is(activations.length, 1);
});

test("another learner's enrollment cannot be checked out or read: 403 auth.out_of_scope", async (t) => {
  const learner = await lmsLearner(platform);
  const other = await lmsLearner(platform);
  const { courseId } = await course('500000');
  const enrollmentId = (await lms(platform, learner, 'POST', `/courses/${courseId}/enrollments`)).body.data.id;
  for (const [method, path] of [
    ['POST', `/enrollments/${enrollmentId}/checkout`],
    ['GET', `/enrollments/${enrollmentId}`],
  ] as const) {
    const res = await lms(platform, other, method, path);
    t.is(res.status, 403);
    t.is(res.body.error.code, 'auth.out_of_scope');
  }
});

import test from 'ava';
import { lms, lmsLearner, lmsStaff, type LmsPerson } from '../helpers/lms.ts';
import { lmsCourse, lmsDatabase, learningPlatform, stopLearning } from '../helpers/lms-learning.ts';
import { completedThreeTimes, payCheckout } from '../helpers/payments.ts';
import { eventually, sql, type TestPlatform } from '../helpers/platform.ts';

// Refunding an LMS checkout: staff ask for it (POST /admin/payments/{id}/refund, through the
// Orchestrator's RefundPayment and the sandbox's signed refund webhook), and payment.refunded takes back
// what the checkout bought, once however often it arrives.
let platform: TestPlatform;
let db: ReturnType<typeof lmsDatabase>;
let admin: LmsPerson;

test.before(async () => ({ platform, db, person: admin } = await learningPlatform(lmsStaff)));
test.after.always(() => stopLearning(platform, db));

/** A learner who enrolled in a fresh paid course and paid it at the sandbox checkout; its enrollment is active. */
async function paidCourse(priceMinorUnits = '1500000') {
  const { courseId, itemIds } = await lmsCourse(db.sequelize, {
    createdBy: admin.lmsUserId,
    priceMinorUnits,
    items: [{ type: 'native_lesson' }],
  });
  const learner = await lmsLearner(platform);
  const enrollmentId = (await lms(platform, learner, 'POST', `/courses/${courseId}/enrollments`)).body.data
    .id as string;
  const paymentId = (await lms(platform, learner, 'POST', `/enrollments/${enrollmentId}/checkout`)).body.data
    .paymentId as string;
  await payCheckout(platform, `PAY-${paymentId}`);
  await eventually(
    'the enrollment is active',
    async () => (await lms(platform, learner, 'GET', `/enrollments/${enrollmentId}`)).body.data.status === 'active',
  );
  const [{ id: rowId }] = (await sql<{ id: string }>(
    platform,
    'SELECT id FROM lms.lms_payments WHERE payment_id = $1',
    [paymentId],
  )) as [{ id: string }];
  return { learner, courseId, itemId: itemIds[0]!, enrollmentId, paymentId, rowId };
}

const statuses = async (enrollmentId: string, paymentId: string) =>
  (
    await sql<{ enrollment: string; entitlement: string; checkout: string; payment: string }>(
      platform,
      `SELECT e.status AS enrollment, x.status AS entitlement, p.status AS checkout,
              (SELECT status FROM ol.payments WHERE id = $2) AS payment
         FROM lms.lms_enrollments e JOIN lms.lms_entitlements x ON x.id = e.entitlement_id
         JOIN lms.lms_payments p ON p.payment_id = $2 WHERE e.id = $1`,
      [enrollmentId, paymentId],
    )
  )[0];

test.serial(
  'staff refund a paid course: refunding, then refunded by payment.refunded; the entitlement is revoked, the enrollment withdrawn, the learner locked out, the revenue no longer counts it',
  async (t) => {
    const { learner, itemId, enrollmentId, paymentId, rowId } = await paidCourse();
    t.is((await lms(platform, learner, 'POST', `/enrollments/${enrollmentId}/items/${itemId}/launch`)).status, 200);
    const revenueBefore = (await lms(platform, admin, 'GET', '/admin/payments/summary')).body.data.totalRevenue;

    const refund = await lms(platform, admin, 'POST', `/admin/payments/${rowId}/refund`, { reason: 'Bought twice' });
    t.is(refund.status, 200, refund.text);
    t.like(refund.body.data, { id: rowId, kind: 'course', amount: { amountMinorUnits: '1500000', currency: 'NGN' } });
    t.true(['refunding', 'refunded'].includes(refund.body.data.status));

    await eventually(
      'the refund reaches the LMS',
      async () => (await statuses(enrollmentId, paymentId))?.enrollment === 'withdrawn',
    );
    t.deepEqual(await statuses(enrollmentId, paymentId), {
      enrollment: 'withdrawn',
      entitlement: 'revoked',
      checkout: 'refunded',
      payment: 'refunded',
    });
    const launch = await lms(platform, learner, 'POST', `/enrollments/${enrollmentId}/items/${itemId}/launch`);
    t.is(launch.status, 403);
    t.is(launch.body.error.code, 'lms.entitlement.required');
    const row = (await lms(platform, admin, 'GET', '/admin/payments?status=refunded')).body.data.find(
      (p: { id: string }) => p.id === rowId,
    );
    t.like(row, { status: 'refunded', receiptAvailable: true });
    const revenueAfter = (await lms(platform, admin, 'GET', '/admin/payments/summary')).body.data.totalRevenue;
    t.is(BigInt(revenueBefore.amountMinorUnits) - BigInt(revenueAfter.amountMinorUnits), 1500000n);

    const again = await lms(platform, admin, 'POST', `/admin/payments/${rowId}/refund`, { reason: 'Bought twice' });
    t.is(again.status, 200);
    t.is(again.body.data.status, 'refunded');
    const asked = await sql(
      platform,
      `SELECT 1 FROM ol.payment_status_changes WHERE payment_id = $1 AND to_status = 'refunding'`,
      [paymentId],
    );
    t.is(asked.length, 1, 'the Orchestrator was asked once');
  },
);

test.serial(
  'payment.refunded delivered three times at once, as three events, takes the course back once and the learner can buy it again',
  async (t) => {
    const { learner, enrollmentId, paymentId } = await paidCourse('800000');
    await completedThreeTimes(platform, paymentId, enrollmentId, '800000', 'payment.refunded');
    t.like(await statuses(enrollmentId, paymentId), {
      enrollment: 'withdrawn',
      entitlement: 'revoked',
      checkout: 'refunded',
    });
    t.deepEqual(
      await sql(platform, `SELECT 1 FROM lms.dead_letters WHERE event_type = 'payment.refunded'`),
      [],
      'no delivery failed',
    );
    const [{ refunded_at }] = (await sql<{ refunded_at: Date }>(
      platform,
      'SELECT refunded_at FROM lms.lms_payments WHERE payment_id = $1',
      [paymentId],
    )) as [{ refunded_at: Date }];
    t.truthy(refunded_at);

    // Buying it again is a new checkout; the old payment's refund does not touch what the new one bought.
    const second = await lms(platform, learner, 'POST', `/enrollments/${enrollmentId}/checkout`);
    t.is(second.status, 200, second.text);
    t.not(second.body.data.paymentId, paymentId);
    await payCheckout(platform, `PAY-${second.body.data.paymentId}`);
    await eventually(
      'the enrollment is active again',
      async () => (await lms(platform, learner, 'GET', `/enrollments/${enrollmentId}`)).body.data.status === 'active',
    );
    await completedThreeTimes(platform, paymentId, enrollmentId, '800000', 'payment.refunded');
    t.is((await lms(platform, learner, 'GET', `/enrollments/${enrollmentId}`)).body.data.status, 'active');
  },
);

test.serial(
  'only a completed checkout is refunded: pending is 409 lms.payment.not_refundable, unknown 404, no reason 422, support staff 403',
  async (t) => {
    const { courseId } = await lmsCourse(db.sequelize, {
      createdBy: admin.lmsUserId,
      priceMinorUnits: '500000',
      items: [{ type: 'native_lesson' }],
    });
    const learner = await lmsLearner(platform);
    const enrollmentId = (await lms(platform, learner, 'POST', `/courses/${courseId}/enrollments`)).body.data.id;
    const paymentId = (await lms(platform, learner, 'POST', `/enrollments/${enrollmentId}/checkout`)).body.data
      .paymentId;
    const [{ id: rowId }] = (await sql<{ id: string }>(
      platform,
      'SELECT id FROM lms.lms_payments WHERE payment_id = $1',
      [paymentId],
    )) as [{ id: string }];
    const pending = await lms(platform, admin, 'POST', `/admin/payments/${rowId}/refund`, { reason: 'Changed mind' });
    t.is(pending.status, 409);
    t.is(pending.body.error.code, 'lms.payment.not_refundable');
    t.is((await sql(platform, 'SELECT status FROM lms.lms_payments WHERE id = $1', [rowId]))[0]!.status, 'pending');
    t.is(
      (await lms(platform, admin, 'POST', '/admin/payments/01JUNKNOWNUNKNOWNUNKNOWN00/refund', { reason: 'x' })).status,
      404,
    );
    const noReason = await lms(platform, admin, 'POST', `/admin/payments/${rowId}/refund`, {});
    t.is(noReason.status, 422);
    const support = await lmsStaff(platform, 'support');
    const refused = await lms(platform, support, 'POST', `/admin/payments/${rowId}/refund`, { reason: 'x' });
    t.is(refused.status, 403);
    t.is(refused.body.error.code, 'auth.out_of_scope');
  },
);

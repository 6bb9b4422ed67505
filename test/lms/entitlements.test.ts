import test from 'ava';
import type { Sequelize } from 'sequelize';
import { defineCourseModels } from '../../server/lms/catalogue/courses/models.ts';
import { createEntitlements, type Entitlements } from '../../server/lms/learning/enrollments/entitlements.ts';
import { enrollmentMoves } from '../../server/lms/learning/enrollments/lifecycle.ts';
import { createSequelize } from '../../server/platform/db/database.ts';
import { createEventRuntime } from '../../server/platform/events/runtime.ts';
import { newId } from '../../server/platform/ids.ts';
import { call, captureLogs, sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp } from '../helpers/users.ts';

// Granting an entitlement, whatever its source, against the platform's real LMS schema and outbox.
let platform: TestPlatform;
let sequelize: Sequelize;
let entitlements: Entitlements;
test.before(async () => {
  platform = await startTestPlatform();
  sequelize = createSequelize(platform.databaseUrl, 'lms');
  entitlements = createEntitlements(
    sequelize,
    createEventRuntime(platform.databaseUrl, captureLogs().logger).forService('lms', 'lms', sequelize),
  );
});
test.after.always(async () => {
  await sequelize?.close();
  await platform?.stop();
});

async function learner(): Promise<string> {
  const user = await signUp(platform);
  return (await call('GET', platform.url('/v1/lms/me'), { token: user.accessToken })).body.data.lmsUserId;
}

async function course(createdBy: string): Promise<string> {
  const { Course } = defineCourseModels(sequelize);
  const id = newId();
  await Course.create({
    id,
    title: 'Tiling basics',
    description: '',
    thumbnailAssetId: null,
    status: 'published',
    priceMinorUnits: '1500000',
    currency: 'NGN',
    sectorId: null,
    tradeId: null,
    qualificationLevelId: null,
    unitId: null,
    completionPolicy: { minPercent: 100, requireAllRequiredItems: true, requirePassedAssessments: true },
    sequencing: { prerequisites: [] },
    publishedAt: new Date(),
    createdBy,
  });
  return id;
}

test('the enrollment lifecycle: activation emits lms.enrollment.activated, completion lms.course.completed', (t) => {
  t.is(enrollmentMoves.activate.emits, 'lms.enrollment.activated');
  t.is(enrollmentMoves.complete.emits, 'lms.course.completed');
  t.deepEqual([...enrollmentMoves.complete.from], ['active']);
});

test("a grant activates the learner's enrollment and publishes lms.enrollment.activated in the same transaction", async (t) => {
  const learnerId = await learner();
  const courseId = await course(learnerId);
  const outcome = await sequelize.transaction((tx) =>
    entitlements.grant(tx, {
      courseId,
      learnerLmsUserId: learnerId,
      source: 'admin_grant',
      sponsorNote: 'scholarship',
    }),
  );
  t.true(outcome.granted);
  t.is(outcome.entitlement.status, 'active');
  t.is(outcome.entitlement.source, 'admin_grant');
  t.is(outcome.enrollment.status, 'active');
  t.is(outcome.enrollment.entitlementId, outcome.entitlement.id);
  const events = await sql<{ data: Record<string, unknown> }>(
    platform,
    `SELECT data FROM lms.outbox WHERE type = 'lms.enrollment.activated' AND data->>'enrollmentId' = $1`,
    [outcome.enrollment.id],
  );
  t.is(events.length, 1);
  t.like(events[0]!.data, {
    courseId,
    learnerLmsUserId: learnerId,
    entitlementId: outcome.entitlement.id,
    source: 'admin_grant',
    from: 'pending',
    to: 'active',
  });
});

test('granting the same course to the same learner ten times at once makes one entitlement, one enrollment, one activation', async (t) => {
  const learnerId = await learner();
  const courseId = await course(learnerId);
  const paymentId = `pay_${newId()}`;
  const outcomes = await Promise.all(
    Array.from({ length: 10 }, () =>
      sequelize.transaction((tx) =>
        entitlements.grant(tx, {
          courseId,
          learnerLmsUserId: learnerId,
          source: 'self_pay',
          paymentId,
          amountMinorUnits: 1500000n,
          currency: 'NGN',
        }),
      ),
    ),
  );
  t.is(outcomes.filter((o) => o.granted).length, 1);
  const rows = await sql<{ n: string }>(
    platform,
    'SELECT count(*) AS n FROM lms.lms_entitlements WHERE course_id = $1',
    [courseId],
  );
  t.is(rows[0]!.n, '1');
  const enrollments = await sql<{ status: string }>(
    platform,
    'SELECT status FROM lms.lms_enrollments WHERE course_id = $1',
    [courseId],
  );
  t.deepEqual(enrollments, [{ status: 'active' }]);
  const events = await sql(
    platform,
    `SELECT 1 FROM lms.outbox WHERE type = 'lms.enrollment.activated' AND data->>'courseId' = $1`,
    [courseId],
  );
  t.is(events.length, 1);
});

test('a grant of a course the learner already holds changes nothing, whatever its source', async (t) => {
  const learnerId = await learner();
  const courseId = await course(learnerId);
  await sequelize.transaction((tx) =>
    entitlements.grant(tx, {
      courseId,
      learnerLmsUserId: learnerId,
      source: 'self_pay',
      paymentId: 'pay_1',
      amountMinorUnits: '1500000',
    }),
  );
  const again = await sequelize.transaction((tx) =>
    entitlements.grant(tx, { courseId, learnerLmsUserId: learnerId, source: 'organization_seat' }),
  );
  t.false(again.granted);
  t.is(again.entitlement.source, 'self_pay');
  t.is(again.entitlement.paymentId, 'pay_1');
});

test('an unknown entitlement source is refused by the database: nothing is written', async (t) => {
  const learnerId = await learner();
  const courseId = await course(learnerId);
  await t.throwsAsync(
    sequelize.transaction((tx) =>
      entitlements.grant(tx, { courseId, learnerLmsUserId: learnerId, source: 'purchase' as never }),
    ),
  );
  t.deepEqual(await sql(platform, 'SELECT 1 FROM lms.lms_enrollments WHERE course_id = $1', [courseId]), []);
});

import test from 'ava';
import { newId } from '../../server/platform/ids.ts';
import { lms, lmsLearner, lmsStaff, type LmsPerson } from '../helpers/lms.ts';
import { lmsCourse, lmsDatabase, learningPlatform, stopLearning } from '../helpers/lms-learning.ts';
import { completedThreeTimes, payCheckout } from '../helpers/payments.ts';
import { eventually, sql, type TestPlatform } from '../helpers/platform.ts';

// Level offerings: the courses of one CAP qualification level sold together, authored by staff,
// enrolled in by learners, paid once through the Orchestrator's sandbox, each member granted once.
let platform: TestPlatform;
let db: ReturnType<typeof lmsDatabase>;
let staff: LmsPerson;

test.before(async () => ({ platform, db, person: staff } = await learningPlatform(lmsStaff)));
test.after.always(() => stopLearning(platform, db));

const ngn = (minor: string) => ({ amountMinorUnits: minor, currency: 'NGN' });

/** A course of `level` mapped to a unit, published unless told otherwise. */
const member = async (
  level: string,
  priceMinorUnits: string,
  options: { status?: 'draft' | 'published'; unitId?: string | null; title?: string } = {},
) =>
  (
    await lmsCourse(db.sequelize, {
      createdBy: staff.lmsUserId,
      title: options.title ?? `Unit course ${priceMinorUnits}`,
      priceMinorUnits,
      status: options.status ?? 'published',
      items: [{ type: 'native_lesson' }],
      capLinkage: {
        qualificationLevelId: level,
        ...(options.unitId === null ? {} : { unitId: options.unitId ?? `unit-${newId()}` }),
      },
    })
  ).courseId;

/** A published offering of a fresh level with two members (3,000 and 2,000 naira), and its level. */
async function publishedOffering(price?: string) {
  const level = `level-${newId()}`;
  const courses = [
    await member(level, '300000', { title: 'Tiling walls' }),
    await member(level, '200000', { title: 'Tiling floors' }),
  ];
  const created = await lms(platform, staff, 'POST', '/authoring/level-offerings', {
    capQualificationLevelId: level,
    title: 'Tiling, level 2',
    description: 'Both tiling courses.',
    ...(price ? { price: ngn(price) } : {}),
    items: courses.map((courseId) => ({ courseId })),
  });
  const published = await lms(platform, staff, 'POST', `/authoring/level-offerings/${created.body.data.id}/publish`);
  if (published.status !== 200) throw new Error(`publish: ${published.status} ${published.text}`);
  return { level, courses, offering: published.body.data };
}

async function payLevelCheckout(paymentId: string) {
  const [{ reference }] = (await sql<{ reference: string }>(
    platform,
    'SELECT reference FROM ol.payments WHERE id = $1',
    [paymentId],
  )) as [{ reference: string }];
  return payCheckout(platform, reference);
}

test('only active LMS staff author level offerings: a learner is 403 auth.out_of_scope', async (t) => {
  const learner = await lmsLearner(platform);
  for (const [method, path, body] of [
    ['GET', '/authoring/level-offerings', undefined],
    ['POST', '/authoring/level-offerings', { capQualificationLevelId: 'level-x', title: 'Not mine' }],
  ] as const) {
    const res = await lms(platform, learner, method, path, body);
    t.is(res.status, 403, path);
    t.is(res.body.error.code, 'auth.out_of_scope');
  }
});

test('a draft shows its members with their units and prices; without a price of its own it costs the sum of its members', async (t) => {
  const level = `level-${newId()}`;
  const [a, b] = [
    await member(level, '300000', { unitId: 'unit-a' }),
    await member(level, '200000', { unitId: 'unit-b' }),
  ];
  const created = await lms(platform, staff, 'POST', '/authoring/level-offerings', {
    capQualificationLevelId: level,
    title: '  Masonry  ',
    items: [{ courseId: a }, { courseId: b }, { courseId: a }],
  });
  t.is(created.status, 201);
  t.like(created.body.data, {
    capQualificationLevelId: level,
    title: 'Masonry',
    description: '',
    status: 'draft',
    price: ngn('500000'),
    publishedAt: null,
    alreadyOwned: [],
  });
  t.deepEqual(
    created.body.data.items.map((i: { courseId: string; unitId: string; price: unknown }) => [
      i.courseId,
      i.unitId,
      i.price,
    ]),
    [
      [a, 'unit-a', ngn('300000')],
      [b, 'unit-b', ngn('200000')],
    ],
  );

  const priced = await lms(platform, staff, 'PATCH', `/authoring/level-offerings/${created.body.data.id}`, {
    price: ngn('450000'),
    description: 'Both units.',
  });
  t.like(priced.body.data, { price: ngn('450000'), description: 'Both units.' });
  const summed = await lms(platform, staff, 'PATCH', `/authoring/level-offerings/${created.body.data.id}`, {
    price: null,
  });
  t.like(summed.body.data, { price: ngn('500000') });
});

test('members that are not courses are 422 naming each; a negative price is 422; nothing is written', async (t) => {
  const level = `level-${newId()}`;
  const unknown = await lms(platform, staff, 'POST', '/authoring/level-offerings', {
    capQualificationLevelId: level,
    title: 'Ghosts',
    items: [{ courseId: 'no-such-course' }],
  });
  t.is(unknown.status, 422);
  t.deepEqual(unknown.body.error.details, [{ field: 'body.items[0].courseId', issue: 'is not a course of this LMS' }]);
  const negative = await lms(platform, staff, 'POST', '/authoring/level-offerings', {
    capQualificationLevelId: level,
    title: 'Refund',
    price: ngn('-1'),
  });
  t.is(negative.status, 422);
  t.deepEqual(
    await sql(platform, 'SELECT id FROM lms.lms_level_offerings WHERE cap_qualification_level_id = $1', [level]),
    [],
  );
});

test('publishing needs members that are published courses of the level mapped to a unit, and one published offering per level; 409 lists every reason', async (t) => {
  const level = `level-${newId()}`;
  const draftCourse = await member(level, '100000', { status: 'draft', title: 'Draft course' });
  const unmapped = await member(level, '100000', { unitId: null, title: 'Unmapped course' });
  const elsewhere = await member(`level-${newId()}`, '100000', { title: 'Other level course' });
  const empty = (
    await lms(platform, staff, 'POST', '/authoring/level-offerings', { capQualificationLevelId: level, title: 'Empty' })
  ).body.data;
  const refusedEmpty = await lms(platform, staff, 'POST', `/authoring/level-offerings/${empty.id}/publish`);
  t.is(refusedEmpty.status, 409);
  t.is(refusedEmpty.body.error.code, 'lms.level_offering.not_publishable');

  const bad = (
    await lms(platform, staff, 'POST', '/authoring/level-offerings', {
      capQualificationLevelId: level,
      title: 'Bad',
      items: [draftCourse, unmapped, elsewhere].map((courseId) => ({ courseId })),
    })
  ).body.data;
  const refused = await lms(platform, staff, 'POST', `/authoring/level-offerings/${bad.id}/publish`);
  t.is(refused.status, 409);
  t.deepEqual(
    refused.body.error.details.map((d: { issue: string }) => d.issue),
    [
      'Draft course is not published',
      'Unmapped course is not mapped to a CAP unit',
      `Other level course is not a course of qualification level ${level}`,
    ],
  );

  const good = (
    await lms(platform, staff, 'POST', '/authoring/level-offerings', {
      capQualificationLevelId: level,
      title: 'Good',
      items: [{ courseId: await member(level, '100000') }],
    })
  ).body.data;
  const published = await lms(platform, staff, 'POST', `/authoring/level-offerings/${good.id}/publish`);
  t.is(published.status, 200);
  t.like(published.body.data, { status: 'published' });
  t.truthy(published.body.data.publishedAt);
  const second = (
    await lms(platform, staff, 'POST', '/authoring/level-offerings', {
      capQualificationLevelId: level,
      title: 'Second',
      items: [{ courseId: await member(level, '100000') }],
    })
  ).body.data;
  const refusedSecond = await lms(platform, staff, 'POST', `/authoring/level-offerings/${second.id}/publish`);
  t.is(refusedSecond.status, 409);
  t.regex(refusedSecond.body.error.details[0].issue, /already published for this level/);
});

test('the catalogue shows published offerings only; unpublishing takes one back to draft; members change only in a draft (409)', async (t) => {
  const { level, offering } = await publishedOffering();
  const learner = await lmsLearner(platform);
  const listed = await lms(platform, learner, 'GET', `/level-offerings?qualificationLevelId=${level}`);
  t.deepEqual(
    listed.body.data.map((o: { id: string }) => o.id),
    [offering.id],
  );
  t.is((await lms(platform, learner, 'GET', `/level-offerings/${offering.id}`)).status, 200);

  const locked = await lms(platform, staff, 'PATCH', `/authoring/level-offerings/${offering.id}`, { items: [] });
  t.is(locked.status, 409);
  t.is(locked.body.error.code, 'lms.level_offering.published');
  t.is(
    (await lms(platform, staff, 'PATCH', `/authoring/level-offerings/${offering.id}`, { title: 'Tiling, level two' }))
      .body.data.title,
    'Tiling, level two',
  );

  const draft = await lms(platform, staff, 'POST', `/authoring/level-offerings/${offering.id}/unpublish`);
  t.like(draft.body.data, { status: 'draft' });
  t.deepEqual((await lms(platform, learner, 'GET', `/level-offerings?qualificationLevelId=${level}`)).body.data, []);
  t.is((await lms(platform, learner, 'GET', `/level-offerings/${offering.id}`)).status, 404);
  const authored = await lms(
    platform,
    staff,
    'GET',
    `/authoring/level-offerings?status=draft&qualificationLevelId=${level}`,
  );
  t.deepEqual(
    authored.body.data.map((o: { id: string }) => o.id),
    [offering.id],
  );
});

test('a learner pays once for the members they lack: the amount is fixed by the LMS, checkout twice is one payment, paying grants each member with source level_offering', async (t) => {
  const { courses, offering } = await publishedOffering('450000');
  const learner = await lmsLearner(platform);
  const enrolled = await lms(platform, learner, 'POST', `/level-offerings/${offering.id}/enrollments`);
  t.is(enrolled.status, 201);
  t.like(enrolled.body.data, {
    offeringId: offering.id,
    offeringTitle: 'Tiling, level 2',
    learnerLmsUserId: learner.lmsUserId,
    status: 'pending',
    amount: ngn('450000'),
    paymentId: null,
    priceRevisionId: null,
  });
  t.is(
    (await lms(platform, learner, 'POST', `/level-offerings/${offering.id}/enrollments`)).body.data.id,
    enrolled.body.data.id,
    'enrolling again answers the pending one',
  );

  const checkout = await lms(platform, learner, 'POST', `/level-enrollments/${enrolled.body.data.id}/checkout`, {
    amount: ngn('1'),
  });
  t.is(checkout.status, 200);
  t.like(checkout.body.data, { amount: ngn('450000') });
  t.is(
    (await lms(platform, learner, 'POST', `/level-enrollments/${enrolled.body.data.id}/checkout`)).body.data.paymentId,
    checkout.body.data.paymentId,
  );
  const [payment] = await sql(
    platform,
    'SELECT purpose, purpose_reference_id, amount_minor::text FROM ol.payments WHERE id = $1',
    [checkout.body.data.paymentId],
  );
  t.deepEqual(payment, {
    purpose: 'lms_enrollment',
    purpose_reference_id: enrolled.body.data.id,
    amount_minor: '450000',
  });

  t.is((await payLevelCheckout(checkout.body.data.paymentId)).status, 200);
  await eventually(
    'the level enrollment is active',
    async () => (await lms(platform, learner, 'GET', '/level-enrollments/mine?status=active')).body.data.length === 1,
  );
  const mine = (await lms(platform, learner, 'GET', '/level-enrollments/mine')).body.data;
  t.like(mine[0], { id: enrolled.body.data.id, status: 'active', paymentId: checkout.body.data.paymentId });
  const granted = await sql<{ course_id: string; source: string; payment_id: string }>(
    platform,
    `SELECT course_id, source, payment_id FROM lms.lms_entitlements WHERE learner_lms_user_id = $1 AND status = 'active' ORDER BY course_id`,
    [learner.lmsUserId],
  );
  t.deepEqual(
    granted,
    [...courses]
      .sort()
      .map((course_id) => ({ course_id, source: 'level_offering', payment_id: checkout.body.data.paymentId })),
  );
  const active = await lms(platform, learner, 'GET', '/enrollments/mine?status=active');
  t.deepEqual(active.body.data.map((e: { courseId: string }) => e.courseId).sort(), [...courses].sort());
  t.deepEqual(
    (await lms(platform, learner, 'GET', `/level-offerings/${offering.id}`)).body.data.alreadyOwned.sort(),
    [...courses].sort(),
  );

  const again = await lms(platform, learner, 'POST', `/level-offerings/${offering.id}/enrollments`);
  t.is(again.status, 409);
  t.is(again.body.error.code, 'lms.level_enrollment.exists');
  const paidAgain = await lms(platform, learner, 'POST', `/level-enrollments/${enrolled.body.data.id}/checkout`);
  t.is(paidAgain.body.error.code, 'lms.checkout.already_paid');
});

test('a learner enrolling five times at once gets one level enrollment, answered to every call', async (t) => {
  const { offering } = await publishedOffering();
  const learner = await lmsLearner(platform);
  const answers = await Promise.all(
    Array.from({ length: 5 }, () => lms(platform, learner, 'POST', `/level-offerings/${offering.id}/enrollments`)),
  );
  t.deepEqual(
    answers.map((a) => a.status),
    [201, 201, 201, 201, 201],
  );
  t.is(new Set(answers.map((a) => a.body.data.id)).size, 1);
  t.is(
    (await sql(platform, 'SELECT 1 FROM lms.lms_level_enrollments WHERE learner_lms_user_id = $1', [learner.lmsUserId]))
      .length,
    1,
  );
});

test('a member already held is neither charged nor granted again; holding every member is 409 lms.level_enrollment.nothing_left', async (t) => {
  const { courses, offering } = await publishedOffering();
  const learner = await lmsLearner(platform);
  await db.grant(courses[0]!, learner.lmsUserId);
  t.deepEqual((await lms(platform, learner, 'GET', `/level-offerings/${offering.id}`)).body.data.alreadyOwned, [
    courses[0],
  ]);
  const enrolled = await lms(platform, learner, 'POST', `/level-offerings/${offering.id}/enrollments`);
  t.like(enrolled.body.data, { status: 'pending', amount: ngn('200000') });

  const holder = await lmsLearner(platform);
  for (const courseId of courses) await db.grant(courseId, holder.lmsUserId);
  const nothing = await lms(platform, holder, 'POST', `/level-offerings/${offering.id}/enrollments`);
  t.is(nothing.status, 409);
  t.is(nothing.body.error.code, 'lms.level_enrollment.nothing_left');
});

test('a free offering activates at once and grants its members without a payment', async (t) => {
  const { courses, offering } = await publishedOffering('0');
  const learner = await lmsLearner(platform);
  const enrolled = await lms(platform, learner, 'POST', `/level-offerings/${offering.id}/enrollments`);
  t.like(enrolled.body.data, { status: 'active', amount: ngn('0'), paymentId: null });
  const granted = await sql(
    platform,
    `SELECT course_id FROM lms.lms_entitlements WHERE learner_lms_user_id = $1 AND source = 'level_offering'`,
    [learner.lmsUserId],
  );
  t.is(granted.length, courses.length);
  t.is(
    (await lms(platform, learner, 'POST', `/level-enrollments/${enrolled.body.data.id}/checkout`)).body.error.code,
    'lms.checkout.already_paid',
  );
});

test('payment.completed delivered three times activates the level enrollment once and grants each member once', async (t) => {
  const { courses, offering } = await publishedOffering();
  const learner = await lmsLearner(platform);
  const levelEnrollmentId = (await lms(platform, learner, 'POST', `/level-offerings/${offering.id}/enrollments`)).body
    .data.id;
  const checkout = (await lms(platform, learner, 'POST', `/level-enrollments/${levelEnrollmentId}/checkout`)).body.data;
  await completedThreeTimes(platform, checkout.paymentId, levelEnrollmentId, '500000');
  t.deepEqual(await sql(platform, 'SELECT status FROM lms.lms_level_enrollments WHERE id = $1', [levelEnrollmentId]), [
    { status: 'active' },
  ]);
  const entitlements = await sql(
    platform,
    'SELECT course_id FROM lms.lms_entitlements WHERE learner_lms_user_id = $1',
    [learner.lmsUserId],
  );
  t.is(entitlements.length, courses.length);
  const activations = await sql(
    platform,
    `SELECT 1 FROM lms.outbox WHERE type = 'lms.enrollment.activated' AND data->>'learnerLmsUserId' = $1`,
    [learner.lmsUserId],
  );
  t.is(activations.length, courses.length);
});

test('staff refund a paid level checkout: the level enrollment is withdrawn and each member it granted is revoked, its enrollment withdrawn', async (t) => {
  const { courses, offering } = await publishedOffering();
  const learner = await lmsLearner(platform);
  const levelEnrollmentId = (await lms(platform, learner, 'POST', `/level-offerings/${offering.id}/enrollments`)).body
    .data.id;
  const checkout = (await lms(platform, learner, 'POST', `/level-enrollments/${levelEnrollmentId}/checkout`)).body.data;
  await payLevelCheckout(checkout.paymentId);
  await eventually(
    'the level enrollment is active',
    async () =>
      (await sql(platform, 'SELECT status FROM lms.lms_level_enrollments WHERE id = $1', [levelEnrollmentId]))[0]!
        .status === 'active',
  );
  const [{ id: rowId }] = (await sql<{ id: string }>(
    platform,
    'SELECT id FROM lms.lms_payments WHERE payment_id = $1',
    [checkout.paymentId],
  )) as [{ id: string }];
  const refund = await lms(platform, staff, 'POST', `/admin/payments/${rowId}/refund`, { reason: 'Course cancelled' });
  t.is(refund.status, 200, refund.text);
  t.like(refund.body.data, { kind: 'level', levelOffering: { id: offering.id } });
  await eventually(
    'the refund reaches the LMS',
    async () =>
      (await sql(platform, 'SELECT status FROM lms.lms_level_enrollments WHERE id = $1', [levelEnrollmentId]))[0]!
        .status === 'withdrawn',
  );
  const members = await sql<{ course_id: string; entitlement: string; enrollment: string }>(
    platform,
    `SELECT x.course_id, x.status AS entitlement, e.status AS enrollment FROM lms.lms_entitlements x
       JOIN lms.lms_enrollments e ON e.entitlement_id = x.id WHERE x.learner_lms_user_id = $1 ORDER BY x.course_id`,
    [learner.lmsUserId],
  );
  t.deepEqual(
    members,
    [...courses].sort().map((course_id) => ({ course_id, entitlement: 'revoked', enrollment: 'withdrawn' })),
  );
});

test("another learner's level enrollment cannot be checked out (403); enrolling needs the learner onboarding (403 lms.onboarding.incomplete)", async (t) => {
  const { offering } = await publishedOffering();
  const learner = await lmsLearner(platform);
  const levelEnrollmentId = (await lms(platform, learner, 'POST', `/level-offerings/${offering.id}/enrollments`)).body
    .data.id;
  const other = await lmsLearner(platform);
  const refused = await lms(platform, other, 'POST', `/level-enrollments/${levelEnrollmentId}/checkout`);
  t.is(refused.status, 403);
  t.is(refused.body.error.code, 'auth.out_of_scope');
  const notLearner = await lms(platform, staff, 'POST', `/level-offerings/${offering.id}/enrollments`);
  t.is(notLearner.status, 403);
  t.is(notLearner.body.error.code, 'lms.onboarding.incomplete');
  t.is((await lms(platform, learner, 'POST', '/level-enrollments/no-such-id/checkout')).status, 404);
});

test('my level enrollments page newest first with a cursor and filter by status', async (t) => {
  const learner = await lmsLearner(platform);
  const made: string[] = [];
  for (let i = 0; i < 3; i++) {
    const { offering } = await publishedOffering();
    made.push((await lms(platform, learner, 'POST', `/level-offerings/${offering.id}/enrollments`)).body.data.id);
  }
  const first = await lms(platform, learner, 'GET', '/level-enrollments/mine?limit=2');
  t.deepEqual(
    first.body.data.map((e: { id: string }) => e.id),
    [made[2], made[1]],
  );
  t.true(first.body.meta.pagination.hasMore);
  const next = await lms(
    platform,
    learner,
    'GET',
    `/level-enrollments/mine?limit=2&cursor=${first.body.meta.pagination.nextCursor}`,
  );
  t.deepEqual(
    next.body.data.map((e: { id: string }) => e.id),
    [made[0]],
  );
  t.deepEqual((await lms(platform, learner, 'GET', '/level-enrollments/mine?status=active')).body.data, []);
});

test('staff enrolling a learner in a level offering grants its members; a seat allocation with a level seats the learner with every member', async (t) => {
  const { courses, offering } = await publishedOffering();
  const learner = await lmsLearner(platform);
  const enrolled = await lms(platform, staff, 'POST', `/admin/learners/${learner.lmsUserId}/enrollments`, {
    enrollmentType: 'unsponsored',
    levelOfferingIds: [offering.id, 'no-such-offering'],
  });
  t.deepEqual(
    enrolled.body.data.results.map((r: { status: string }) => r.status),
    ['granted', 'failed'],
  );
  const granted = await sql(platform, `SELECT source FROM lms.lms_entitlements WHERE learner_lms_user_id = $1`, [
    learner.lmsUserId,
  ]);
  t.deepEqual(
    granted,
    courses.map(() => ({ source: 'admin_grant' })),
  );

  const seated = await lmsLearner(platform);
  const allocation = await lms(platform, staff, 'POST', '/admin/seat-allocations', {
    organization: { name: 'Tilers Guild', email: `guild+${newId().toLowerCase()}@example.test` },
    totalSlots: 5,
    levelOfferings: [{ levelOfferingId: offering.id, learners: [{ email: seated.email }] }],
  });
  t.is(allocation.status, 201, allocation.text);
  t.deepEqual(allocation.body.data.allocation.levels, [{ id: offering.id, title: offering.title }]);
  const seatedGrants = await sql(platform, `SELECT source FROM lms.lms_entitlements WHERE learner_lms_user_id = $1`, [
    seated.lmsUserId,
  ]);
  t.deepEqual(
    seatedGrants,
    courses.map(() => ({ source: 'organization_seat' })),
  );

  const unknown = await lms(platform, staff, 'POST', '/admin/seat-allocations', {
    organization: { name: 'Nobody', email: 'nobody@example.test' },
    totalSlots: 1,
    levelOfferings: [{ levelOfferingId: 'no-such-offering', learners: [] }],
  });
  t.is(unknown.status, 422);
});

test.serial(
  'the payments screens list every checkout, of a course or a level offering; revenue counts completed ones; a receipt is found by row, entitlement or level enrollment',
  async (t) => {
    const { offering } = await publishedOffering('450000');
    const { courseId } = await lmsCourse(db.sequelize, {
      createdBy: staff.lmsUserId,
      title: 'Screeding',
      priceMinorUnits: '700000',
      items: [{ type: 'native_lesson' }],
    });
    const [courseBuyer, levelBuyer] = [await lmsLearner(platform), await lmsLearner(platform)];
    const enrollmentId = (await lms(platform, courseBuyer, 'POST', `/courses/${courseId}/enrollments`)).body.data.id;
    const courseCheckout = (await lms(platform, courseBuyer, 'POST', `/enrollments/${enrollmentId}/checkout`)).body
      .data;
    const levelEnrollmentId = (await lms(platform, levelBuyer, 'POST', `/level-offerings/${offering.id}/enrollments`))
      .body.data.id;
    const levelCheckout = (await lms(platform, levelBuyer, 'POST', `/level-enrollments/${levelEnrollmentId}/checkout`))
      .body.data;

    t.deepEqual((await lms(platform, staff, 'GET', '/admin/payments/summary')).body.data, {
      totalRevenue: ngn('0'),
      pendingCount: 2,
      completedCount: 0,
    });
    t.is(
      (await lms(platform, staff, 'GET', `/admin/payments/${levelEnrollmentId}/receipt`)).status,
      404,
      'no receipt before the checkout completes',
    );

    await payLevelCheckout(courseCheckout.paymentId);
    await eventually(
      'the course checkout is completed',
      async () => (await lms(platform, staff, 'GET', '/admin/payments/summary')).body.data.completedCount === 1,
    );
    t.deepEqual((await lms(platform, staff, 'GET', '/admin/payments/summary')).body.data, {
      totalRevenue: ngn('700000'),
      pendingCount: 1,
      completedCount: 1,
    });

    const rows = (await lms(platform, staff, 'GET', '/admin/payments?sort=paidAt')).body.data;
    t.deepEqual(
      rows.map((r: { kind: string; status: string; receiptAvailable: boolean }) => [
        r.kind,
        r.status,
        r.receiptAvailable,
      ]),
      [
        ['course', 'completed', true],
        ['level', 'pending', false],
      ],
    );
    t.like(rows[0], { course: { id: courseId, title: 'Screeding' }, levelOffering: null, amount: ngn('700000') });
    t.like(rows[1], {
      course: null,
      levelOffering: { id: offering.id, title: 'Tiling, level 2' },
      amount: ngn('450000'),
      paidAt: null,
    });
    t.deepEqual(
      (await lms(platform, staff, 'GET', '/admin/payments?status=pending')).body.data.map((r: { id: string }) => r.id),
      [rows[1].id],
    );

    const [entitlement] = await sql<{ id: string }>(
      platform,
      `SELECT id FROM lms.lms_entitlements WHERE learner_lms_user_id = $1 AND course_id = $2`,
      [courseBuyer.lmsUserId, courseId],
    );
    for (const id of [rows[0].id, entitlement!.id]) {
      t.like((await lms(platform, staff, 'GET', `/admin/payments/${id}/receipt`)).body.data, {
        id: rows[0].id,
        kind: 'course',
        paymentId: courseCheckout.paymentId,
        currency: 'NGN',
      });
    }
    await payLevelCheckout(levelCheckout.paymentId);
    await eventually(
      'the level checkout is completed',
      async () => (await lms(platform, staff, 'GET', `/admin/payments/${levelEnrollmentId}/receipt`)).status === 200,
    );
    t.like((await lms(platform, staff, 'GET', `/admin/payments/${levelEnrollmentId}/receipt`)).body.data, {
      kind: 'level',
      levelOffering: { id: offering.id },
      amount: ngn('450000'),
    });
    t.like((await lms(platform, staff, 'GET', '/admin/payments/summary')).body.data, {
      totalRevenue: ngn('1150000'),
      completedCount: 2,
    });
  },
);

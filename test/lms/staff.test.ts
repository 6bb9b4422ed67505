import test from 'ava';
import { eventually, sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { lms, lmsInstructor, lmsLearner, lmsStaff, onboard, publishedCourse, type LmsPerson } from '../helpers/lms.ts';
import { latestMail, signUp, uniqueEmail } from '../helpers/users.ts';

// Staff, learners and seat allocations over real HTTP.
let platform: TestPlatform;
let admin: LmsPerson;
let instructor: LmsPerson;
test.before(async () => {
  platform = await startTestPlatform();
  admin = await lmsStaff(platform, 'admin');
  instructor = await lmsInstructor(platform, admin);
});
test.after.always(async () => {
  await platform?.stop();
});

/** Someone who becomes staff with `role` through an admin's invite. */
async function invitedStaff(role: 'admin' | 'content_manager' | 'support'): Promise<LmsPerson> {
  const user = await signUp(platform);
  const invite = await lms(platform, admin, 'POST', '/staff/invites', { email: user.email, role });
  if (invite.status !== 201) throw new Error(invite.text);
  return onboard(platform, user, 'staff');
}

test("staff invites are for admins; the invite's role becomes the staff role, with its capabilities, once onboarded", async (t) => {
  const support = await invitedStaff('support');
  const me = (await lms(platform, support, 'GET', '/me')).body.data;
  t.is(me.staffRole, 'support');
  t.deepEqual(me.capabilities, [
    'course.content.edit',
    'course.create',
    'course.publish',
    'entitlement.grant',
    'learners.manage',
    'payments.read',
    'settings.read',
  ]);
  const refused = await lms(platform, support, 'POST', '/staff/invites', { email: uniqueEmail(), role: 'admin' });
  t.is(refused.status, 403);
  t.is(refused.body.error.code, 'auth.out_of_scope');
  const twice = await lms(platform, admin, 'POST', '/staff/invites', { email: support.email, role: 'admin' });
  t.is(twice.body.error.code, 'lms.invite.duplicate', 'already staff');
  const listed = (await lms(platform, admin, 'GET', '/staff?limit=100')).body.data.find(
    (m: { lmsUserId: string }) => m.lmsUserId === support.lmsUserId,
  );
  t.like(listed, { displayName: 'Ada Obi', email: support.email, role: 'support', status: 'active', photo: null });
  t.true(
    (await lms(platform, admin, 'GET', '/staff/invites')).body.data.some(
      (i: { email: string; status: string }) => i.email === support.email && i.status === 'accepted',
    ),
  );
});

test('an admin changes a staff role or suspends; suspended staff lose their staff capabilities; an admin cannot suspend themselves', async (t) => {
  const member = await invitedStaff('content_manager');
  const promoted = await lms(platform, admin, 'PATCH', `/staff/${member.lmsUserId}`, { role: 'support' });
  t.like(promoted.body.data, { role: 'support', status: 'active' });
  t.is(
    (await lms(platform, admin, 'PATCH', `/staff/${member.lmsUserId}`, { status: 'suspended' })).body.data.status,
    'suspended',
  );
  const me = (await lms(platform, member, 'GET', '/me')).body.data;
  t.deepEqual(me.capabilities, []);
  t.is((await lms(platform, member, 'GET', '/authoring/courses')).body.error.code, 'lms.onboarding.incomplete');
  const self = await lms(platform, admin, 'PATCH', `/staff/${admin.lmsUserId}`, { status: 'suspended' });
  t.is(self.status, 403);
  t.is((await lms(platform, admin, 'PATCH', '/staff/01ARZ3NDEKTSV4RRFFQ69G5FAV', { role: 'support' })).status, 404);
});

test("an admin grant activates the learner's enrollment; a second grant is 409 lms.entitlement.exists; only entitlement.grant holders grant", async (t) => {
  const course = await publishedCourse(platform, instructor);
  const learner = await lmsLearner(platform);
  const body = {
    courseId: course.id,
    learnerLmsUserId: learner.lmsUserId,
    source: 'admin_grant',
    sponsorNote: 'scholarship',
  };
  const manager = await invitedStaff('content_manager');
  t.is((await lms(platform, manager, 'POST', '/admin/entitlements', body)).body.error.code, 'auth.out_of_scope');
  const granted = await lms(platform, admin, 'POST', '/admin/entitlements', body);
  t.is(granted.status, 201);
  t.like(granted.body.data, {
    courseId: course.id,
    learnerLmsUserId: learner.lmsUserId,
    source: 'admin_grant',
    status: 'active',
    sponsorNote: 'scholarship',
    amount: { amountMinorUnits: '0', currency: 'NGN' },
  });
  const again = await lms(platform, admin, 'POST', '/admin/entitlements', body);
  t.is(again.status, 409);
  t.is(again.body.error.code, 'lms.entitlement.exists');
  t.is(
    (await lms(platform, admin, 'POST', '/admin/entitlements', { ...body, courseId: '01ARZ3NDEKTSV4RRFFQ69G5FAV' }))
      .status,
    404,
  );

  const enrollments = await lms(platform, admin, 'GET', `/admin/enrollments?courseId=${course.id}`);
  t.is(enrollments.body.data.length, 1);
  t.like(enrollments.body.data[0], {
    courseTitle: course.title,
    learnerLmsUserId: learner.lmsUserId,
    status: 'active',
    entitlement: { source: 'admin_grant' },
  });
  t.is(
    (await lms(platform, instructor, 'GET', `/admin/enrollments?courseId=${course.id}`)).body.data.length,
    1,
    "the course's instructor sees it",
  );
  const other = await lmsInstructor(platform, admin);
  t.deepEqual(
    (await lms(platform, other, 'GET', `/admin/enrollments?courseId=${course.id}`)).body.data,
    [],
    'another instructor does not',
  );
  t.is((await lms(platform, learner, 'GET', '/admin/enrollments')).body.error.code, 'auth.out_of_scope');
});

test('settings are a merge patch; a legal document is text or a PDF, not both; support reads but does not write', async (t) => {
  const initial = (await lms(platform, admin, 'GET', '/admin/settings')).body.data;
  t.deepEqual(initial.terms, { mode: 'text', content: null, documentAssetId: null, document: null });
  const saved = await lms(platform, admin, 'PATCH', '/admin/settings', {
    contact: { email: 'help@lms.example' },
    terms: { content: 'Be kind.' },
    refund: { documentAssetId: 'asset-refund' },
  });
  t.is(saved.status, 200);
  t.like(saved.body.data, {
    contact: { email: 'help@lms.example', phone: null },
    terms: { mode: 'text', content: 'Be kind.' },
    refund: { mode: 'pdf', documentAssetId: 'asset-refund', document: { assetId: 'asset-refund', url: null } },
  });
  const both = await lms(platform, admin, 'PATCH', '/admin/settings', {
    privacy: { content: 'x', documentAssetId: 'y' },
  });
  t.is(both.status, 422);
  t.deepEqual(both.body.error.details, [
    { field: 'body.privacy', issue: 'is either content or documentAssetId, not both' },
  ]);
  const support = await invitedStaff('support');
  t.is((await lms(platform, support, 'GET', '/admin/settings')).body.data.terms.content, 'Be kind.');
  t.is(
    (await lms(platform, support, 'PATCH', '/admin/settings', { terms: { content: 'no' } })).body.error.code,
    'auth.out_of_scope',
  );
});

test('the dashboard covers one year: twelve months of revenue, four gender buckets, top courses by enrollments', async (t) => {
  const course = await publishedCourse(platform, admin, 'Dashboard course');
  const learner = await lmsLearner(platform);
  await lms(platform, admin, 'POST', '/admin/entitlements', {
    courseId: course.id,
    learnerLmsUserId: learner.lmsUserId,
    source: 'sponsor',
  });
  const year = new Date().getUTCFullYear();
  const board = (await lms(platform, admin, 'GET', `/admin/dashboard?year=${year}`)).body.data;
  t.is(board.year, year);
  t.is(board.revenueByMonth.length, 12);
  t.deepEqual(
    board.genderDistribution.map((g: { gender: string }) => g.gender),
    ['female', 'male', 'other', 'unspecified'],
  );
  t.true(board.genderDistribution[0].count >= 1);
  t.true(board.kpis.activeEnrollments >= 1);
  t.true(board.topCourses.some((c: { id: string }) => c.id === course.id));
  t.is((await lms(platform, admin, 'GET', '/admin/dashboard?year=1999')).status, 422);
  t.is((await lms(platform, instructor, 'GET', '/admin/dashboard')).body.error.code, 'auth.out_of_scope');
  t.deepEqual((await lms(platform, admin, 'GET', '/admin/payments/summary')).body.data, {
    totalRevenue: { amountMinorUnits: '0', currency: 'NGN' },
    pendingCount: 0,
    completedCount: 0,
  });
  t.is((await lms(platform, admin, 'GET', '/admin/payments/01ARZ3NDEKTSV4RRFFQ69G5FAV/receipt')).status, 404);
});

test('the learner directory searches, sorts and exports as CSV; a suspended learner may no longer enrol', async (t) => {
  const learner = await lmsLearner(platform);
  await lms(platform, learner, 'PATCH', '/me/profile', { displayName: 'ignored: the onboarding name wins' });
  const page = await lms(platform, admin, 'GET', `/admin/learners?q=${encodeURIComponent(learner.email)}`);
  t.is(page.status, 200);
  t.like(page.body.data[0], {
    lmsUserId: learner.lmsUserId,
    name: 'Ada Obi',
    email: learner.email,
    coursesTaken: 0,
    completionRate: 0,
    status: 'active',
    photoUrl: null,
  });
  // joinedAt is the account's creation time as every time on the wire: ISO 8601, UTC, milliseconds.
  const [joined] = await sql<{ created_at: Date }>(platform, 'SELECT created_at FROM lms.lms_users WHERE id = $1', [
    learner.lmsUserId,
  ]);
  t.is(page.body.data[0].joinedAt, joined!.created_at.toISOString());
  const sorted = (await lms(platform, admin, 'GET', '/admin/learners?sort=email&order=asc&limit=100')).body.data.map(
    (r: { email: string }) => r.email,
  );
  t.deepEqual(sorted, [...sorted].sort());

  const suspended = await lms(platform, admin, 'PATCH', `/admin/learners/${learner.lmsUserId}`, {
    status: 'suspended',
  });
  t.is(suspended.body.data.status, 'suspended');
  t.deepEqual((await lms(platform, learner, 'GET', '/me')).body.data.capabilities, []);

  const csv = await lms(
    platform,
    admin,
    'GET',
    `/admin/learners/export?q=${encodeURIComponent(learner.email)}&email=${encodeURIComponent(admin.email)}`,
  );
  t.is(csv.status, 200);
  t.regex(String(csv.headers['content-type']), /^text\/csv/);
  const rows = [
    'lmsUserId,name,email,coursesTaken,completionRate,joinedAt,status',
    `${learner.lmsUserId},Ada Obi,${learner.email},0,0,${page.body.data[0].joinedAt},suspended`,
  ];
  t.deepEqual(csv.text.trimEnd().split('\r\n'), rows);
  await eventually(
    'the export is mailed to the staff member',
    async () => (await latestMail(platform, admin.email)).subject === 'Learner export (1 learners)',
  );
  t.deepEqual((await latestMail(platform, admin.email)).text.trimEnd().split(/\r?\n/), rows);
  const outsider = await lms(
    platform,
    admin,
    'GET',
    `/admin/learners/export?email=${encodeURIComponent(learner.email)}`,
  );
  t.is(outsider.status, 422, "learners' details are mailed to staff only");
  t.is((await lms(platform, instructor, 'GET', '/admin/learners')).body.error.code, 'auth.out_of_scope');
});

test('learner invites provision accounts: invited once, skipped after; bulk enrol grants courses and says what happened to each', async (t) => {
  const email = uniqueEmail('invitee');
  const invited = await lms(platform, admin, 'POST', '/admin/learners/invites', {
    invites: [{ email, name: 'Bola Ade' }, { email: email.toUpperCase() }],
  });
  t.is(invited.status, 201);
  t.is(invited.body.data.length, 1);
  t.like(invited.body.data[0], { email, status: 'invited' });
  const lmsUserId = invited.body.data[0].lmsUserId;
  t.like((await lms(platform, admin, 'POST', '/admin/learners/invites', { invites: [{ email }] })).body.data[0], {
    status: 'skipped',
    lmsUserId,
  });
  t.is(
    (await lms(platform, admin, 'GET', `/admin/learners?q=${encodeURIComponent(email)}`)).body.data[0].lmsUserId,
    lmsUserId,
  );

  const course = await publishedCourse(platform, instructor, 'Bulk course');
  const body = {
    enrollmentType: 'unsponsored',
    courseIds: [course.id, '01ARZ3NDEKTSV4RRFFQ69G5FAV'],
    levelOfferingIds: ['level-1'],
  };
  const enrolled = await lms(platform, admin, 'POST', `/admin/learners/${lmsUserId}/enrollments`, body);
  t.is(enrolled.status, 200);
  t.deepEqual(
    enrolled.body.data.results.map((r: { status: string }) => r.status),
    ['granted', 'failed', 'failed'],
  );
  t.is(
    (await lms(platform, admin, 'POST', `/admin/learners/${lmsUserId}/enrollments`, body)).body.data.results[0].status,
    'skipped',
  );
  t.is(
    (
      await lms(platform, admin, 'POST', `/admin/learners/${lmsUserId}/enrollments`, {
        enrollmentType: 'sponsored',
        courseIds: [course.id],
      })
    ).status,
    422,
    'sponsored needs an organization',
  );
});

test('seat allocations seat each learner once, never more than the slots, with organization_seat grants; the CSV template and CSV rows work', async (t) => {
  const template = await lms(platform, admin, 'GET', '/admin/seat-allocations/import-template');
  t.is(template.text, 'email,name\r\n');
  t.regex(String(template.headers['content-type']), /^text\/csv/);

  const course = await publishedCourse(platform, instructor, 'Seated course');
  const [a, b, c] = [uniqueEmail('seat'), uniqueEmail('seat'), uniqueEmail('seat')];
  const created = await lms(platform, admin, 'POST', '/admin/seat-allocations', {
    organization: { name: 'Lagos Builders', email: 'hr@builders.example' },
    totalSlots: 2,
    courses: [{ courseId: course.id, learners: [{ email: a, name: 'A' }], csv: `email,name\n${b},B\n${c},C\n` }],
  });
  t.is(created.status, 201);
  t.deepEqual(
    created.body.data.results.map((r: { email: string; status: string }) => [r.email, r.status]),
    [
      [a, 'provisioned'],
      [b, 'provisioned'],
      [c, 'failed'],
    ],
  );
  const allocation = created.body.data.allocation;
  t.like(allocation, {
    organization: { name: 'Lagos Builders' },
    learnerCount: 2,
    totalSlots: 2,
    slotsAvailable: 0,
    courses: [{ id: course.id, title: 'Seated course' }],
    levels: [],
  });

  const enrollments = (await lms(platform, admin, 'GET', `/admin/enrollments?courseId=${course.id}`)).body.data;
  t.is(enrollments.length, 2);
  t.true(
    enrollments.every(
      (e: { status: string; entitlement: { source: string } }) =>
        e.status === 'active' && e.entitlement.source === 'organization_seat',
    ),
  );

  const more = await lms(platform, admin, 'POST', `/admin/seat-allocations/${allocation.id}/seats`, {
    courses: [{ courseId: course.id, learners: [{ email: a }, { email: c }] }],
  });
  t.deepEqual(
    more.body.data.results.map((r: { status: string }) => r.status),
    ['skipped', 'failed'],
  );
  t.is((await lms(platform, admin, 'GET', `/admin/seat-allocations/${allocation.id}`)).body.data.learnerCount, 2);
  t.true(
    (await lms(platform, admin, 'GET', '/admin/seat-allocations?q=lagos')).body.data.some(
      (x: { id: string }) => x.id === allocation.id,
    ),
  );
  t.true(
    (await lms(platform, admin, 'GET', '/admin/organizations?q=lagos')).body.data.some(
      (o: { id: string }) => o.id === allocation.organization.id,
    ),
  );
  const byOrg = (await lms(platform, admin, 'GET', `/admin/learners?organizationId=${allocation.organization.id}`)).body
    .data;
  t.is(byOrg.length, 2);

  const badCsv = await lms(platform, admin, 'POST', '/admin/seat-allocations', {
    organizationId: allocation.organization.id,
    totalSlots: 1,
    courses: [{ courseId: course.id, csv: 'name\nNo email\n' }],
  });
  t.is(badCsv.status, 422);
  t.is(badCsv.body.error.code, 'lms.seats.csv_invalid');
  t.is(
    (await lms(platform, admin, 'POST', '/admin/seat-allocations', { totalSlots: 1, courses: [] })).status,
    422,
    'an organization is needed',
  );
  t.is((await lms(platform, instructor, 'GET', '/admin/seat-allocations')).body.error.code, 'auth.out_of_scope');
});

test('two admins inviting one address at once make one invite: the other is 409 lms.invite.duplicate', async (t) => {
  const email = uniqueEmail('race');
  const results = await Promise.all(
    Array.from({ length: 4 }, () => lms(platform, admin, 'POST', '/staff/invites', { email, role: 'support' })),
  );
  t.deepEqual(results.map((r) => r.status).sort(), [201, 409, 409, 409]);
  t.is(
    (await lms(platform, admin, 'GET', '/staff/invites?limit=100')).body.data.filter(
      (i: { email: string }) => i.email === email,
    ).length,
    1,
  );
});

test('learners seated at once on the last seat: exactly one gets it', async (t) => {
  const course = await publishedCourse(platform, instructor, 'Last seat course');
  const created = await lms(platform, admin, 'POST', '/admin/seat-allocations', {
    organization: { name: 'Kano Welders', email: 'hr@welders.example' },
    totalSlots: 1,
    courses: [],
  });
  const path = `/admin/seat-allocations/${created.body.data.allocation.id}/seats`;
  const results = await Promise.all(
    Array.from({ length: 4 }, () =>
      lms(platform, admin, 'POST', path, {
        courses: [{ courseId: course.id, learners: [{ email: uniqueEmail('rush') }] }],
      }),
    ),
  );
  t.deepEqual(results.map((r) => r.body.data.results[0].status).sort(), ['failed', 'failed', 'failed', 'provisioned']);
  t.like((await lms(platform, admin, 'GET', `/admin/seat-allocations/${created.body.data.allocation.id}`)).body.data, {
    learnerCount: 1,
    slotsAvailable: 0,
  });
});

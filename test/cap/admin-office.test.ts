import test from 'ava';
import { newId } from '../../server/platform/ids.ts';
import { applicationAtStage, applicationTargets, approvedCentreOwner, cap, onboard } from '../helpers/cap.ts';
import { call, sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp, type SignedUpUser } from '../helpers/users.ts';

// The admin back office's centre detail (its applications) and what suspension does to the public
// centre list.
let platform: TestPlatform;
let admin: SignedUpUser;
let centreId: string;
let target: { sectorId: string; tradeId: string; centreId: string };

test.before(async () => {
  platform = await startTestPlatform();
  const targets = await applicationTargets(platform, { sector: 'Automotive', trade: 'Panel Beating' });
  ({ admin, centreId } = targets);
  target = { sectorId: targets.sectorId, tradeId: targets.tradeId, centreId };
});
test.after.always(() => platform?.stop());

const publicCentreIds = async () =>
  ((await call('GET', platform.url('/v1/cap/centres?limit=100'))).body.data as Array<{ id: string }>).map((c) => c.id);

test("the admin centre detail lists the centre's applications, newest first, read-only", async (t) => {
  const first = await applicationAtStage(platform, target, 'folder_arrangement');
  const second = await applicationAtStage(platform, target, 'interview');
  const detail = (await cap(platform, admin, 'GET', `/admin/centres/${centreId}`)).body.data;
  t.true(detail.applicationCount >= 2);
  const ids = detail.applications.map((a: { id: string }) => a.id);
  t.true(ids.indexOf(second.id) < ids.indexOf(first.id), 'newest first');
  t.like(
    detail.applications.find((a: { id: string }) => a.id === first.id),
    {
      type: 'RPL',
      status: 'in_progress',
      currentStageKey: 'folder_arrangement',
      candidateName: 'Ada Obi',
      trade: { id: target.tradeId, name: 'Panel Beating' },
    },
  );
});

test.serial(
  'a suspended centre disappears from the public /centres list and comes back when approved again',
  async (t) => {
    t.true((await publicCentreIds()).includes(centreId));
    t.is((await cap(platform, admin, 'POST', `/admin/centres/${centreId}/suspend`)).status, 200);
    t.false((await publicCentreIds()).includes(centreId));
    t.is((await cap(platform, admin, 'POST', `/admin/centres/${centreId}/approve`)).status, 200);
    t.true((await publicCentreIds()).includes(centreId));
  },
);

test("the centre's detail lists the assessors it retains; the assessor's detail lists that centre and their assignments; either is then in use and not deleted", async (t) => {
  const person = await signUp(platform);
  await onboard(platform, person, 'assessor');
  const [profile] = await sql<{ id: string }>(
    platform,
    `UPDATE cap.assessor_profiles SET status = 'approved' WHERE user_id = $1 RETURNING id`,
    [person.userId],
  );
  const assessorId = profile!.id;
  // Retained requests and assignments are made by their own operations; here their rows stand in.
  await sql(
    platform,
    `INSERT INTO cap.retained_requests (id, assessor_id, centre_id, preferred_role, status, responded_at, created_at, updated_at) VALUES ($1, $2, $3, 'IV', 'approved', now(), now(), now())`,
    [newId(), assessorId, centreId],
  );
  const application = await applicationAtStage(platform, target, 'interview');
  await sql(
    platform,
    `INSERT INTO cap.application_assessors (id, application_id, assessor_id, centre_id, role, lead, assigned_at) VALUES ($1, $2, $3, $4, 'panel_voter', true, now())`,
    [newId(), application.id, assessorId, centreId],
  );

  const centre = (await cap(platform, admin, 'GET', `/admin/centres/${centreId}`)).body.data;
  t.deepEqual(
    centre.assessors.map((a: any) => ({ ...a, retainedSince: typeof a.retainedSince })),
    [{ assessorId, name: 'Ada Obi', email: person.email, preferredRole: 'IV', retainedSince: 'string' }],
  );
  const assessor = await cap(platform, admin, 'GET', `/admin/assessors/${assessorId}`);
  t.is(assessor.status, 200, assessor.text);
  t.like(assessor.body.data.centres[0], { centreId, preferredRole: 'IV' });
  t.like(assessor.body.data.applications[0], {
    applicationId: application.id,
    centreId,
    role: 'panel_voter',
    lead: true,
    status: 'in_progress',
    currentStageKey: 'interview',
    endedAt: null,
  });

  const centreDelete = await cap(platform, admin, 'DELETE', `/admin/centres/${centreId}`);
  t.is(centreDelete.status, 409);
  t.is(centreDelete.body.error.code, 'centre.in_use');
  const assessorDelete = await cap(platform, admin, 'PATCH', '/admin/assessors/bulk', {
    json: { ids: [assessorId], action: 'delete' },
  });
  t.is(assessorDelete.status, 409);
  t.is(assessorDelete.body.error.code, 'admin.bulk_refused');
  t.regex(assessorDelete.body.error.details[0].issue, /retained request.*assignment/);
});

test('a centre whose only use is a job posting is in use: deleting it is 409, naming it in bulk', async (t) => {
  const other = await signUp(platform);
  const otherCentre = await approvedCentreOwner(platform, other);
  await sql(
    platform,
    `INSERT INTO cap.job_postings (id, centre_id, trade_id, title, slot, deadline, description, requirements, status, created_by, created_at, updated_at)
    VALUES ($1, $2, $3, 'Assessor wanted', 1, now() + interval '30 days', 'Panel work', '[]', 'open', $4, now(), now())`,
    [newId(), otherCentre, target.tradeId, other.userId],
  );
  const refused = await cap(platform, admin, 'PATCH', '/admin/centres/bulk', {
    json: { ids: [otherCentre], action: 'delete' },
  });
  t.is(refused.status, 409);
  t.deepEqual(
    refused.body.error.details.map((d: { field: string }) => d.field),
    ['ids[0]'],
  );
  t.regex(refused.body.error.details[0].issue, /job postings/);
  t.is((await cap(platform, admin, 'GET', `/admin/centres/${otherCentre}`)).status, 200, 'still there');
});

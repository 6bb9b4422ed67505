import test from 'ava';
import { newId } from '../../server/platform/ids.ts';
import { activeStaff, applicationTargets, approvedCentreOwner, cap, onboard, asCentre } from '../helpers/cap.ts';
import { approvedAssessor, asAssessor, retainedAssessor } from '../helpers/assessors.ts';
import { sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp, type SignedUpUser } from '../helpers/users.ts';

// The centre's assessor roster (openapi/cap/centre-assessors.yaml, server/cap/assessors/roster.ts).
let platform: TestPlatform;
let admin: SignedUpUser;
let candidate: SignedUpUser;
let sectorId: string;
let tradeId: string;

test.before(async () => {
  platform = await startTestPlatform();
  ({ admin, sectorId, tradeId } = await applicationTargets(platform, { sector: 'Automotive', trade: 'Panel Beating' }));
  candidate = await signUp(platform);
  await onboard(platform, candidate, 'candidate');
});
test.after.always(() => platform?.stop());

async function centre() {
  const owner = await signUp(platform);
  return { owner, centreId: await approvedCentreOwner(platform, owner) };
}

/** An application of the centre in the given status, with the assessor currently assigned to it. */
async function assignedApplication(centreId: string, assessorId: string, status = 'draft'): Promise<string> {
  const made = await cap(platform, candidate, 'POST', '/applications', {
    headers: { 'X-CAP-PERSONA': 'candidate' },
    json: { type: status === 'draft' ? 'RPL' : 'NSQ', sectorId, tradeId, unitIds: [], centreId },
  });
  const id =
    made.body.data?.id ??
    (
      await sql<{ id: string }>(
        platform,
        `SELECT id FROM cap.applications WHERE centre_id = $1 AND candidate_user_id = $2 ORDER BY id DESC LIMIT 1`,
        [centreId, candidate.userId],
      )
    )[0]!.id;
  if (status !== 'draft') await sql(platform, 'UPDATE cap.applications SET status = $2 WHERE id = $1', [id, status]);
  await sql(
    platform,
    `INSERT INTO cap.application_assessors (id, application_id, assessor_id, centre_id, role, lead, assigned_at) VALUES ($1, $2, $3, $4, 'facilitator', false, now())`,
    [newId(), id, assessorId, centreId],
  );
  return id;
}

test('the roster holds pending, approved and revoked assessors but not the rejected; the summary counts them; status and q filter', async (t) => {
  const { owner, centreId } = await centre();
  const ask = async (name: string) => {
    const [firstName, lastName] = name.split(' ');
    const assessor = await approvedAssessor(platform, admin, {}, { firstName: firstName!, lastName: lastName! });
    const request = (
      await cap(platform, assessor.user, 'POST', '/assessor/retained-requests', {
        headers: asAssessor,
        json: { centreId, preferredRole: 'any' },
      })
    ).body.data;
    return { ...assessor, requestId: request.id as string };
  };
  const [pending, approved, revoked, rejected] = [
    await ask('Pat Pending'),
    await ask('Ama Approved'),
    await ask('Rex Revoked'),
    await ask('Rita Rejected'),
  ];
  const decide = (id: string, action: string) =>
    cap(platform, owner, 'PATCH', `/centre/retained-requests/${id}/${action}`, { headers: asCentre(centreId) });
  await decide(approved.requestId, 'approve');
  await decide(revoked.requestId, 'approve');
  await decide(revoked.requestId, 'revoke');
  await decide(rejected.requestId, 'reject');

  const all = await cap(platform, owner, 'GET', '/centre/assessors?status=all', { headers: asCentre(centreId) });
  t.is(all.status, 200);
  t.deepEqual(
    all.body.data.map((a: { name: string; status: string }) => [a.name, a.status]),
    [
      ['Rex Revoked', 'revoked'],
      ['Ama Approved', 'approved'],
      ['Pat Pending', 'pending'],
    ],
  );
  t.like(all.body.data[1], {
    id: approved.id,
    retainedRequestId: approved.requestId,
    assignedCount: 0,
    email: approved.user.email,
  });
  t.is(
    (await cap(platform, owner, 'GET', '/centre/assessors', { headers: asCentre(centreId) })).body.data.length,
    3,
    'all by default',
  );
  t.deepEqual(
    (
      await cap(platform, owner, 'GET', '/centre/assessors?status=approved', { headers: asCentre(centreId) })
    ).body.data.map((a: { id: string }) => a.id),
    [approved.id],
  );
  t.deepEqual(
    (await cap(platform, owner, 'GET', '/centre/assessors?q=pat', { headers: asCentre(centreId) })).body.data.map(
      (a: { id: string }) => a.id,
    ),
    [pending.id],
  );
  t.deepEqual(
    (await cap(platform, owner, 'GET', '/centre/assessors/summary', { headers: asCentre(centreId) })).body.data,
    { total: 3, active: 1, pending: 1, inactive: 1 },
  );

  // Asking again after the revoke: the roster shows the latest request.
  await cap(platform, revoked.user, 'POST', '/assessor/retained-requests', {
    headers: asAssessor,
    json: { centreId, preferredRole: 'any' },
  });
  t.deepEqual(
    (await cap(platform, owner, 'GET', '/centre/assessors/summary', { headers: asCentre(centreId) })).body.data,
    { total: 3, active: 1, pending: 2, inactive: 0 },
  );
  t.is(
    (await cap(platform, owner, 'GET', `/centre/assessors/${rejected.id}`, { headers: asCentre(centreId) })).body.error
      .code,
    'auth.out_of_scope',
    'a rejected assessor is not on the roster',
  );
});

test("the qualification filter follows the onboarding's certificates (QAA, IQM); IV and EV match nobody", async (t) => {
  const { owner, centreId } = await centre();
  const qaa = await retainedAssessor(platform, admin, owner, centreId, {
    certifications: { qaa: { certificateAssetId: newId() } },
  });
  const iqm = await retainedAssessor(platform, admin, owner, centreId, {
    certifications: { iqm: { certificateAssetId: newId() } },
  });
  const ids = async (qualification: string) =>
    (
      await cap(platform, owner, 'GET', `/centre/assessors?qualification=${qualification}`, {
        headers: asCentre(centreId),
      })
    ).body.data.map((a: { id: string }) => a.id);
  t.deepEqual(await ids('QAA'), [qaa.id]);
  t.deepEqual(await ids('IQM'), [iqm.id]);
  t.deepEqual(await ids('IV'), []);
  t.is(
    (await cap(platform, owner, 'GET', '/centre/assessors?qualification=XYZ', { headers: asCentre(centreId) })).status,
    422,
  );
});

test("the detail counts the assessor's current assignments at this centre only; their applications are those, with the list's filters", async (t) => {
  const a = await centre();
  const b = await centre();
  const assessor = await retainedAssessor(platform, admin, a.owner, a.centreId);
  await cap(platform, assessor.user, 'POST', '/assessor/retained-requests', {
    headers: asAssessor,
    json: { centreId: b.centreId, preferredRole: 'any' },
  });
  const ongoing = await assignedApplication(a.centreId, assessor.id);
  const certified = await assignedApplication(a.centreId, assessor.id, 'certified');
  const elsewhere = await assignedApplication(b.centreId, assessor.id);
  const ended = await assignedApplication(a.centreId, assessor.id, 'in_progress');
  await sql(platform, 'UPDATE cap.application_assessors SET ended_at = now() WHERE application_id = $1', [ended]);

  const detail = await cap(platform, a.owner, 'GET', `/centre/assessors/${assessor.id}`, {
    headers: asCentre(a.centreId),
  });
  t.is(detail.status, 200, detail.text);
  t.like(detail.body.data, {
    id: assessor.id,
    status: 'approved',
    assignedCount: 2,
    workload: { assigned: 2, ongoing: 1, completed: 1 },
  });
  const listed = await cap(platform, a.owner, 'GET', `/centre/assessors/${assessor.id}/applications`, {
    headers: asCentre(a.centreId),
  });
  t.deepEqual(listed.body.data.map((app: { id: string }) => app.id).sort(), [ongoing, certified].sort());
  t.deepEqual(
    (
      await cap(platform, a.owner, 'GET', `/centre/assessors/${assessor.id}/applications?status=certified`, {
        headers: asCentre(a.centreId),
      })
    ).body.data.map((app: { id: string }) => app.id),
    [certified],
  );
  t.deepEqual(
    (
      await cap(platform, b.owner, 'GET', `/centre/assessors/${assessor.id}/applications`, {
        headers: asCentre(b.centreId),
      })
    ).body.data.map((app: { id: string }) => app.id),
    [elsewhere],
    'centre B sees its own only',
  );
  t.is(
    (await cap(platform, b.owner, 'GET', `/centre/assessors/${assessor.id}`, { headers: asCentre(b.centreId) })).body
      .data.status,
    'pending',
  );
});

test("centre A never reads centre B's assessors: the list leaves them out, detail and applications are 403 auth.out_of_scope; staff read the roster", async (t) => {
  const a = await centre();
  const b = await centre();
  const theirs = await retainedAssessor(platform, admin, b.owner, b.centreId);
  t.false(
    (await cap(platform, a.owner, 'GET', '/centre/assessors', { headers: asCentre(a.centreId) })).body.data.some(
      (x: { id: string }) => x.id === theirs.id,
    ),
  );
  for (const path of [`/centre/assessors/${theirs.id}`, `/centre/assessors/${theirs.id}/applications`]) {
    const res = await cap(platform, a.owner, 'GET', path, { headers: asCentre(a.centreId) });
    t.is(res.status, 403, path);
    t.is(res.body.error.code, 'auth.out_of_scope', path);
  }
  t.is(
    (await cap(platform, a.owner, 'GET', `/centre/assessors/${newId()}`, { headers: asCentre(a.centreId) })).status,
    404,
  );
  const { member } = await activeStaff(platform, b.owner, b.centreId, { role: 'staff' });
  t.is(
    (await cap(platform, member, 'GET', `/centre/assessors/${theirs.id}`, { headers: asCentre(b.centreId) })).status,
    200,
  );
});

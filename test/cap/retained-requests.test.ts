import test from 'ava';
import { newId } from '../../server/platform/ids.ts';
import { activeStaff, applicationTargets, approvedCentreOwner, cap, onboard, asCentre } from '../helpers/cap.ts';
import { approvedAssessor, asAssessor, onboardedAssessor, retainedAssessor } from '../helpers/assessors.ts';
import { sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp, type SignedUpUser } from '../helpers/users.ts';

// Retained requests (openapi/cap/retained-requests.yaml, server/cap/assessors/retained.ts).
let platform: TestPlatform;
let admin: SignedUpUser;
let owner: SignedUpUser;
let centreId: string;
let otherOwner: SignedUpUser;
let otherCentreId: string;
let sectorId: string;
let tradeId: string;

test.before(async () => {
  platform = await startTestPlatform();
  ({ admin, owner, centreId, sectorId, tradeId } = await applicationTargets(platform, {
    sector: 'Engineering',
    trade: 'Welding',
  }));
  otherOwner = await signUp(platform);
  otherCentreId = await approvedCentreOwner(platform, otherOwner);
});
test.after.always(() => platform?.stop());

const ask = (user: SignedUpUser, json: object) =>
  cap(platform, user, 'POST', '/assessor/retained-requests', { headers: asAssessor, json });

test('only an approved assessor may ask, only an approved centre can be asked, and only for a role of the vocabulary', async (t) => {
  const pending = await onboardedAssessor(platform);
  const refused = await ask(pending.user, { centreId, preferredRole: 'assessor' });
  t.is(refused.status, 403);
  t.is(refused.body.error.code, 'assessor.not_approved');

  const { user } = await approvedAssessor(platform, admin);
  const chief = await ask(user, { centreId, preferredRole: 'chief' });
  t.is(chief.status, 422, 'outside the vocabulary');
  t.true(
    chief.body.error.details.some((d: { field: string }) => d.field.includes('preferredRole')),
    JSON.stringify(chief.body.error.details),
  );

  const unapprovedOwner = await signUp(platform);
  await onboard(platform, unapprovedOwner, 'centre');
  const unapproved = (await cap(platform, unapprovedOwner, 'GET', '/me')).body.data.centres[0].centreId;
  const notApproved = await ask(user, { centreId: unapproved, preferredRole: 'assessor' });
  t.is(notApproved.status, 422);
  t.deepEqual(notApproved.body.error.details, [{ field: 'centreId', issue: 'is not an approved centre' }]);
  t.is((await ask(user, { centreId: newId(), preferredRole: 'assessor' })).status, 422, 'no such centre');
  t.is(
    (
      await sql(
        platform,
        'SELECT count(*)::int AS n FROM cap.retained_requests r JOIN cap.assessor_profiles p ON p.id = r.assessor_id WHERE p.user_id = $1',
        [user.userId],
      )
    )[0]!.n,
    0,
  );
});

test('the real web client asks with only centreId: the request is for any role', async (t) => {
  const assessor = await approvedAssessor(platform, admin);
  const asked = await ask(assessor.user, { centreId });
  t.is(asked.status, 201, JSON.stringify(asked.body));
  t.like(asked.body.data, { centreId, status: 'pending', preferredRole: 'any' });
});

test('an approved assessor asks once per centre: pending, with who they are; a second ask is 409 retained_request.exists', async (t) => {
  const assessor = await approvedAssessor(
    platform,
    admin,
    { sectorIds: [sectorId], certifications: { qaa: { certificateAssetId: newId() } } },
    { firstName: 'Tunde', lastName: 'Bello' },
  );
  const asked = await ask(assessor.user, { centreId, preferredRole: 'internal_verifier' });
  t.is(asked.status, 201);
  t.like(asked.body.data, {
    assessorId: assessor.id,
    centreId,
    status: 'pending',
    preferredRole: 'internal_verifier',
    respondedAt: null,
    respondedBy: null,
  });
  t.like(asked.body.data.assessor, {
    id: assessor.id,
    name: 'Tunde Bello',
    email: assessor.user.email,
    qualifications: ['QAA'],
    yearsOfExperience: null,
  });
  t.deepEqual(asked.body.data.assessor.sectors, [{ id: sectorId, name: 'Engineering' }]);
  t.is(asked.body.data.assessor.certificates[0].kind, 'qaa');
  const again = await ask(assessor.user, { centreId, preferredRole: 'assessor' });
  t.is(again.status, 409);
  t.is(again.body.error.code, 'retained_request.exists');
  t.is(
    (await ask(assessor.user, { centreId: otherCentreId, preferredRole: 'assessor' })).status,
    201,
    'another centre is another request',
  );

  const mine = await cap(platform, assessor.user, 'GET', '/assessor/retained-requests', { headers: asAssessor });
  t.deepEqual(mine.body.data.map((r: { centre: { name: string } }) => r.centre.name).length, 2);
  t.deepEqual(
    mine.body.data.map((r: { centreId: string }) => r.centreId),
    [otherCentreId, centreId],
    'newest first',
  );
});

test("centre A never reads or decides centre B's requests: lists, detail and every decision", async (t) => {
  const assessor = await approvedAssessor(platform, admin);
  const request = (await ask(assessor.user, { centreId: otherCentreId, preferredRole: 'any' })).body.data;
  const listed = await cap(platform, owner, 'GET', '/centre/retained-requests', { headers: asCentre(centreId) });
  t.false(listed.body.data.some((r: { id: string }) => r.id === request.id));
  t.true(
    (
      await cap(platform, otherOwner, 'GET', '/centre/retained-requests', { headers: asCentre(otherCentreId) })
    ).body.data.some((r: { id: string }) => r.id === request.id),
  );
  const detail = await cap(platform, owner, 'GET', `/centre/retained-requests/${request.id}`, {
    headers: asCentre(centreId),
  });
  t.is(detail.status, 403);
  t.is(detail.body.error.code, 'auth.out_of_scope');
  for (const action of ['approve', 'reject', 'revoke']) {
    const res = await cap(platform, owner, 'PATCH', `/centre/retained-requests/${request.id}/${action}`, {
      headers: asCentre(centreId),
    });
    t.is(res.body.error.code, 'auth.out_of_scope', action);
  }
  t.is(
    (await cap(platform, owner, 'GET', `/centre/retained-requests/${newId()}`, { headers: asCentre(centreId) })).status,
    404,
  );
  t.is(
    (await sql(platform, 'SELECT status FROM cap.retained_requests WHERE id = $1', [request.id]))[0]!.status,
    'pending',
  );
});

test('staff read requests but only super and regular admins decide (403 centre.role_forbidden); approve, reject and revoke follow the lifecycle', async (t) => {
  const { member: staff } = await activeStaff(platform, owner, centreId, { role: 'staff' });
  const { member: regular } = await activeStaff(platform, owner, centreId, { role: 'regular_admin' });
  const first = (await ask((await approvedAssessor(platform, admin)).user, { centreId, preferredRole: 'assessor' }))
    .body.data;
  const second = (await ask((await approvedAssessor(platform, admin)).user, { centreId, preferredRole: 'assessor' }))
    .body.data;

  t.is(
    (await cap(platform, staff, 'GET', `/centre/retained-requests/${first.id}`, { headers: asCentre(centreId) }))
      .status,
    200,
  );
  const refused = await cap(platform, staff, 'PATCH', `/centre/retained-requests/${first.id}/approve`, {
    headers: asCentre(centreId),
  });
  t.is(refused.status, 403);
  t.is(refused.body.error.code, 'centre.role_forbidden');
  t.is(
    (
      await cap(platform, staff, 'PATCH', '/centre/retained-requests/bulk', {
        headers: asCentre(centreId),
        json: { ids: [first.id], decision: 'reject' },
      })
    ).body.error.code,
    'centre.role_forbidden',
  );

  const approved = await cap(platform, regular, 'PATCH', `/centre/retained-requests/${first.id}/approve`, {
    headers: asCentre(centreId),
  });
  t.like(approved.body.data, { status: 'approved', respondedBy: regular.userId });
  t.truthy(approved.body.data.respondedAt);
  t.is(
    (
      await cap(platform, regular, 'PATCH', `/centre/retained-requests/${first.id}/approve`, {
        headers: asCentre(centreId),
      })
    ).body.data.status,
    'approved',
    'approving again changes nothing',
  );
  const rejectApproved = await cap(platform, owner, 'PATCH', `/centre/retained-requests/${first.id}/reject`, {
    headers: asCentre(centreId),
  });
  t.is(rejectApproved.status, 409);
  t.is(rejectApproved.body.error.code, 'retained_request.transition_not_allowed');
  const revokePending = await cap(platform, owner, 'PATCH', `/centre/retained-requests/${second.id}/revoke`, {
    headers: asCentre(centreId),
  });
  t.is(revokePending.body.error.code, 'retained_request.transition_not_allowed');
  t.is(
    (
      await cap(platform, owner, 'PATCH', `/centre/retained-requests/${second.id}/reject`, {
        headers: asCentre(centreId),
      })
    ).body.data.status,
    'rejected',
  );

  const pendingOnly = await cap(platform, owner, 'GET', '/centre/retained-requests?status=pending', {
    headers: asCentre(centreId),
  });
  t.false(pendingOnly.body.data.some((r: { id: string }) => r.id === first.id || r.id === second.id));
});

test("revoking ends the assessor's current assignments at the centre, and they may ask again", async (t) => {
  const assessor = await retainedAssessor(platform, admin, owner, centreId);
  const candidate = await signUp(platform);
  await onboard(platform, candidate, 'candidate');
  const application = (
    await cap(platform, candidate, 'POST', '/applications', {
      headers: { 'X-CAP-PERSONA': 'candidate' },
      json: { type: 'RPL', sectorId, tradeId, unitIds: [], centreId },
    })
  ).body.data;
  await sql(
    platform,
    `INSERT INTO cap.application_assessors (id, application_id, assessor_id, centre_id, role, lead, assigned_at) VALUES ($1, $2, $3, $4, 'facilitator', false, now())`,
    [newId(), application.id, assessor.id, centreId],
  );

  const revoked = await cap(platform, owner, 'PATCH', `/centre/retained-requests/${assessor.requestId}/revoke`, {
    headers: asCentre(centreId),
  });
  t.is(revoked.body.data.status, 'revoked');
  t.is(
    (
      await sql(
        platform,
        'SELECT count(*)::int AS n FROM cap.application_assessors WHERE assessor_id = $1 AND ended_at IS NULL',
        [assessor.id],
      )
    )[0]!.n,
    0,
  );
  t.is((await ask(assessor.user, { centreId, preferredRole: 'any' })).status, 201);
});

test("a bulk decision is all or nothing: every bad id is named (unknown, another centre's, a status that does not fit) and nothing changes", async (t) => {
  const mine = [];
  for (let i = 0; i < 2; i++)
    mine.push(
      (await ask((await approvedAssessor(platform, admin)).user, { centreId, preferredRole: 'any' })).body.data
        .id as string,
    );
  const theirs = (
    await ask((await approvedAssessor(platform, admin)).user, { centreId: otherCentreId, preferredRole: 'any' })
  ).body.data.id as string;
  const done = (await retainedAssessor(platform, admin, owner, centreId)).requestId;
  const unknown = newId();

  const refused = await cap(platform, owner, 'PATCH', '/centre/retained-requests/bulk', {
    headers: asCentre(centreId),
    json: { ids: [...mine, theirs, done, unknown], decision: 'reject' },
  });
  t.is(refused.status, 409);
  t.is(refused.body.error.code, 'retained_request.bulk_refused');
  t.deepEqual(
    refused.body.error.details.map((d: { field: string }) => d.field),
    ['ids[2]', 'ids[3]', 'ids[4]'],
  );
  t.regex(refused.body.error.details[0].issue, /another centre/);
  t.regex(refused.body.error.details[1].issue, /approved and cannot be rejected/);
  t.deepEqual(
    (
      await sql<{ status: string }>(platform, 'SELECT status FROM cap.retained_requests WHERE id = ANY($1)', [mine])
    ).map((r) => r.status),
    ['pending', 'pending'],
  );

  const approved = await cap(platform, owner, 'PATCH', '/centre/retained-requests/bulk', {
    headers: asCentre(centreId),
    json: { ids: mine, decision: 'approve' },
  });
  t.is(approved.status, 200);
  t.deepEqual(
    approved.body.data.map((r: { status: string }) => r.status),
    ['approved', 'approved'],
  );
});

test("the centre list filters by status and by the assessor's name or email, and pages with a cursor", async (t) => {
  const owner2 = await signUp(platform);
  const centre2 = await approvedCentreOwner(platform, owner2);
  const names = ['Chidi Okafor', 'Ngozi Eze', 'Musa Bello'];
  for (const full of names) {
    const [firstName, lastName] = full.split(' ');
    const assessor = await approvedAssessor(platform, admin, {}, { firstName: firstName!, lastName: lastName! });
    await ask(assessor.user, { centreId: centre2, preferredRole: 'any' });
  }
  const found = await cap(platform, owner2, 'GET', '/centre/retained-requests?q=ngozi', { headers: asCentre(centre2) });
  t.deepEqual(
    found.body.data.map((r: { assessor: { name: string } }) => r.assessor.name),
    ['Ngozi Eze'],
  );
  const first = await cap(platform, owner2, 'GET', '/centre/retained-requests?limit=2&order=asc', {
    headers: asCentre(centre2),
  });
  t.deepEqual(
    first.body.data.map((r: { assessor: { name: string } }) => r.assessor.name),
    names.slice(0, 2),
  );
  t.true(first.body.meta.pagination.hasMore);
  const next = await cap(
    platform,
    owner2,
    'GET',
    `/centre/retained-requests?limit=2&order=asc&cursor=${first.body.meta.pagination.nextCursor}`,
    { headers: asCentre(centre2) },
  );
  t.deepEqual(
    next.body.data.map((r: { assessor: { name: string } }) => r.assessor.name),
    names.slice(2),
  );
  t.is(
    (await cap(platform, owner2, 'GET', '/centre/retained-requests?status=approved', { headers: asCentre(centre2) }))
      .body.data.length,
    0,
  );
});

test('the assessor operations are for the assessor persona: acting for a centre is 403 auth.assessor_persona_required', async (t) => {
  const res = await cap(platform, owner, 'GET', '/assessor/retained-requests', { headers: asCentre(centreId) });
  t.is(res.status, 403);
  t.is(res.body.error.code, 'auth.assessor_persona_required');
});

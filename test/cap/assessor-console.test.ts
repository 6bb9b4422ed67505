import test from 'ava';
import { newId } from '../../server/platform/ids.ts';
import { applicationTargets, approvedCentreOwner, cap, onboard, asCentre } from '../helpers/cap.ts';
import { asAssessor, onboardedAssessor, retainedAssessor } from '../helpers/assessors.ts';
import { sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp, type SignedUpUser } from '../helpers/users.ts';

// The assessor console (openapi/cap/assessor-console.yaml, server/cap/assessors/console.ts).
let platform: TestPlatform;
let admin: SignedUpUser;
let owner: SignedUpUser;
let centreId: string;
let sectorId: string;
let tradeId: string;
let candidate: SignedUpUser;

test.before(async () => {
  platform = await startTestPlatform();
  ({ admin, owner, centreId, sectorId, tradeId } = await applicationTargets(platform, {
    sector: 'Plumbing',
    trade: 'Pipe Fitting',
  }));
  candidate = await signUp(platform);
  await onboard(platform, candidate, 'candidate');
});
test.after.always(() => platform?.stop());

const get = (user: SignedUpUser, path: string) => cap(platform, user, 'GET', path, { headers: asAssessor });

async function assign(centre: string, assessorId: string, role = 'facilitator', type = 'RPL') {
  const made = await cap(platform, candidate, 'POST', '/applications', {
    headers: { 'X-CAP-PERSONA': 'candidate' },
    json: { type, sectorId, tradeId, unitIds: [], centreId: centre },
  });
  if (made.status !== 201) throw new Error(made.text);
  await sql(
    platform,
    `INSERT INTO cap.application_assessors (id, application_id, assessor_id, centre_id, role, lead, assigned_at) VALUES ($1, $2, $3, $4, $5, false, now())`,
    [newId(), made.body.data.id, assessorId, centre, role],
  );
  return made.body.data.id as string;
}

test('the profile nests the assessor onboarding; a PATCH merges into the draft, and its sectorIds set the sectors', async (t) => {
  const assessor = await onboardedAssessor(platform, { certifications: { iqm: { certificateAssetId: newId() } } });
  const profile = await get(assessor.user, '/assessor/profile');
  t.is(profile.status, 200);
  t.like(profile.body.data, {
    id: assessor.id,
    status: 'pending',
    name: 'Ada Obi',
    qualifications: ['IQM'],
    onboarding: { assessorDetails: { assessorNo: 'ASR-0042' } },
  });

  const changed = await cap(platform, assessor.user, 'PATCH', '/assessor/profile', {
    headers: asAssessor,
    json: { personalDetails: { firstName: 'Adaeze' }, assessorDetails: { sectorIds: [sectorId] } },
  });
  t.is(changed.status, 200);
  t.like(changed.body.data, {
    name: 'Adaeze Obi',
    sectors: [{ id: sectorId, name: 'Plumbing' }],
    onboarding: { personalDetails: { firstName: 'Adaeze', lastName: 'Obi' } },
  });
  t.like((await cap(platform, assessor.user, 'GET', '/onboarding/assessor')).body.data.data, {
    personalDetails: { firstName: 'Adaeze' },
    assessorDetails: { sectorIds: [sectorId] },
  });

  const unknown = await cap(platform, assessor.user, 'PATCH', '/assessor/profile', {
    headers: asAssessor,
    json: { assessorDetails: { sectorIds: [sectorId, newId()] } },
  });
  t.is(unknown.status, 422);
  t.deepEqual(
    unknown.body.error.details.map((d: { field: string }) => d.field),
    ['assessorDetails.sectorIds[1]'],
  );
});

test('PUT /assessor/profile/sectors replaces the sectors from the catalogue (the onboarding follows); an unknown sector is 422 and changes nothing', async (t) => {
  const assessor = await onboardedAssessor(platform);
  const second = (
    await cap(platform, admin, 'POST', '/admin/sectors', { json: { name: `Aquaculture ${newId().slice(-6)}` } })
  ).body.data;
  const put = (sectorIds: string[]) =>
    cap(platform, assessor.user, 'PUT', '/assessor/profile/sectors', { headers: asAssessor, json: { sectorIds } });
  const set = await put([second.id, sectorId]);
  t.is(set.status, 200);
  t.deepEqual(
    set.body.data.map((s: { name: string }) => s.name),
    [second.name, 'Plumbing'].sort(),
  );
  t.like(set.body.data[0], { slug: set.body.data[0].slug, description: null });
  t.deepEqual(
    (await cap(platform, assessor.user, 'GET', '/onboarding/assessor')).body.data.data.assessorDetails.sectorIds,
    [second.id, sectorId],
  );
  const refused = await put([sectorId, newId()]);
  t.is(refused.status, 422);
  t.deepEqual(
    refused.body.error.details.map((d: { field: string }) => d.field),
    ['sectorIds[1]'],
  );
  t.is((await get(assessor.user, '/assessor/profile/sectors')).body.data.length, 2);
  t.deepEqual((await put([])).body.data, []);
});

test("the console counts, events, applications and centres come from the assessor's assignments and retaining centres", async (t) => {
  const assessor = await retainedAssessor(platform, admin, owner, centreId);
  const otherOwner = await signUp(platform);
  const otherCentre = await approvedCentreOwner(platform, otherOwner);
  const facilitated = await assign(centreId, assessor.id, 'facilitator');
  const verified = await assign(centreId, assessor.id, 'iv', 'NSQ');
  await sql(platform, `UPDATE cap.applications SET status = 'certified' WHERE id = $1`, [verified]);
  const ended = await assign(otherCentre, assessor.id, 'panel_voter');
  await sql(platform, 'UPDATE cap.application_assessors SET ended_at = now() WHERE application_id = $1', [ended]);
  await cap(platform, assessor.user, 'POST', '/assessor/retained-requests', {
    headers: asAssessor,
    json: { centreId: otherCentre, preferredRole: 'assessor' },
  });

  t.deepEqual((await get(assessor.user, '/assessor/summary')).body.data, {
    status: 'approved',
    retainedBy: 1,
    pendingRequests: 1,
    activeAssignments: 2,
    applications: { assigned: 2, ongoing: 1, completed: 1 },
    jobApplications: { applied: 0, accepted: 0 },
  });
  const events = (await get(assessor.user, '/assessor/events')).body.data;
  t.deepEqual(
    events.map((e: { applicationId: string; role: string }) => [e.applicationId, e.role]),
    [
      [facilitated, 'facilitator'],
      [verified, 'iv'],
    ],
  );
  t.is(events[0].application.trade.name, 'Pipe Fitting');

  const applications = await get(assessor.user, '/assessor/applications');
  t.deepEqual(applications.body.data.map((a: { id: string }) => a.id).sort(), [facilitated, verified].sort());
  t.deepEqual(
    applications.body.data
      .find((a: { id: string }) => a.id === verified)
      .assignments.map((x: { role: string }) => x.role),
    ['iv'],
  );
  t.deepEqual(
    (await get(assessor.user, '/assessor/applications?status=certified')).body.data.map((a: { id: string }) => a.id),
    [verified],
  );

  const centres = (await get(assessor.user, '/assessor/centres')).body.data;
  t.deepEqual(
    centres.map((c: { id: string }) => c.id),
    [centreId],
    'only the centre that retains them',
  );
  t.like(centres[0], { retainedRequestId: assessor.requestId, preferredRole: 'any', activeAssignments: 2 });
  t.is((await get(assessor.user, `/assessor/centres/${centreId}/applications`)).body.data.length, 2);
  const notRetained = await get(assessor.user, `/assessor/centres/${otherCentre}/applications`);
  t.is(notRetained.status, 403);
  t.is(notRetained.body.error.code, 'auth.out_of_scope');
});

test('a suspended assessor acts on nothing of the console (403 assessor.suspended); a centre cannot read it', async (t) => {
  const assessor = await onboardedAssessor(platform);
  await cap(platform, admin, 'POST', `/admin/assessors/${assessor.id}/approve`);
  await cap(platform, admin, 'POST', `/admin/assessors/${assessor.id}/suspend`);
  for (const path of [
    '/assessor/profile',
    '/assessor/summary',
    '/assessor/events',
    '/assessor/applications',
    '/assessor/centres',
    '/assessor/profile/sectors',
  ]) {
    t.is((await get(assessor.user, path)).body.error?.code, 'assessor.suspended', path);
  }
  t.is(
    (await cap(platform, owner, 'GET', '/assessor/profile', { headers: asCentre(centreId) })).body.error.code,
    'auth.assessor_persona_required',
  );
});

test('saving the completed onboarding with sectorIds (the settings screen) moves the sectors too', async (t) => {
  const assessor = await onboardedAssessor(platform);
  await cap(platform, assessor.user, 'PATCH', '/onboarding/assessor/save', {
    json: { assessorDetails: { assessorNo: 'ASR-0042', sectorIds: [sectorId] } },
  });
  t.deepEqual(
    (await get(assessor.user, '/assessor/profile/sectors')).body.data.map((s: { id: string }) => s.id),
    [sectorId],
  );
  await cap(platform, assessor.user, 'PATCH', '/onboarding/assessor/save', {
    json: { personalDetails: { firstName: 'Ama' } },
  });
  t.is(
    (await get(assessor.user, '/assessor/profile/sectors')).body.data.length,
    1,
    'a save without sectors leaves them',
  );
});

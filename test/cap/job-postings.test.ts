import test from 'ava';
import { newId } from '../../server/platform/ids.ts';
import { activeStaff, applicationTargets, approvedCentreOwner, cap, onboard, asCentre } from '../helpers/cap.ts';
import { approvedAssessor, asAssessor, onboardedAssessor } from '../helpers/assessors.ts';
import { sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp, type SignedUpUser } from '../helpers/users.ts';

// Job postings and the marketplace (openapi/cap/job-postings.yaml, server/cap/assessors/postings.ts).
let platform: TestPlatform;
let admin: SignedUpUser;
let owner: SignedUpUser;
let centreId: string;
let sectorId: string;
let tradeId: string;
let otherSectorId: string;

test.before(async () => {
  platform = await startTestPlatform();
  ({ admin, owner, centreId, sectorId, tradeId } = await applicationTargets(platform, {
    sector: 'Electrical',
    trade: 'Electrical Installation',
  }));
  otherSectorId = (await cap(platform, admin, 'POST', '/admin/sectors', { json: { name: 'Agriculture' } })).body.data
    .id;
});
test.after.always(() => platform?.stop());

const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10) + 'T23:59:59Z';
/** What the client's "post a job" form sends. */
const posting = (overrides: object = {}) => ({
  title: 'Electrical installation assessor',
  tradeId,
  slot: 2,
  deadline: tomorrow(),
  description: 'Assess RPL candidates in electrical installation.',
  requirements: ['QAA certificate', 'Five years in the trade'],
  duration: '3 Months',
  ...overrides,
});

async function post(by: SignedUpUser = owner, centre = centreId, overrides: object = {}) {
  const res = await cap(platform, by, 'POST', '/centre/job-postings', {
    headers: asCentre(centre),
    json: posting(overrides),
  });
  if (res.status !== 201) throw new Error(`post: ${res.status} ${res.text}`);
  return res.body.data as { id: string };
}

const inSector = () => approvedAssessor(platform, admin, { sectorIds: [sectorId] });
const apply = (user: SignedUpUser, id: string) =>
  cap(platform, user, 'POST', `/assessor/job-postings/${id}/apply`, { headers: asAssessor });
const marketplaceIds = async (user: SignedUpUser) =>
  (await cap(platform, user, 'GET', '/assessor/marketplace', { headers: asAssessor })).body.data.map(
    (p: { id: string }) => p.id,
  ) as string[];

test('admins of an approved centre post for an active trade with a deadline ahead; staff cannot (403 centre.role_forbidden)', async (t) => {
  const { member: regular } = await activeStaff(platform, owner, centreId, { role: 'regular_admin' });
  const { member: staff } = await activeStaff(platform, owner, centreId, { role: 'staff' });
  const made = await cap(platform, regular, 'POST', '/centre/job-postings', {
    headers: asCentre(centreId),
    json: posting(),
  });
  t.is(made.status, 201);
  t.like(made.body.data, {
    title: 'Electrical installation assessor',
    tradeId,
    trade: { id: tradeId, name: 'Electrical Installation' },
    sectorId,
    slot: 2,
    status: 'open',
    duration: '3 Months',
    applicantCount: 0,
    slotsOccupied: 0,
    centreId,
  });
  t.deepEqual(made.body.data.requirements, ['QAA certificate', 'Five years in the trade']);

  const refused = await cap(platform, staff, 'POST', '/centre/job-postings', {
    headers: asCentre(centreId),
    json: posting(),
  });
  t.is(refused.status, 403);
  t.is(refused.body.error.code, 'centre.role_forbidden');
  t.is(
    (await cap(platform, staff, 'GET', `/centre/job-postings/${made.body.data.id}`, { headers: asCentre(centreId) }))
      .status,
    200,
    'staff read',
  );

  const bad = await cap(platform, owner, 'POST', '/centre/job-postings', {
    headers: asCentre(centreId),
    json: posting({ deadline: '2020-01-01T23:59:59Z', tradeId: newId() }),
  });
  t.is(bad.status, 422);
  t.deepEqual(bad.body.error.details.map((d: { field: string }) => d.field).sort(), ['deadline', 'tradeId']);
  t.is(
    (
      await cap(platform, owner, 'POST', '/centre/job-postings', {
        headers: asCentre(centreId),
        json: posting({ slot: 0 }),
      })
    ).status,
    422,
  );

  const pendingOwner = await signUp(platform);
  await onboard(platform, pendingOwner, 'centre');
  const pendingCentre = (await cap(platform, pendingOwner, 'GET', '/me')).body.data.centres[0].centreId;
  t.is(
    (
      await cap(platform, pendingOwner, 'POST', '/centre/job-postings', {
        headers: asCentre(pendingCentre),
        json: posting(),
      })
    ).body.error.code,
    'centre.not_approved',
  );
});

test("centre A never reads or changes centre B's postings or their applicants", async (t) => {
  const otherOwner = await signUp(platform);
  const otherCentre = await approvedCentreOwner(platform, otherOwner);
  const theirs = await post(otherOwner, otherCentre);
  const applicant = await inSector();
  const applied = (await apply(applicant.user, theirs.id)).body.data;
  t.false(
    (await cap(platform, owner, 'GET', '/centre/job-postings', { headers: asCentre(centreId) })).body.data.some(
      (p: { id: string }) => p.id === theirs.id,
    ),
  );
  const attempts: Array<[string, string, object?]> = [
    ['GET', `/centre/job-postings/${theirs.id}`],
    ['PATCH', `/centre/job-postings/${theirs.id}`, { status: 'closed' }],
    ['DELETE', `/centre/job-postings/${theirs.id}`],
    ['GET', `/centre/job-postings/${theirs.id}/applications`],
    ['GET', `/centre/job-postings/${theirs.id}/applications/${applied.id}`],
    ['PATCH', `/centre/job-postings/${theirs.id}/applications/${applied.id}`, { decision: 'shortlist' }],
    ['PATCH', `/centre/job-postings/${theirs.id}/applications/bulk`, { ids: [applied.id], decision: 'reject' }],
  ];
  for (const [method, path, json] of attempts) {
    const res = await cap(platform, owner, method as 'GET', path, { headers: asCentre(centreId), json });
    t.is(res.body.error?.code, 'auth.out_of_scope', `${method} ${path}`);
  }
  const bulk = await cap(platform, owner, 'PATCH', '/centre/job-postings/bulk', {
    headers: asCentre(centreId),
    json: { ids: [theirs.id], status: 'closed' },
  });
  t.is(bulk.body.error.code, 'job_posting.bulk_refused');
  t.deepEqual((await sql(platform, 'SELECT status FROM cap.job_postings WHERE id = $1', [theirs.id]))[0], {
    status: 'open',
  });
});

test("the marketplace shows open postings with the deadline ahead, in the assessor's sectors only, and needs an approved profile", async (t) => {
  const open = await post();
  const closed = await post();
  await cap(platform, owner, 'PATCH', `/centre/job-postings/${closed.id}`, {
    headers: asCentre(centreId),
    json: { status: 'closed' },
  });
  const expired = await post();
  await sql(platform, `UPDATE cap.job_postings SET deadline = now() - interval '1 minute' WHERE id = $1`, [expired.id]);

  const inside = await inSector();
  const outside = await approvedAssessor(platform, admin, { sectorIds: [otherSectorId] });
  const seen = await marketplaceIds(inside.user);
  t.true(seen.includes(open.id));
  t.false(seen.includes(closed.id), 'closed');
  t.false(seen.includes(expired.id), 'deadline passed');
  t.false((await marketplaceIds(outside.user)).includes(open.id), 'outside the sector it never shows');

  const pending = await onboardedAssessor(platform, { sectorIds: [sectorId] });
  const refused = await cap(platform, pending.user, 'GET', '/assessor/marketplace', { headers: asAssessor });
  t.is(refused.status, 403);
  t.is(refused.body.error.code, 'assessor.not_approved');

  const suspendedOwner = await signUp(platform);
  const suspendedCentre = await approvedCentreOwner(platform, suspendedOwner);
  const hidden = await post(suspendedOwner, suspendedCentre);
  await sql(platform, `UPDATE cap.centres SET status = 'suspended' WHERE id = $1`, [suspendedCentre]);
  t.false((await marketplaceIds(inside.user)).includes(hidden.id), "a suspended centre's posting is not offered");
});

test('an assessor applies once, within their sectors, while the posting is open and its deadline ahead; their list shows it', async (t) => {
  const open = await post();
  const assessor = await inSector();
  const applied = await apply(assessor.user, open.id);
  t.is(applied.status, 201);
  t.like(applied.body.data, {
    jobPostingId: open.id,
    status: 'applied',
    decidedAt: null,
    jobPosting: { id: open.id, applicantCount: 1 },
  });
  const twice = await apply(assessor.user, open.id);
  t.is(twice.status, 409);
  t.is(twice.body.error.code, 'job_posting.already_applied');

  const outside = await approvedAssessor(platform, admin, { sectorIds: [otherSectorId] });
  t.is((await apply(outside.user, open.id)).body.error.code, 'job_posting.outside_sectors');
  const closed = await post();
  await cap(platform, owner, 'PATCH', '/centre/job-postings/bulk', {
    headers: asCentre(centreId),
    json: { ids: [closed.id], status: 'closed' },
  });
  t.is((await apply(assessor.user, closed.id)).body.error.code, 'job_posting.not_open');
  const expired = await post();
  await sql(platform, `UPDATE cap.job_postings SET deadline = now() - interval '1 minute' WHERE id = $1`, [expired.id]);
  t.is((await apply(assessor.user, expired.id)).body.error.code, 'job_posting.deadline_passed');
  t.is((await apply(assessor.user, newId())).status, 404);
  t.is(
    (await apply((await onboardedAssessor(platform, { sectorIds: [sectorId] })).user, open.id)).body.error.code,
    'assessor.not_approved',
  );

  const mine = await cap(platform, assessor.user, 'GET', '/assessor/job-postings', { headers: asAssessor });
  t.deepEqual(
    mine.body.data.map((a: { jobPostingId: string; status: string }) => [a.jobPostingId, a.status]),
    [[open.id, 'applied']],
  );
});

test('shortlisting accepts up to the slots: the last one fills the posting, one more is 409 job_posting.slots_full, a rejection frees a slot', async (t) => {
  const job = await post(owner, centreId, { slot: 1 });
  const first = (await apply((await inSector()).user, job.id)).body.data;
  const second = (await apply((await inSector()).user, job.id)).body.data;
  const decide = (id: string, decision: string) =>
    cap(platform, owner, 'PATCH', `/centre/job-postings/${job.id}/applications/${id}`, {
      headers: asCentre(centreId),
      json: { decision },
    });

  const accepted = await decide(first.id, 'shortlist');
  t.like(accepted.body.data, { id: first.id, status: 'accepted' });
  t.truthy(accepted.body.data.assessor.name);
  t.like(
    (await cap(platform, owner, 'GET', `/centre/job-postings/${job.id}`, { headers: asCentre(centreId) })).body.data,
    { status: 'filled', slotsOccupied: 1, applicantCount: 2 },
  );
  const full = await decide(second.id, 'shortlist');
  t.is(full.status, 409);
  t.is(full.body.error.code, 'job_posting.slots_full');
  t.is((await decide(first.id, 'reject')).body.data.status, 'rejected');
  t.is(
    (await cap(platform, owner, 'GET', `/centre/job-postings/${job.id}`, { headers: asCentre(centreId) })).body.data
      .status,
    'open',
    'open again',
  );
  const again = await decide(first.id, 'shortlist');
  t.is(again.body.error.code, 'job_application.transition_not_allowed');
  t.is((await decide(second.id, 'shortlist')).body.data.status, 'accepted');

  const list = await cap(platform, owner, 'GET', `/centre/job-postings/${job.id}/applications?status=accepted`, {
    headers: asCentre(centreId),
  });
  t.deepEqual(
    list.body.data.map((a: { id: string }) => a.id),
    [second.id],
  );
  t.is(
    (
      await cap(platform, owner, 'GET', `/centre/job-postings/${job.id}/applications/${newId()}`, {
        headers: asCentre(centreId),
      })
    ).status,
    404,
  );
});

test("bulk decisions are all or nothing: every bad id is named (unknown, another posting's, beyond the slots) and nothing changes", async (t) => {
  const job = await post(owner, centreId, { slot: 2 });
  const other = await post();
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await apply((await inSector()).user, job.id)).body.data.id);
  const elsewhere = (await apply((await inSector()).user, other.id)).body.data.id;
  const bulk = (json: object) =>
    cap(platform, owner, 'PATCH', `/centre/job-postings/${job.id}/applications/bulk`, {
      headers: asCentre(centreId),
      json,
    });

  const refused = await bulk({ ids: [...ids, elsewhere, newId()], decision: 'shortlist' });
  t.is(refused.status, 409);
  t.is(refused.body.error.code, 'job_application.bulk_refused');
  t.deepEqual(
    refused.body.error.details.map((d: { field: string }) => d.field),
    ['ids[2]', 'ids[3]', 'ids[4]'],
  );
  t.regex(refused.body.error.details[0].issue, /no slot is left/);
  t.deepEqual(
    (
      await sql<{ status: string }>(
        platform,
        'SELECT DISTINCT status FROM cap.job_posting_applications WHERE job_posting_id = $1',
        [job.id],
      )
    ).map((r) => r.status),
    ['applied'],
  );

  const done = await bulk({ ids: ids.slice(0, 2), decision: 'shortlist' });
  t.deepEqual(
    done.body.data.map((a: { status: string }) => a.status),
    ['accepted', 'accepted'],
  );
  t.is((await bulk({ ids: [ids[2]], decision: 'reject' })).body.data[0].status, 'rejected');
  t.is(
    (await cap(platform, owner, 'GET', `/centre/job-postings/${job.id}`, { headers: asCentre(centreId) })).body.data
      .status,
    'filled',
  );
});

test('a posting is deleted only while nobody applied (409 job_posting.in_use); closing is final; bulk close names every id that cannot close', async (t) => {
  const unused = await post();
  const used = await post();
  await apply((await inSector()).user, used.id);
  const inUse = await cap(platform, owner, 'DELETE', `/centre/job-postings/${used.id}`, {
    headers: asCentre(centreId),
  });
  t.is(inUse.status, 409);
  t.is(inUse.body.error.code, 'job_posting.in_use');
  t.is(
    (await cap(platform, owner, 'DELETE', `/centre/job-postings/${unused.id}`, { headers: asCentre(centreId) })).status,
    200,
  );
  t.is(
    (await cap(platform, owner, 'GET', `/centre/job-postings/${unused.id}`, { headers: asCentre(centreId) })).status,
    404,
  );

  const closing = await cap(platform, owner, 'PATCH', '/centre/job-postings/bulk', {
    headers: asCentre(centreId),
    json: { ids: [used.id, newId()], status: 'closed' },
  });
  t.is(closing.status, 409);
  t.deepEqual(
    closing.body.error.details.map((d: { field: string }) => d.field),
    ['ids[1]'],
  );
  t.is(
    (
      await cap(platform, owner, 'PATCH', `/centre/job-postings/${used.id}`, {
        headers: asCentre(centreId),
        json: { status: 'closed' },
      })
    ).body.data.status,
    'closed',
  );
  t.is(
    (
      await cap(platform, owner, 'PATCH', `/centre/job-postings/${used.id}`, {
        headers: asCentre(centreId),
        json: { status: 'open' },
      })
    ).status,
    422,
    'only closing is asked for',
  );

  const list = await cap(platform, owner, 'GET', '/centre/job-postings?status=closed&q=electrical', {
    headers: asCentre(centreId),
  });
  t.true(list.body.data.some((p: { id: string }) => p.id === used.id));
});

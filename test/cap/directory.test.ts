import test from 'ava';
import {
  activeStaff,
  applicationTargets,
  approvedCentreOwner,
  cap,
  candidateWithApplication,
  asCentre,
  centreWithOwner,
} from '../helpers/cap.ts';
import { approvedAssessor, asAssessor, retainedAssessor } from '../helpers/assessors.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp, type SignedUpUser } from '../helpers/users.ts';

// GET /directory: the people of the caller's centre, with the Orchestrator user id for chat.
let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform();
});
test.after.always(() => platform?.stop());

const centreOwner = () => centreWithOwner(platform);

const search = (user: SignedUpUser, centreId: string, query = '') =>
  cap(platform, user, 'GET', `/directory${query}`, { headers: asCentre(centreId) });

test("the directory lists the centre's active staff by name with their Orchestrator user id, and never another centre's people", async (t) => {
  const { owner, centreId } = await centreOwner();
  const { member: zara } = await activeStaff(platform, owner, centreId, { name: 'Zara Musa', role: 'regular_admin' });
  const { member: bola } = await activeStaff(platform, owner, centreId, { name: 'Bola Ade' });
  const other = await centreOwner();
  const { member: stranger } = await activeStaff(platform, other.owner, other.centreId, { name: 'Bola Stranger' });

  const res = await search(bola, centreId);
  t.is(res.status, 200, res.text);
  const names = res.body.data.map((hit: any) => hit.displayName);
  t.is(names.length, 3);
  t.deepEqual(
    names,
    [...names].sort((a: string, b: string) => a.localeCompare(b)),
  );
  t.true(names.includes('Bola Ade') && names.includes('Zara Musa'));
  t.like(
    res.body.data.find((hit: any) => hit.displayName === 'Zara Musa'),
    { kind: 'staff', userId: zara.userId, subtitle: `Regular admin · ${zara.email}` },
  );
  t.false(res.body.data.some((hit: any) => hit.userId === stranger.userId || hit.userId === other.owner.userId));
  t.true(res.body.data.some((hit: any) => hit.userId === owner.userId));

  const found = await search(owner, centreId, '?q=bola');
  t.deepEqual(
    found.body.data.map((hit: any) => hit.userId),
    [bola.userId],
  );
});

test('candidates with an application at the centre past its draft are in the directory, sorted by name among the staff; kinds narrows', async (t) => {
  const { owner, centreId, sectorId, tradeId } = await applicationTargets(platform, {
    sector: `Directory sector ${Date.now()}`,
    trade: 'Welding',
  });
  const { member } = await activeStaff(platform, owner, centreId, { name: 'Zainab Staff' });
  const submitted = await candidateWithApplication(platform, { centreId, sectorId, tradeId });
  const drafting = await candidateWithApplication(platform, { centreId, sectorId, tradeId }, { draft: true });

  const everyone = (await search(member, centreId)).body.data as any[];
  const candidates = everyone.filter((hit) => hit.kind === 'candidate');
  t.deepEqual(
    candidates.map((hit) => hit.userId),
    [submitted.user.userId],
  );
  t.like(candidates[0], {
    id: submitted.user.userId,
    displayName: 'Ada Obi',
    subtitle: `Candidate · ${submitted.user.email}`,
  });
  t.false(everyone.some((hit) => hit.userId === drafting.user.userId));
  const names = everyone.map((hit) => hit.displayName.toLowerCase());
  t.deepEqual(names, [...names].sort());

  t.deepEqual(
    (await search(member, centreId, '?kinds=candidate')).body.data.map((hit: any) => hit.kind),
    ['candidate'],
  );
  t.true(
    (await search(member, centreId, '?kinds=assessor&kinds=staff')).body.data.every((hit: any) => hit.kind === 'staff'),
  );
  t.deepEqual(
    (await search(member, centreId, `?q=${encodeURIComponent(submitted.user.email)}`)).body.data.map(
      (hit: any) => hit.userId,
    ),
    [submitted.user.userId],
  );
  const bad = await search(member, centreId, '?kinds=everyone');
  t.is(bad.status, 422);
  t.is(bad.body.error.code, 'validation.failed');
});

test('the directory pages with a cursor', async (t) => {
  const { owner, centreId } = await centreOwner();
  await activeStaff(platform, owner, centreId, { name: 'Chidi Eze' });
  const first = await search(owner, centreId, '?limit=1');
  t.is(first.body.data.length, 1);
  t.true(first.body.meta.pagination.hasMore);
  const second = await search(owner, centreId, `?limit=1&cursor=${first.body.meta.pagination.nextCursor}`);
  t.is(second.body.data.length, 1);
  t.not(second.body.data[0].id, first.body.data[0].id);
  t.false(second.body.meta.pagination.hasMore);
});

test("the directory is for a centre's people: a centre id the caller is not staff of is 403", async (t) => {
  const { owner } = await centreOwner();
  const other = await centreOwner();
  const res = await search(owner, other.centreId);
  t.is(res.status, 403);
  t.is(res.body.error.code, 'auth.centre_not_held');
});

test('assessors the centre retains are in the directory under their onboarding name; one only asking to be retained is not', async (t) => {
  const { admin, owner, centreId } = await applicationTargets(platform, {
    sector: `Directory assessors ${Date.now()}`,
    trade: 'Masonry',
  });
  const retained = await retainedAssessor(platform, admin, owner, centreId);
  const asking = await approvedAssessor(platform, admin, {}, { firstName: 'Pending', lastName: 'Asker' });
  await cap(platform, asking.user, 'POST', '/assessor/retained-requests', {
    headers: asAssessor,
    json: { centreId, preferredRole: 'any' },
  });
  const hits = (await search(owner, centreId, '?kinds=assessor')).body.data;
  t.deepEqual(hits, [
    {
      id: retained.id,
      kind: 'assessor',
      displayName: 'Ada Obi',
      subtitle: `Assessor · ${retained.user.email}`,
      userId: retained.user.userId,
    },
  ]);
});

import test from 'ava';
import { activeStaff, applicationAtStage, applicationTargets, approvedCentreOwner, cap } from '../helpers/cap.ts';
import { retainedAssessor } from '../helpers/assessors.ts';
import { sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp, type SignedUpUser } from '../helpers/users.ts';

// What a centre's staff member handles (openapi/cap/centre-staff-work.yaml): the applications whose
// latest centre move they made, their workload, and the pending / requires_attention queues.
let platform: TestPlatform;
let owner: SignedUpUser;
let admin: SignedUpUser;
let centreId: string;
let target: { sectorId: string; tradeId: string; centreId: string };

test.before(async () => {
  platform = await startTestPlatform();
  const targets = await applicationTargets(platform, { sector: 'Electrical', trade: 'Wiring' });
  ({ owner, centreId, admin } = targets);
  target = { sectorId: targets.sectorId, tradeId: targets.tradeId, centreId };
});
test.after.always(() => platform?.stop());

const asCentre = (id = centreId) => ({ 'X-CAP-PERSONA': 'centre', 'X-CAP-CENTRE-ID': id });
const review = (by: SignedUpUser, id: string, decision: 'approve' | 'reject') =>
  cap(platform, by, 'POST', `/applications/${id}/review`, { headers: asCentre(), json: { decision } }).then((res) => {
    if (res.status !== 200) throw new Error(`review: ${res.status} ${res.text}`);
  });
const ids = (res: { body: any }) => (res.body.data as Array<{ id: string }>).map((a) => a.id).sort();

test('a staff member handles the applications whose latest centre move they made: workload, list and queues follow', async (t) => {
  const a = await activeStaff(platform, owner, centreId, { name: 'Amaka Staff' });
  const b = await activeStaff(platform, owner, centreId, { name: 'Bayo Staff' });
  const atFolder = () => applicationAtStage(platform, target, 'folder_arrangement');
  const [first, second, third, fourth, untouched] = await Promise.all([
    atFolder(),
    atFolder(),
    atFolder(),
    atFolder(),
    atFolder(),
  ]);
  await review(a.member, first.id, 'approve'); // at interview: the centre decides next
  await review(b.member, second.id, 'approve');
  await review(a.member, second.id, 'approve'); // A made the latest move; at internal verification, the IV's turn
  await review(b.member, third.id, 'reject');
  await review(a.member, fourth.id, 'approve');
  // Certified later by the awarding body (its own move, not the centre's): A still handles it.
  await sql(
    platform,
    `UPDATE cap.applications SET status = 'certified', current_stage_key = 'certification' WHERE id = $1`,
    [fourth.id],
  );

  const detailA = await cap(platform, owner, 'GET', `/centre/staff/${a.staffId}`, { headers: asCentre() });
  t.deepEqual(detailA.body.data.workload, { assigned: 3, ongoing: 2, completed: 1 });
  t.deepEqual(
    (await cap(platform, owner, 'GET', `/centre/staff/${b.staffId}`, { headers: asCentre() })).body.data.workload,
    { assigned: 1, ongoing: 0, completed: 0 },
  );

  const listA = await cap(platform, a.member, 'GET', `/centre/staff/${a.staffId}/applications`, {
    headers: asCentre(),
  });
  t.is(listA.status, 200, listA.text);
  t.deepEqual(ids(listA), [first.id, second.id, fourth.id].sort());
  t.false(ids(listA).includes(untouched.id), 'an application nobody reviewed has no handler');
  t.deepEqual(
    ids(
      await cap(platform, owner, 'GET', `/centre/staff/${a.staffId}/applications?status=certified`, {
        headers: asCentre(),
      }),
    ),
    [fourth.id],
  );
  t.deepEqual(
    ids(
      await cap(platform, owner, 'GET', `/centre/staff/${a.staffId}/applications?queue=pending`, {
        headers: asCentre(),
      }),
    ),
    [first.id],
    "waiting for the IV is not the centre's queue",
  );
  t.deepEqual(
    ids(
      await cap(platform, owner, 'GET', `/centre/staff/${a.staffId}/applications?queue=requires_attention`, {
        headers: asCentre(),
      }),
    ),
    [],
  );

  // Waiting 8 days at its stage: it requires attention; 6 days does not yet; the IV's wait is not the centre's.
  const age = (id: string, days: number) =>
    sql(
      platform,
      `UPDATE cap.application_stages s SET entered_at = now() - make_interval(days => $2) FROM cap.applications a WHERE a.id = s.application_id AND s.stage_key = a.current_stage_key AND a.id = $1`,
      [id, days],
    );
  await age(first.id, 6);
  t.deepEqual(
    ids(
      await cap(platform, owner, 'GET', `/centre/staff/${a.staffId}/applications?queue=requires_attention`, {
        headers: asCentre(),
      }),
    ),
    [],
  );
  await age(first.id, 8);
  await age(second.id, 8);
  t.deepEqual(
    ids(
      await cap(platform, owner, 'GET', `/centre/staff/${a.staffId}/applications?queue=requires_attention`, {
        headers: asCentre(),
      }),
    ),
    [first.id],
  );
  t.is(
    (
      await cap(platform, owner, 'GET', `/centre/staff/${a.staffId}/applications?queue=overdue`, {
        headers: asCentre(),
      })
    ).status,
    422,
  );
});

test("another centre's staff member is 403 auth.out_of_scope, an unknown id 404; workload is zero for someone who handled nothing", async (t) => {
  const otherOwner = await signUp(platform);
  const otherCentre = await approvedCentreOwner(platform, otherOwner);
  const theirs = await activeStaff(platform, otherOwner, otherCentre);
  const refused = await cap(platform, owner, 'GET', `/centre/staff/${theirs.staffId}/applications`, {
    headers: asCentre(),
  });
  t.is(refused.status, 403);
  t.is(refused.body.error.code, 'auth.out_of_scope');
  t.is(
    (
      await cap(platform, owner, 'GET', `/centre/staff/01JBZZZZZZZZZZZZZZZZZZZZZZ/applications`, {
        headers: asCentre(),
      })
    ).status,
    404,
  );
  const fresh = await cap(platform, otherOwner, 'GET', `/centre/staff/${theirs.staffId}`, {
    headers: asCentre(otherCentre),
  });
  t.deepEqual(fresh.body.data.workload, { assigned: 0, ongoing: 0, completed: 0 });
});

test('the centre dashboard counts the assessors the centre retains now', async (t) => {
  const dashboard = async () =>
    (await cap(platform, owner, 'GET', '/centre/dashboard', { headers: asCentre() })).body.data.kpis.assessors;
  const before = await dashboard();
  const retained = await retainedAssessor(platform, admin, owner, centreId);
  t.is(await dashboard(), before + 1);
  const revoked = await cap(platform, owner, 'PATCH', `/centre/retained-requests/${retained.requestId}/revoke`, {
    headers: asCentre(),
  });
  t.is(revoked.status, 200, revoked.text);
  t.is(await dashboard(), before, 'a revoked assessor no longer counts');
});

import test from 'ava';
import { cap, onboard } from '../helpers/cap.ts';
import { sql, type TestPlatform } from '../helpers/platform.ts';
import { type SignedUpUser, signUp, platformWithAdmin } from '../helpers/users.ts';

// Assessor profiles: made pending by the assessor onboarding, moderated by platform admins.
let platform: TestPlatform;
let admin: SignedUpUser;

test.before(async () => ({ platform, admin } = await platformWithAdmin()));
test.after.always(() => platform?.stop());

async function assessor(): Promise<{ user: SignedUpUser; id: string }> {
  const user = await signUp(platform);
  await onboard(platform, user, 'assessor');
  const [row] = await sql<{ id: string }>(platform, 'SELECT id FROM cap.assessor_profiles WHERE user_id = $1', [
    user.userId,
  ]);
  return { user, id: row!.id };
}

test('submitting the assessor onboarding makes a pending profile; the admins list it newest first with the name from the onboarding', async (t) => {
  const first = await assessor();
  const second = await assessor();
  const list = (await cap(platform, admin, 'GET', '/admin/assessors?limit=100')).body.data as Array<{
    id: string;
    name: string;
    status: string;
    email: string;
  }>;
  const ids = list.map((a) => a.id);
  t.true(ids.indexOf(second.id) < ids.indexOf(first.id), 'newest first');
  t.like(
    list.find((a) => a.id === first.id),
    { status: 'pending', name: 'Ada Obi', email: first.user.email },
  );
  const detail = (await cap(platform, admin, 'GET', `/admin/assessors/${first.id}`)).body.data;
  t.like(detail, {
    id: first.id,
    personalDetails: { firstName: 'Ada', lastName: 'Obi' },
    assessorDetails: { assessorNo: 'ASR-0042' },
  });
});

test('approve, suspend and approve again; a suspended assessor cannot act as one (403 assessor.suspended) but still signs in', async (t) => {
  const { user, id } = await assessor();
  t.is((await cap(platform, admin, 'POST', `/admin/assessors/${id}/approve`)).body.data.status, 'approved');
  t.is((await cap(platform, admin, 'POST', `/admin/assessors/${id}/suspend`)).body.data.status, 'suspended');
  t.is((await cap(platform, user, 'GET', '/me')).status, 200);
  const refused = await cap(platform, user, 'GET', '/context', { headers: { 'X-CAP-PERSONA': 'assessor' } });
  t.is(refused.status, 403);
  t.is(refused.body.error.code, 'assessor.suspended');
  await cap(platform, admin, 'POST', `/admin/assessors/${id}/approve`);
  t.is((await cap(platform, user, 'GET', '/context', { headers: { 'X-CAP-PERSONA': 'assessor' } })).status, 200);
  const rejectApproved = await cap(platform, admin, 'POST', `/admin/assessors/${id}/reject`);
  t.is(rejectApproved.status, 409);
  t.is(rejectApproved.body.error.code, 'assessor.transition_not_allowed');
});

test('bulk is all or nothing, naming every bad id; deleting removes the profile and the onboarding', async (t) => {
  const a = await assessor();
  const b = await assessor();
  await cap(platform, admin, 'POST', `/admin/assessors/${b.id}/reject`);
  const refused = await cap(platform, admin, 'PATCH', '/admin/assessors/bulk', {
    json: { ids: [a.id, b.id], action: 'approve' },
  });
  t.is(refused.status, 409);
  t.deepEqual(
    refused.body.error.details.map((d: { field: string }) => d.field),
    ['ids[1]'],
  );
  t.is((await sql(platform, 'SELECT status FROM cap.assessor_profiles WHERE id = $1', [a.id]))[0]!.status, 'pending');
  t.is((await cap(platform, admin, 'DELETE', `/admin/assessors/${b.id}`)).status, 200);
  t.is(
    (await sql(platform, `SELECT 1 FROM cap.onboardings WHERE user_id = $1 AND persona = 'assessor'`, [b.user.userId]))
      .length,
    0,
  );
  t.is(
    (await cap(platform, b.user, 'POST', '/onboarding/start', { json: { persona: 'assessor' } })).status,
    201,
    'they may onboard again',
  );
});

test.serial(
  'the summary counts assessors by status, leaving the rejected out; reads need platform.assessors.read',
  async (t) => {
    const before = (await cap(platform, admin, 'GET', '/admin/assessors/summary')).body.data;
    const { id } = await assessor();
    const rejected = await assessor();
    await cap(platform, admin, 'POST', `/admin/assessors/${rejected.id}/reject`);
    const after = (await cap(platform, admin, 'GET', '/admin/assessors/summary')).body.data;
    t.is(after.pending - before.pending, 1);
    t.is(after.total, after.pending + after.approved + after.suspended);
    const stranger = await signUp(platform);
    t.is((await cap(platform, stranger, 'GET', `/admin/assessors/${id}`)).body.error.code, 'auth.permission_denied');
  },
);

import test from 'ava';
import { closeGrpcClients } from '../server/platform/grpc/client.ts';
import { applicationAtStage, applicationTargets, cap, onboard } from './helpers/cap.ts';
import { pngBytes, uploadAsset } from './helpers/files.ts';
import { call, sql, startTestPlatform, type TestPlatform } from './helpers/platform.ts';
import { signUp, type SignedUpUser } from './helpers/users.ts';

// The admin back office's enriched reads (person photos, the centre detail's applications) and what
// suspension does to the public centre list.
let platform: TestPlatform;
let admin: SignedUpUser;
let owner: SignedUpUser;
let centreId: string;
let target: { sectorId: string; tradeId: string; centreId: string };

test.before(async () => {
  platform = await startTestPlatform();
  const targets = await applicationTargets(platform, { sector: 'Automotive', trade: 'Panel Beating' });
  ({ admin, owner, centreId } = targets);
  target = { sectorId: targets.sectorId, tradeId: targets.tradeId, centreId };
});
test.after.always(async () => {
  closeGrpcClients();
  await platform?.stop();
});

const publicCentreIds = async () => ((await call('GET', platform.url('/v1/cap/centres?limit=100'))).body.data as Array<{ id: string }>).map((c) => c.id);

test("the founding super admin's photo is resolved in the admin centre list and detail", async (t) => {
  const photoAssetId = await uploadAsset(platform, owner, pngBytes(3), 'passport', 'owner.png');
  t.is((await cap(platform, owner, 'PATCH', '/me/profile', { json: { photoAssetId } })).status, 200);
  const detail = (await cap(platform, admin, 'GET', `/admin/centres/${centreId}`)).body.data;
  t.is(detail.superAdmin.userId, owner.userId);
  t.is((await fetch(detail.superAdmin.photo)).status, 200);
  const listed = ((await cap(platform, admin, 'GET', '/admin/centres?limit=100')).body.data as any[]).find((c) => c.id === centreId);
  t.is((await fetch(listed.superAdmin.photo)).status, 200);
});

test("an assessor's photo is resolved in the admin assessor list and detail; null without one", async (t) => {
  const user = await signUp(platform);
  await onboard(platform, user, 'assessor');
  const [row] = await sql<{ id: string }>(platform, 'SELECT id FROM cap.assessor_profiles WHERE user_id = $1', [user.userId]);
  t.is((await cap(platform, admin, 'GET', `/admin/assessors/${row!.id}`)).body.data.photo, null);
  await cap(platform, user, 'PATCH', '/me/profile', { json: { photoAssetId: await uploadAsset(platform, user, pngBytes(3), 'passport', 'me.png') } });
  t.is((await fetch((await cap(platform, admin, 'GET', `/admin/assessors/${row!.id}`)).body.data.photo)).status, 200);
  const listed = ((await cap(platform, admin, 'GET', '/admin/assessors?limit=100')).body.data as any[]).find((a) => a.id === row!.id);
  t.is((await fetch(listed.photo)).status, 200);
});

test("the admin centre detail lists the centre's applications, newest first, read-only", async (t) => {
  const first = await applicationAtStage(platform, target, 'folder_arrangement');
  const second = await applicationAtStage(platform, target, 'interview');
  const detail = (await cap(platform, admin, 'GET', `/admin/centres/${centreId}`)).body.data;
  t.true(detail.applicationCount >= 2);
  const ids = detail.applications.map((a: { id: string }) => a.id);
  t.true(ids.indexOf(second.id) < ids.indexOf(first.id), 'newest first');
  t.like(detail.applications.find((a: { id: string }) => a.id === first.id), {
    type: 'RPL', status: 'in_progress', currentStageKey: 'folder_arrangement', candidateName: 'Ada Obi', trade: { id: target.tradeId, name: 'Panel Beating' },
  });
});

test('a suspended centre disappears from the public /centres list and comes back when approved again', async (t) => {
  t.true((await publicCentreIds()).includes(centreId));
  t.is((await cap(platform, admin, 'POST', `/admin/centres/${centreId}/suspend`)).status, 200);
  t.false((await publicCentreIds()).includes(centreId));
  t.is((await cap(platform, admin, 'POST', `/admin/centres/${centreId}/approve`)).status, 200);
  t.true((await publicCentreIds()).includes(centreId));
});

import test from 'ava';
import { closeGrpcClients } from '../server/platform/grpc/client.ts';
import { applicationAtStage, applicationTargets, cap } from './helpers/cap.ts';
import { call, startTestPlatform, type TestPlatform } from './helpers/platform.ts';
import { signUp, type SignedUpUser } from './helpers/users.ts';

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
test.after.always(async () => {
  closeGrpcClients();
  await platform?.stop();
});

const publicCentreIds = async () => ((await call('GET', platform.url('/v1/cap/centres?limit=100'))).body.data as Array<{ id: string }>).map((c) => c.id);

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

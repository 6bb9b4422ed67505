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
import { retainedAssessor } from '../helpers/assessors.ts';
import { call, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp, type SignedUpUser } from '../helpers/users.ts';

// POST /centre/broadcast: CAP resolves the group, the Orchestrator's conversations carry the message.
let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform();
});
test.after.always(() => platform?.stop());

const centreOwner = () => centreWithOwner(platform);

const broadcast = (user: SignedUpUser, centreId: string, json: object) =>
  cap(platform, user, 'POST', '/centre/broadcast', { headers: asCentre(centreId), json });
const threadsOf = async (user: SignedUpUser) =>
  (await call('GET', platform.url('/v1/ol/conversations'), { token: user.accessToken })).body.data as any[];

test("a broadcast to all_staff reaches each of the centre's other active staff in an Orchestrator thread from the sender", async (t) => {
  const { owner, centreId } = await centreOwner();
  const { member: admin } = await activeStaff(platform, owner, centreId, { role: 'regular_admin', name: 'Zara Musa' });
  const { member: bola } = await activeStaff(platform, owner, centreId);
  const other = await centreOwner();
  const { member: stranger } = await activeStaff(platform, other.owner, other.centreId);

  const res = await broadcast(admin, centreId, {
    recipientGroup: 'all_staff',
    subject: 'Broadcast to All staff',
    message: 'Centre closes at 3pm on Friday.',
  });
  t.is(res.status, 200, res.text);
  t.like(res.body, { success: true, data: { recipients: 2 } });
  t.is(typeof res.body.data.message, 'string');

  for (const user of [owner, bola]) {
    const threads = await threadsOf(user);
    t.is(threads.length, 1);
    t.like(threads[0], {
      subject: 'Broadcast to All staff',
      recipientId: admin.userId,
      lastMessage: { senderId: admin.userId, body: 'Centre closes at 3pm on Friday.' },
    });
  }
  t.is((await threadsOf(stranger)).length, 0);
  t.is((await threadsOf(admin)).length, 2);
});

test("all_candidates reaches the centre's candidates past their draft; trade_group only that trade's", async (t) => {
  const { admin, owner, centreId, sectorId, tradeId } = await applicationTargets(platform, {
    sector: `Broadcast sector ${Date.now()}`,
    trade: 'Tiling',
  });
  const targets = { centreId, sectorId, tradeId };
  const otherTradeId = (await cap(platform, admin, 'POST', '/admin/trades', { json: { sectorId, name: 'Plastering' } }))
    .body.data.id as string;
  const [tiler, plasterer, drafting] = await Promise.all([
    candidateWithApplication(platform, targets),
    candidateWithApplication(platform, { ...targets, tradeId: otherTradeId }),
    candidateWithApplication(platform, targets, { draft: true }),
  ]);
  const all = await broadcast(owner, centreId, {
    recipientGroup: 'all_candidates',
    subject: 'Assessment week',
    message: 'Assessments start on Monday.',
  });
  t.is(all.status, 200, all.text);
  t.is(all.body.data.recipients, 2);
  const trade = await broadcast(owner, centreId, {
    recipientGroup: 'trade_group',
    tradeId: otherTradeId,
    subject: 'Plastering',
    message: 'Bring your trowel.',
  });
  t.is(trade.body.data.recipients, 1);
  t.deepEqual(
    (await threadsOf(tiler.user)).map((thread) => thread.subject),
    ['Assessment week'],
  );
  t.deepEqual((await threadsOf(plasterer.user)).map((thread) => thread.subject).sort(), [
    'Assessment week',
    'Plastering',
  ]);
  t.deepEqual(await threadsOf(drafting.user), []);
});

test('all_assessors reaches the assessors the centre retains', async (t) => {
  const { admin, owner, centreId } = await applicationTargets(platform, {
    sector: `Broadcast assessors ${Date.now()}`,
    trade: 'Roofing',
  });
  const retained = await retainedAssessor(platform, admin, owner, centreId);
  const sent = await broadcast(owner, centreId, {
    recipientGroup: 'all_assessors',
    subject: 'Panel dates',
    message: 'Panels sit on Thursday.',
  });
  t.is(sent.status, 200, sent.text);
  t.is(sent.body.data.recipients, 1);
  t.deepEqual(
    (await threadsOf(retained.user)).map((thread) => thread.subject),
    ['Panel dates'],
  );
});

test('staff may not broadcast: 403 centre.role_forbidden, and nothing is sent', async (t) => {
  const { owner, centreId } = await centreOwner();
  const { member } = await activeStaff(platform, owner, centreId);
  const res = await broadcast(member, centreId, { recipientGroup: 'all_staff', message: 'Hello' });
  t.is(res.status, 403);
  t.is(res.body.error.code, 'centre.role_forbidden');
  t.is((await threadsOf(owner)).length, 0);
});

test('a group with nobody in it is 422 centre.broadcast_no_recipients; trade_group needs its tradeId; an unknown group is refused', async (t) => {
  const { owner, centreId } = await centreOwner();
  for (const recipientGroup of ['all_candidates', 'all_assessors', 'all_staff']) {
    const res = await broadcast(owner, centreId, { recipientGroup, message: 'Hello' });
    t.is(res.status, 422, recipientGroup);
    t.is(res.body.error.code, 'centre.broadcast_no_recipients');
  }
  const noTrade = await broadcast(owner, centreId, { recipientGroup: 'trade_group', message: 'Hello' });
  t.is(noTrade.status, 422);
  t.deepEqual(noTrade.body.error.details, [{ field: 'tradeId', issue: 'is required with recipientGroup trade_group' }]);
  const unknown = await broadcast(owner, centreId, { recipientGroup: 'everyone', message: 'Hello' });
  t.is(unknown.status, 422);
  t.is(unknown.body.error.code, 'validation.failed');
  const blank = await broadcast(owner, centreId, { recipientGroup: 'all_staff', message: '  ' });
  t.is(blank.status, 422);
});

test('OL broadcast with the service key must name an active sender; a user may only send as themselves', async (t) => {
  const [alice, bob] = await Promise.all([signUp(platform), signUp(platform)]);
  const url = platform.url('/v1/ol/conversations/broadcast');
  const key = { 'x-platform-service-key': platform.config.serviceApiKey };
  const noSender = await call('POST', url, { headers: key, json: { recipientIds: [bob.userId], message: 'Hi' } });
  t.is(noSender.status, 422);
  t.is(noSender.body.error.code, 'conversation.sender_required');
  const wrongKey = await call('POST', url, {
    headers: { 'x-platform-service-key': 'not-the-key' },
    json: { senderId: alice.userId, recipientIds: [bob.userId], message: 'Hi' },
  });
  t.is(wrongKey.status, 401);
  const asSomeoneElse = await call('POST', url, {
    token: bob.accessToken,
    json: { senderId: alice.userId, recipientIds: [bob.userId], message: 'Hi' },
  });
  t.is(asSomeoneElse.status, 422);
  t.is(asSomeoneElse.body.error.code, 'conversation.sender_not_allowed');
  const sent = await call('POST', url, {
    headers: key,
    json: { senderId: alice.userId, recipientIds: [bob.userId], message: 'Hi' },
  });
  t.is(sent.status, 200, sent.text);
  t.is(sent.body.data.recipientCount, 1);
  t.is((await threadsOf(bob))[0].recipientId, alice.userId);
});

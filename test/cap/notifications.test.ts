import test from 'ava';
import { retainedAssessor } from '../helpers/assessors.ts';
import { applicationTargets, asCentre, cap, candidateWithApplication } from '../helpers/cap.ts';
import { payCheckout } from '../helpers/payments.ts';
import { call, eventually, sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import type { SignedUpUser } from '../helpers/users.ts';

// What people are told of an application (server/cap/applications/notices.ts, the centre's notification
// policy, assessor assignments), through the one send path: notification.requested, the Orchestrator's
// inbox and mail under each person's channel preferences.
let platform: TestPlatform;
let admin: SignedUpUser;
let owner: SignedUpUser;
let targets: { centreId: string; sectorId: string; tradeId: string };
const web = 'https://cap-web.example.test';
const asCandidate = { 'X-CAP-PERSONA': 'candidate' };

test.before(async () => {
  platform = await startTestPlatform({ capWebUrl: web, centreCertifyBypass: true });
  const made = await applicationTargets(platform, { sector: 'Plumbing', trade: 'Pipe Fitting' });
  ({ admin, owner } = made);
  targets = { centreId: made.centreId, sectorId: made.sectorId, tradeId: made.tradeId };
});
test.after.always(() => platform?.stop());

const mailsTo = async (user: SignedUpUser) =>
  (await call('GET', platform.url(`/v1/ol/dev/mailbox?to=${encodeURIComponent(user.email)}`))).body.data as Array<{
    subject: string;
    text: string;
  }>;
/** The user's notices of one type, once there are `count` of them. */
async function noticesOf(user: SignedUpUser, type: string, count = 1): Promise<any[]> {
  let found: any[] = [];
  await eventually(`${count} ${type} notice(s)`, async () => {
    found = (
      (await call('GET', platform.url('/v1/ol/notifications?limit=100'), { token: user.accessToken })).body
        .data as any[]
    ).filter((n) => n.type === type);
    return found.length >= count;
  });
  return found;
}

async function paid(user: SignedUpUser, applicationId: string) {
  const started = await cap(platform, user, 'POST', `/applications/${applicationId}/pay`, { headers: asCandidate });
  const [row] = await sql<{ reference: string }>(
    platform,
    'SELECT reference FROM cap.application_payments WHERE payment_id = $1',
    [started.body.data.paymentId],
  );
  await payCheckout(platform, row!.reference);
  await eventually(
    'the application is paid',
    async () =>
      (await cap(platform, user, 'GET', `/applications/${applicationId}`, { headers: asCandidate })).body.data
        .currentStageKey === 'folder_arrangement',
  );
}

test.serial(
  'the candidate is told in the inbox and by mail when the application is submitted, paid, moved on and certified; the centre when it is paid',
  async (t) => {
    const { user, applicationId } = await candidateWithApplication(platform, targets);
    const [submitted] = await noticesOf(user, 'application.submitted');
    t.like(submitted, {
      category: 'application',
      title: 'Application submitted',
      metadata: { applicationId, centreId: targets.centreId, stageKey: 'payment' },
    });
    t.is(submitted.link, `${web}/dashboard/applications/${applicationId}`);

    await paid(user, applicationId);
    const [payment] = await noticesOf(user, 'application.paid');
    t.like(payment, { title: 'Payment received', metadata: { applicationId, stageKey: 'folder_arrangement' } });
    t.regex(payment.description, /Folder arrangement/);
    const [centreNotice] = await noticesOf(owner, 'application.paid');
    t.like(centreNotice, { title: 'RPL application paid', metadata: { applicationId, centreId: targets.centreId } });

    const reviewed = await cap(platform, owner, 'POST', `/applications/${applicationId}/review`, {
      headers: asCentre(targets.centreId),
      json: { decision: 'approve', stageKey: 'folder_arrangement' },
    });
    t.is(reviewed.status, 200, reviewed.text);
    const [moved] = await noticesOf(user, 'application.stage_changed');
    t.like(moved, { title: 'Your application moved on', metadata: { stageKey: 'interview' } });

    const certified = await cap(platform, owner, 'PATCH', '/centre/applications/bulk', {
      headers: asCentre(targets.centreId),
      json: { ids: [applicationId], action: 'certify' },
    });
    t.is(certified.status, 200, certified.text);
    t.like((await noticesOf(user, 'application.certified'))[0], {
      title: 'Application certified',
      metadata: { applicationId },
    });

    await eventually('each notice reached the candidate by mail too', async () => {
      const subjects = (await mailsTo(user)).map((mail) => mail.subject);
      return ['Application submitted', 'Payment received', 'Your application moved on', 'Application certified'].every(
        (s) => subjects.includes(s),
      );
    });
    t.pass();
  },
);

test.serial(
  'a rejected application is told to its candidate; with email turned off the notice is in the inbox and no mail is sent',
  async (t) => {
    const { user, applicationId } = await candidateWithApplication(platform, targets);
    await noticesOf(user, 'application.submitted');
    const prefs = await call('PUT', platform.url('/v1/ol/notifications/preferences'), {
      token: user.accessToken,
      json: { channels: { email: false } },
    });
    t.is(prefs.status, 200, prefs.text);
    await paid(user, applicationId);
    const rejected = await cap(platform, owner, 'POST', `/applications/${applicationId}/review`, {
      headers: asCentre(targets.centreId),
      json: { decision: 'reject', stageKey: 'folder_arrangement' },
    });
    t.is(rejected.status, 200, rejected.text);
    const [notice] = await noticesOf(user, 'application.rejected');
    t.like(notice, { title: 'Application not approved', metadata: { applicationId } });
    t.regex(notice.description, /Folder arrangement/);
    const deliveries = await sql<{ status: string }>(
      platform,
      `SELECT status FROM ol.notifications WHERE user_id = $1 AND template = 'application.rejected' AND channel = 'email'`,
      [user.userId],
    );
    t.deepEqual(deliveries, [{ status: 'suppressed' }]);
    t.false((await mailsTo(user)).some((mail) => mail.subject === 'Application not approved'));
  },
);

test.serial('an assessor is told when a centre assigns them to an application', async (t) => {
  const assessor = await retainedAssessor(platform, admin, owner, targets.centreId);
  const { user, applicationId } = await candidateWithApplication(platform, targets);
  await paid(user, applicationId);
  const assigned = await cap(platform, owner, 'POST', `/applications/${applicationId}/facilitator`, {
    headers: asCentre(targets.centreId),
    json: { assessorId: assessor.id },
  });
  t.is(assigned.status, 200, assigned.text);
  let notices: any[] = [];
  await eventually('the assessor hears of the assignment', async () => {
    notices = (
      (
        await call('GET', platform.url('/v1/ol/notifications?category=assessment'), {
          token: assessor.user.accessToken,
        })
      ).body.data as any[]
    ).filter((n) => n.type === 'application.assigned');
    return notices.length === 1;
  });
  t.like(notices[0], {
    title: 'You were assigned to an application',
    metadata: { applicationId, centreId: targets.centreId, role: 'facilitator' },
  });
  t.regex(notices[0].description, /facilitator/);
  await eventually('and by mail', async () =>
    (await mailsTo(assessor.user)).some((mail) => mail.subject === 'You were assigned to an application'),
  );
  t.pass();
});

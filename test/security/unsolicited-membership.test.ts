import test from 'ava';
import { approvedCentreOwner, cap, onboard } from '../helpers/cap.ts';
import { call, sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { latestMail, signUp, uniqueEmail, type SignedUpUser } from '../helpers/users.ts';

// Attacks: unsolicited membership, and platform mail from unapproved centres. A centre super admin
// who added an existing user by email made them active staff with no consent, rewrote their own
// onboarding in progress, and the 201 told the adder whether the address had an account. A
// self-onboarded centre still pending approval could add staff, making accounts and mailing any
// address a name of its choosing. Refused: an existing user is invited and must accept; their
// onboarding is never touched; the answer is the same either way; only approved centres manage staff.
let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform();
});
test.after.always(() => platform?.stop());

const addStaff = (by: SignedUpUser, centreId: string, email: string, name = 'Bola Ade') =>
  cap(platform, by, 'POST', '/centre/staff', {
    headers: { 'X-CAP-PERSONA': 'centre', 'X-CAP-CENTRE-ID': centreId },
    json: { name, email, role: 'staff' },
  });

/** The reply without what differs between any two adds (ids, times, the address itself). */
const shape = (body: { data: Record<string, unknown> }) => ({
  ...body.data,
  id: undefined,
  createdAt: undefined,
  email: undefined,
});

test('adding an existing user invites them: the reply is the same as for a new address, and nothing changes until they accept', async (t) => {
  const owner = await signUp(platform);
  const centreId = await approvedCentreOwner(platform, owner);
  const existing = await signUp(platform);
  await cap(platform, existing, 'POST', '/onboarding/start', { json: { persona: 'centre' } });
  await cap(platform, existing, 'PATCH', '/onboarding/centre/save', {
    json: { centre: { centreInformation: { name: 'My own centre' } } },
  });
  const before = (await cap(platform, existing, 'GET', '/onboarding/centre')).body.data;

  const forExisting = await addStaff(owner, centreId, existing.email);
  const forNew = await addStaff(owner, centreId, uniqueEmail('new'));
  t.is(forExisting.status, 201);
  t.deepEqual(
    shape(forExisting.body),
    shape(forNew.body),
    'the reply does not tell whether the address had an account',
  );
  t.is(forExisting.body.data.status, 'pending');

  t.deepEqual(
    (await cap(platform, existing, 'GET', '/onboarding/centre')).body.data,
    before,
    'their onboarding is untouched',
  );
  t.deepEqual((await cap(platform, existing, 'GET', '/me')).body.data.centres[0]?.status, 'onboarding_required');
  const mail = await latestMail(platform, existing.email);
  t.regex(mail.subject, /invited/);
  t.is(mail.password, undefined);

  // A super admin cannot activate them either: only they can accept.
  const forced = await cap(platform, owner, 'PATCH', '/centre/staff', {
    headers: { 'X-CAP-PERSONA': 'centre', 'X-CAP-CENTRE-ID': centreId },
    json: { ids: [forExisting.body.data.id], status: 'active' },
  });
  t.is(forced.status, 409);
  t.is(forced.body.error.code, 'centre.invitation_pending');

  const invitations = (await cap(platform, existing, 'GET', '/me/invitations')).body.data;
  t.like(invitations, [{ id: forExisting.body.data.id, kind: 'centre', organisationId: centreId, role: 'staff' }]);
  const accepted = await cap(platform, existing, 'POST', `/me/invitations/${forExisting.body.data.id}/accept`);
  t.is(accepted.status, 200);
  t.is(accepted.body.data.status, 'active');
  t.like((await cap(platform, existing, 'GET', '/me')).body.data.centres, [{ centreId, status: 'operable' }]);
  t.deepEqual(
    (await cap(platform, existing, 'GET', '/onboarding/centre')).body.data,
    before,
    'accepting leaves their onboarding as it was',
  );
});

test('a declined invitation removes the membership; another user cannot answer it', async (t) => {
  const owner = await signUp(platform);
  const centreId = await approvedCentreOwner(platform, owner);
  const existing = await signUp(platform);
  const invited = (await addStaff(owner, centreId, existing.email)).body.data;
  const stranger = await signUp(platform);
  t.is((await cap(platform, stranger, 'POST', `/me/invitations/${invited.id}/accept`)).status, 404);
  t.is((await cap(platform, existing, 'POST', `/me/invitations/${invited.id}/decline`)).status, 200);
  t.is((await sql(platform, 'SELECT 1 FROM cap.centre_staff WHERE id = $1', [invited.id])).length, 0);
});

test('a centre still pending approval cannot add staff (403 centre.not_approved): no account is made, nothing is mailed', async (t) => {
  const owner = await signUp(platform);
  await onboard(platform, owner, 'centre');
  const centreId = (await cap(platform, owner, 'GET', '/me')).body.data.centres[0].centreId;
  const target = uniqueEmail('target');
  const res = await addStaff(owner, centreId, target, 'Urgent: verify your bank at http://bank.example');
  t.is(res.status, 403);
  t.is(res.body.error.code, 'centre.not_approved');
  t.is((await sql(platform, 'SELECT 1 FROM ol.users WHERE email = $1', [target])).length, 0);
  const mailbox = await call('GET', platform.url(`/v1/ol/dev/mailbox?to=${encodeURIComponent(target)}`));
  t.deepEqual(mailbox.body.data, []);
});

test('a name someone typed reaches a mail as plain text, never as a link', async (t) => {
  const owner = await signUp(platform);
  const centreId = await approvedCentreOwner(platform, owner);
  const target = uniqueEmail('target');
  await addStaff(owner, centreId, target, 'Urgent: verify your bank at http://bank.example now');
  const { text } = await latestMail(platform, target);
  t.notRegex(text, /https?:\/\//);
  t.notRegex(text, /bank\.example/);
  t.regex(text, /http\[:\]\/\/bank\[\.\]example/);
});

import test from 'ava';
import { approvedCentreOwner, cap, centreDraft, drafts } from '../helpers/cap.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { firstSignIn, signUp, uniqueEmail } from '../helpers/users.ts';

// The centre profile (openapi/cap/centre-profile.yaml): the centre and its owner's onboarding as one record.
let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform();
});
test.after.always(() => platform?.stop());

const asCentre = { 'X-CAP-PERSONA': 'centre' };

test('the profile shows the centre from its onboarding, its owner, a one-line address and the onboarding itself', async (t) => {
  const owner = await signUp(platform);
  const centreId = await approvedCentreOwner(platform, owner);
  const profile = (await cap(platform, owner, 'GET', '/centre/profile', { headers: asCentre })).body.data;
  t.like(profile, {
    id: centreId,
    name: 'Lagos Skills Centre',
    status: 'approved',
    ownerIdentityVerified: false,
    formattedAddress: '3 Broad Street, Lagos, Nigeria',
    accountDetails: { bank: 'Access Bank', accountNo: '0123456789' },
  });
  t.regex(profile.registrationNo, /^RC-/);
  t.deepEqual(profile.onboarding.centre, centreDraft(profile.registrationNo).centre);
});

test('a profile change by the super admin merges into the centre and into the owner draft alike', async (t) => {
  const owner = await signUp(platform);
  await approvedCentreOwner(platform, owner);
  const changed = await cap(platform, owner, 'PATCH', '/centre/profile', {
    headers: asCentre,
    json: { name: 'Lagos Skills Academy', address: { lga: 'Lagos Island' }, accountDetails: { nameOfAccount: null } },
  });
  t.is(changed.status, 200, changed.text);
  t.like(changed.body.data, {
    name: 'Lagos Skills Academy',
    address: { state: 'Lagos', lga: 'Lagos Island', address: '3 Broad Street' },
  });
  t.false('nameOfAccount' in changed.body.data.accountDetails);
  const draft = (await cap(platform, owner, 'GET', '/onboarding/centre')).body.data.data;
  t.is(draft.centre.centreInformation.name, 'Lagos Skills Academy');
  t.is(draft.centre.centreResidentialAddress.lga, 'Lagos Island');
});

test("a save of the owner's completed onboarding (the settings screen, and the only way logos change) reaches the centre", async (t) => {
  const owner = await signUp(platform);
  await approvedCentreOwner(platform, owner);
  const logo = '01JBBBBBBBBBBBBBBBBBBBBBBB';
  await cap(platform, owner, 'PATCH', '/onboarding/centre/save', {
    json: { centre: { centreInformation: { logoAssetId: logo, name: 'Renamed Centre' } } },
  });
  t.like((await cap(platform, owner, 'GET', '/centre/profile', { headers: asCentre })).body.data, {
    logoAssetId: logo,
    name: 'Renamed Centre',
  });
});

test('staff read the profile but only a super admin changes it (403 centre.role_forbidden)', async (t) => {
  const owner = await signUp(platform);
  const centreId = await approvedCentreOwner(platform, owner);
  const email = uniqueEmail('staff');
  await cap(platform, owner, 'POST', '/centre/staff', {
    headers: { ...asCentre, 'X-CAP-CENTRE-ID': centreId },
    json: { name: 'Bola Ade', email, role: 'staff' },
  });
  const member = await firstSignIn(platform, email);
  await cap(platform, member, 'GET', '/me');
  t.is((await cap(platform, member, 'GET', '/centre/profile', { headers: asCentre })).status, 200);
  const refused = await cap(platform, member, 'PATCH', '/centre/profile', {
    headers: asCentre,
    json: { name: 'Mine Now' },
  });
  t.is(refused.status, 403);
  t.is(refused.body.error.code, 'centre.role_forbidden');
});

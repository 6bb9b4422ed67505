import test from 'ava';
import { createOrchestratorHttp } from '../../server/contracts/orchestrator-client.ts';
import { newId } from '../../server/platform/ids.ts';
import { approvedCentreOwner, cap } from '../helpers/cap.ts';
import { pngBytes, uploadAsset } from '../helpers/files.ts';
import { call, captureLogs, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { grantPlatformRole, signUp, type SignedUpUser } from '../helpers/users.ts';

// Logos CAP returns next to their asset ids, resolved through the Orchestrator's storage with the service key.
let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform();
});
test.after.always(() => platform?.stop());

const asCentre = { 'X-CAP-PERSONA': 'centre' };

const uploadLogo = (owner: SignedUpUser, bytes: Buffer) => uploadAsset(platform, owner, bytes, 'logo', 'logo.png');

/** A centre owner whose centre has an uploaded logo, saved the way the web client saves it (the onboarding). */
async function centreWithLogo(bytes = pngBytes(3)) {
  const owner = await signUp(platform);
  const centreId = await approvedCentreOwner(platform, owner);
  const logoAssetId = await uploadLogo(owner, bytes);
  const saved = await cap(platform, owner, 'PATCH', '/onboarding/centre/save', {
    json: { centre: { centreInformation: { logoAssetId } } },
  });
  if (saved.status !== 200) throw new Error(`save: ${saved.status} ${saved.text}`);
  return { owner, centreId, logoAssetId, bytes };
}

async function publicCentre(centreId: string) {
  const res = await call('GET', platform.url('/v1/cap/centres?limit=100'));
  return res.body.data.find((c: any) => c.id === centreId);
}

test('GET /centres returns the resolved logo URL of an uploaded logo, and it serves the bytes', async (t) => {
  const { centreId, logoAssetId, bytes } = await centreWithLogo();
  const centre = await publicCentre(centreId);
  t.is(centre.logoAssetId, logoAssetId);
  t.regex(centre.logo, /^https?:\/\//);
  const file = await fetch(centre.logo);
  t.is(file.status, 200);
  t.is(file.headers.get('content-type'), 'image/png');
  t.deepEqual(Buffer.from(await file.arrayBuffer()), bytes);
});

test('the centre profile and the admin centre list and detail return the same resolved logo', async (t) => {
  const { owner, centreId, logoAssetId } = await centreWithLogo();
  const profile = (await cap(platform, owner, 'GET', '/centre/profile', { headers: asCentre })).body.data;
  t.is(profile.logoAssetId, logoAssetId);
  t.is((await fetch(profile.logo)).status, 200);

  const admin = await signUp(platform);
  await grantPlatformRole(platform, admin);
  const detail = (await cap(platform, admin, 'GET', `/admin/centres/${centreId}`)).body.data;
  t.is(detail.logoAssetId, logoAssetId);
  t.is((await fetch(detail.logo)).status, 200);
  t.is(detail.superAdmin.photo, null);
  const listed = (await cap(platform, admin, 'GET', '/admin/centres?limit=100')).body.data.find(
    (c: any) => c.id === centreId,
  );
  t.is((await fetch(listed.logo)).status, 200);
});

test('logo is null when there is no logo, and when the asset no longer resolves (deleted)', async (t) => {
  const owner = await signUp(platform);
  const plain = await approvedCentreOwner(platform, owner);
  t.like(await publicCentre(plain), { logoAssetId: null, logo: null });

  const { owner: other, centreId, logoAssetId } = await centreWithLogo();
  const deleted = await call('DELETE', platform.url(`/v1/ol/storage/${logoAssetId}`), { token: other.accessToken });
  t.is(deleted.status, 200);
  t.like(await publicCentre(centreId), { logoAssetId, logo: null });
});

test('an unreachable Orchestrator gives null URLs and a warning, never a failed read', async (t) => {
  const { logger, lines } = captureLogs();
  // Port 1 on loopback: nothing listens there.
  const client = createOrchestratorHttp(() => 'http://127.0.0.1:1/v1/ol', platform.config.serviceApiKey, logger);
  try {
    const id = newId();
    const urlOf = await client.assetUrls([id, null]);
    t.is(urlOf(id), null);
    t.is(urlOf(null), null);
    t.true(lines.some((line) => JSON.parse(line).level === 40 && line.includes('null URLs')));
  } finally {
    await client.close();
  }
});

test("a passport photo saved on an onboarding comes back as passportUrl, and is the person's photo in the admin centre list", async (t) => {
  const { owner, centreId } = await centreWithLogo();
  const passportAssetId = await uploadAsset(platform, owner, pngBytes(5), 'passport', 'passport.png');
  const saved = await cap(platform, owner, 'PATCH', '/onboarding/centre/save', {
    json: { passportAssetId, passportUrl: 'https://ignored.example/x.png' },
  });
  t.is(saved.status, 200, saved.text);
  t.is(saved.body.data.data.passportAssetId, passportAssetId);
  t.is((await fetch(saved.body.data.data.passportUrl)).status, 200);
  const read = (await cap(platform, owner, 'GET', '/onboarding/centre')).body.data.data;
  t.regex(read.passportUrl, /^https?:\/\//);

  const admin = await signUp(platform);
  await grantPlatformRole(platform, admin);
  const listed = (await cap(platform, admin, 'GET', '/admin/centres?limit=100')).body.data.find(
    (c: any) => c.id === centreId,
  );
  t.is((await fetch(listed.superAdmin.photo)).status, 200);
});

test("an onboarding save naming someone else's asset as the passport photo is 422 onboarding.photo_not_found and saves nothing", async (t) => {
  const someone = await signUp(platform);
  const theirs = await uploadAsset(platform, someone, pngBytes(6), 'passport', 'passport.png');
  const candidate = await signUp(platform);
  await cap(platform, candidate, 'POST', '/onboarding/start', { json: { persona: 'candidate' } });
  const refused = await cap(platform, candidate, 'PATCH', '/onboarding/candidate/save', {
    json: { passportAssetId: theirs, currentOccupation: { occupation: 'Welder' } },
  });
  t.is(refused.status, 422);
  t.is(refused.body.error.code, 'onboarding.photo_not_found');
  t.deepEqual(refused.body.error.details, [{ field: 'passportAssetId', issue: 'is not a file you uploaded' }]);
  const draft = (await cap(platform, candidate, 'GET', '/onboarding/candidate')).body.data.data;
  t.is(draft.currentOccupation, undefined);
  t.is(draft.passportAssetId, undefined);
});

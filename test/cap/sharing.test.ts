import { createHash } from 'node:crypto';
import test from 'ava';
import { applicationTargets, cap, candidateWithApplication } from '../helpers/cap.ts';
import { pdfBytes, pngBytes, uploadAsset } from '../helpers/files.ts';
import { call, sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { type SignedUpUser } from '../helpers/users.ts';
import { approvedAssessor, retain } from '../helpers/verification.ts';

// Sharing an application (openapi/cap/sharing.yaml): after IV approval, a public read-only link.
let platform: TestPlatform;
let owner: SignedUpUser;
let targets: { centreId: string; sectorId: string; tradeId: string };

const asCandidate = { 'X-CAP-PERSONA': 'candidate' };
const asCentre = () => ({ 'X-CAP-PERSONA': 'centre', 'X-CAP-CENTRE-ID': targets.centreId });

test.before(async () => {
  platform = await startTestPlatform();
  const made = await applicationTargets(platform, { sector: 'Building and Construction', trade: 'Masonry' });
  owner = made.owner;
  targets = { centreId: made.centreId, sectorId: made.sectorId, tradeId: made.tradeId };
});
test.after.always(() => platform?.stop());

/** An application with a photo and a third-party report, at internal verification. */
async function atInternalVerification() {
  const { user, applicationId } = await candidateWithApplication(platform, targets);
  const photo = await uploadAsset(platform, user, pngBytes(3), 'evidence', 'wall.png');
  const report = await uploadAsset(platform, user, pdfBytes(), 'evidence', 'report.pdf', 'application/pdf');
  const added = await cap(platform, user, 'POST', `/applications/${applicationId}/evidence`, {
    headers: asCandidate,
    json: { documentName: 'Wall', evidenceType: 'Photographs of completed work', assetId: photo },
  });
  if (added.status !== 201) throw new Error(added.text);
  await cap(platform, user, 'POST', `/applications/${applicationId}/evidence/third-party-report`, {
    headers: asCandidate,
    json: { assetId: report },
  });
  await sql(platform, `UPDATE cap.applications SET current_stage_key = 'internal_verification' WHERE id = $1`, [
    applicationId,
  ]);
  return { user, applicationId, photo, report };
}

/** The internal verifier (retained and assigned by the centre) approves: the APPROVED stage-history entry that sharing waits for. */
async function ivApproved(applicationId: string) {
  const iv = await approvedAssessor(platform);
  await retain(platform, targets.centreId, iv.assessorId);
  for (const res of [
    await cap(platform, owner, 'POST', `/applications/${applicationId}/iv`, {
      headers: asCentre(),
      json: { assessorId: iv.assessorId },
    }),
    await cap(platform, iv.user, 'POST', `/applications/${applicationId}/iv/review`, {
      headers: { 'X-CAP-PERSONA': 'assessor' },
      json: { decision: 'approve' },
    }),
  ]) {
    if (res.status !== 200) throw new Error(res.text);
  }
}

const shared = (token: string, rest = '') => call('GET', platform.url(`/v1/cap/shared/applications/${token}${rest}`));

test('a link is made only after IV approval (409 share.not_available), only by the candidate who owns the application', async (t) => {
  const { user, applicationId } = await atInternalVerification();
  const early = await cap(platform, user, 'POST', `/applications/${applicationId}/share-token`, {
    headers: asCandidate,
  });
  t.is(early.status, 409);
  t.is(early.body.error.code, 'share.not_available');
  await ivApproved(applicationId);
  const byCentre = await cap(platform, owner, 'POST', `/applications/${applicationId}/share-token`, {
    headers: asCentre(),
  });
  t.is(byCentre.status, 403);
  t.is(byCentre.body.error.code, 'auth.candidate_persona_required');
  const stranger = await candidateWithApplication(platform, targets, { draft: true });
  const byStranger = await cap(platform, stranger.user, 'POST', `/applications/${applicationId}/share-token`, {
    headers: asCandidate,
  });
  t.is(byStranger.status, 403);
  t.is(byStranger.body.error.code, 'auth.out_of_scope');
  t.is(
    (await cap(platform, user, 'POST', `/applications/${applicationId}/share-token`, { headers: asCandidate })).status,
    201,
  );
});

test('anyone with the link reads the application and its files without signing in; the token is stored only as its digest', async (t) => {
  const { user, applicationId, photo, report } = await atInternalVerification();
  await ivApproved(applicationId);
  const made = await cap(platform, user, 'POST', `/applications/${applicationId}/share-token`, {
    headers: asCandidate,
  });
  t.is(made.status, 201, made.text);
  const { token, url } = made.body.data;
  t.true(token.length >= 43, 'at least 256 bits');
  t.true(url.endsWith(`/shared/applications/${token}`));
  const [stored] = await sql<{ token_hash: string }>(
    platform,
    'SELECT token_hash FROM cap.application_share_tokens WHERE application_id = $1',
    [applicationId],
  );
  t.is(stored!.token_hash, createHash('sha256').update(token).digest('hex'));

  const view = await shared(token);
  t.is(view.status, 200, view.text);
  t.like(view.body.data.application, {
    id: applicationId,
    candidate: { name: 'Ada Obi' },
    trade: { name: 'Masonry' },
    currentStageKey: 'external_verification',
  });
  t.false(JSON.stringify(view.body.data).includes('ada@example.test'), 'no contact details in the shared view');
  const photoUrl: string = view.body.data.evidence[0].fileUrl;
  t.true(photoUrl.endsWith(`/shared/applications/${token}/assets/${photo}`));
  const file = await fetch(photoUrl);
  t.is(file.status, 200);
  t.is(file.headers.get('content-type'), 'image/png');
  t.deepEqual(Buffer.from(await file.arrayBuffer()), pngBytes(3));
  t.true(view.body.data.thirdPartyReport.fileUrl.endsWith(`/assets/${report}`));
  t.is((await fetch(view.body.data.thirdPartyReport.fileUrl)).status, 200);
});

test("the file proxy serves only the shared application's files: the candidate's other files and unknown ids are 404", async (t) => {
  const { user, applicationId } = await atInternalVerification();
  await ivApproved(applicationId);
  const { token } = (
    await cap(platform, user, 'POST', `/applications/${applicationId}/share-token`, { headers: asCandidate })
  ).body.data;
  const passport = await uploadAsset(platform, user, pngBytes(2), 'passport', 'passport.png');
  const other = await atInternalVerification();
  for (const assetId of [passport, other.photo, '01ARZ3NDEKTSV4RRFFQ69G5FAV', 'not-an-id']) {
    const res = await shared(token, `/assets/${assetId}`);
    t.is(res.status, 404, assetId);
    t.is(res.body.error.code, 'http.not_found');
  }
});

test('a revoked link is 404 at once, for the view and its files; a new link replaces the old one', async (t) => {
  const { user, applicationId, photo } = await atInternalVerification();
  await ivApproved(applicationId);
  const first = (
    await cap(platform, user, 'POST', `/applications/${applicationId}/share-token`, { headers: asCandidate })
  ).body.data.token;
  const second = (
    await cap(platform, user, 'POST', `/applications/${applicationId}/share-token`, { headers: asCandidate })
  ).body.data.token;
  t.is((await shared(first)).status, 404, 'the new link replaced the old');
  t.is((await shared(second)).status, 200);
  const revoked = await cap(platform, user, 'DELETE', `/applications/${applicationId}/share-token`, {
    headers: asCandidate,
  });
  t.deepEqual(revoked.body.data, { applicationId, revoked: true });
  t.is((await shared(second)).status, 404);
  t.is((await shared(second, `/assets/${photo}`)).status, 404);
  t.is(
    (await cap(platform, user, 'DELETE', `/applications/${applicationId}/share-token`, { headers: asCandidate })).body
      .data.revoked,
    false,
  );
  t.is((await shared('x'.repeat(43))).status, 404);
});

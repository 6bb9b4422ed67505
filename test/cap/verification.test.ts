import test from 'ava';
import { applicationTargets, approvedCentreOwner, cap, candidateWithApplication } from '../helpers/cap.ts';
import { pdfBytes, uploadAsset } from '../helpers/files.ts';
import { firstPagePng, pdfText } from '../helpers/pdf.ts';
import { call, sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp, type SignedUpUser } from '../helpers/users.ts';
import { approvedAssessor, awardingBody, retain } from '../helpers/verification.ts';

// IV, forwarding, EV and certificates (openapi/cap/verification.yaml), as moves of the lifecycle.
let platform: TestPlatform;
let admin: SignedUpUser;
let owner: SignedUpUser;
let targets: { centreId: string; sectorId: string; tradeId: string };
let body: { awardingBodyId: string; member: SignedUpUser };
let iv: { user: SignedUpUser; assessorId: string };
let ev: { user: SignedUpUser; assessorId: string };

const asCandidate = { 'X-CAP-PERSONA': 'candidate' };
const asCentre = () => ({ 'X-CAP-PERSONA': 'centre', 'X-CAP-CENTRE-ID': targets.centreId });
const asAssessor = { 'X-CAP-PERSONA': 'assessor' };
const asBody = { 'X-CAP-PERSONA': 'awarding_body' };

test.before(async () => {
  platform = await startTestPlatform();
  const made = await applicationTargets(platform, { sector: 'Building and Construction', trade: 'Masonry' });
  ({ admin, owner } = made);
  targets = { centreId: made.centreId, sectorId: made.sectorId, tradeId: made.tradeId };
  body = await awardingBody(platform, admin);
  const set = await cap(platform, admin, 'PUT', `/admin/trades/${targets.tradeId}/awarding-body`, {
    json: { awardingBodyId: body.awardingBodyId },
  });
  if (set.status !== 200) throw new Error(set.text);
  iv = await approvedAssessor(platform);
  await retain(platform, targets.centreId, iv.assessorId);
  ev = await approvedAssessor(platform);
});
test.after.always(() => platform?.stop());

const post = (user: SignedUpUser, path: string, headers: Record<string, string>, json?: unknown) =>
  cap(platform, user, 'POST', path, { headers, ...(json === undefined ? {} : { json }) });

/** A submitted application placed at the interview (the stages before it are the centre's, tested in cap-applications). */
async function atInterview() {
  const made = await candidateWithApplication(platform, targets);
  await sql(
    platform,
    `UPDATE cap.applications SET current_stage_key = 'interview', status = 'in_progress' WHERE id = $1`,
    [made.applicationId],
  );
  return made;
}

/** Through the interview to internal verification, with the IV assigned. */
async function atInternalVerification() {
  const made = await atInterview();
  const id = made.applicationId;
  for (const res of [
    await post(owner, `/applications/${id}/iv`, asCentre(), { assessorId: iv.assessorId }),
    await post(owner, `/applications/${id}/review`, asCentre(), { decision: 'approve' }),
  ]) {
    if (res.status !== 200) throw new Error(res.text);
  }
  return made;
}

/** IV approved and forwarded: at external verification, under the awarding body's review. */
async function forwarded() {
  const made = await atInternalVerification();
  const id = made.applicationId;
  for (const res of [
    await post(iv.user, `/applications/${id}/iv/review`, asAssessor, { decision: 'approve' }),
    await post(owner, `/applications/${id}/forward-to-awarding-body`, asCentre()),
  ]) {
    if (res.status !== 200) throw new Error(res.text);
  }
  return made;
}

test("IV approval writes the APPROVED stage-history entry; forwarded to the trade's awarding body, EV assigned and approved, the certificate is a real PDF and the application is certified", async (t) => {
  const { user, applicationId: id } = await atInternalVerification();
  const ivApproved = () => cap(platform, owner, 'GET', '/applications?ivApproved=true', { headers: asCentre() });
  t.false((await ivApproved()).body.data.some((a: { id: string }) => a.id === id));

  const reviewed = await post(iv.user, `/applications/${id}/iv/review`, asAssessor, {
    decision: 'approve',
    feedback: 'Evidence verified',
  });
  t.is(reviewed.status, 200, reviewed.text);
  t.like(reviewed.body.data, { status: 'in_progress', currentStageKey: 'external_verification' });
  const [entry] = await sql<{ status: string; actor: string; actor_user_id: string }>(
    platform,
    `SELECT status, actor, actor_user_id FROM cap.application_moves WHERE application_id = $1 AND from_stage = 'internal_verification'`,
    [id],
  );
  t.deepEqual(entry, { status: 'APPROVED', actor: 'internal_verifier', actor_user_id: iv.user.userId });
  t.true(
    (await ivApproved()).body.data.some((a: { id: string }) => a.id === id),
    'ivApproved=true lists it',
  );

  const sent = await post(owner, `/applications/${id}/forward-to-awarding-body`, asCentre());
  t.is(sent.status, 200, sent.text);
  t.is(sent.body.data.awardingBodyId, body.awardingBodyId);
  const stage = (
    await cap(platform, user, 'GET', `/applications/${id}/stages`, { headers: asCandidate })
  ).body.data.find((s: { stageKey: string }) => s.stageKey === 'external_verification');
  t.is(stage.status, 'under_review');
  const inbox = await cap(platform, body.member, 'GET', '/awarding-body/applications', { headers: asBody });
  t.is(inbox.status, 200, inbox.text);
  t.true(inbox.body.data.some((a: { id: string }) => a.id === id));

  const early = await post(body.member, `/applications/${id}/ev/review`, asBody, { decision: 'approve' });
  t.is(early.status, 409);
  t.is(early.body.error.code, 'application.ev_not_assigned');
  t.is((await post(body.member, `/applications/${id}/ev`, asBody, { assessorId: ev.assessorId })).status, 200);
  t.is(
    (await cap(platform, ev.user, 'GET', `/applications/${id}/evidence`, { headers: asAssessor })).status,
    200,
    'the assigned EV reads the evidence',
  );
  const evApproved = await post(body.member, `/applications/${id}/ev/review`, asBody, {
    decision: 'approve',
    feedback: 'Meets the standard',
  });
  t.like(evApproved.body.data, { currentStageKey: 'certification' });

  const issued = await post(body.member, `/applications/${id}/certificate`, asBody, {});
  t.is(issued.status, 201, issued.text);
  const certificate = issued.body.data;
  t.like(certificate, { applicationId: id, issuedBy: body.member.userId });
  t.regex(certificate.verificationCode, /^CAP-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
  const pdf = new Uint8Array(await (await fetch(certificate.url)).arrayBuffer());
  const text = await pdfText(pdf);
  for (const expected of [
    'Ada Obi',
    'Masonry',
    'Lagos Skills Centre',
    'National Board for Technical Education',
    certificate.verificationCode,
    certificate.issuedAt.slice(0, 10),
  ]) {
    t.true(text.includes(expected), `the certificate says ${expected}`);
  }
  t.true((await firstPagePng(pdf)).width > 0);
  t.like((await cap(platform, user, 'GET', `/applications/${id}`, { headers: asCandidate })).body.data, {
    status: 'certified',
  });
  t.is(
    (await cap(platform, user, 'GET', `/applications/${id}/certificate`, { headers: asCandidate })).body.data
      .certificateAssetId,
    certificate.certificateAssetId,
  );
  // The PDF is the candidate's own asset: their token resolves it.
  const resolved = await call('POST', platform.url('/v1/ol/storage/resolve'), {
    token: user.accessToken,
    json: { assetIds: [certificate.certificateAssetId] },
  });
  t.is(resolved.body.data.length, 1);
  const verified = await call('GET', platform.url(`/v1/cap/certificates/verify/${certificate.verificationCode}`));
  t.like(verified.body.data, {
    valid: true,
    holderName: 'Ada Obi',
    trade: 'Masonry',
    awardingBody: 'National Board for Technical Education',
    applicationType: 'RPL',
  });
  t.is((await call('GET', platform.url('/v1/cap/certificates/verify/CAP-0000-0000-0000'))).status, 404);
  const again = await post(body.member, `/applications/${id}/certificate`, asBody, {});
  t.is(again.status, 409, 'a certified application has its certificate');
  // The timeline names every move, who made it and the outcome each review recorded.
  const events = (await cap(platform, user, 'GET', `/applications/${id}/events`, { headers: asCandidate })).body.data;
  t.deepEqual(events.map((e: { eventType: string; actorRole: string }) => `${e.eventType}:${e.actorRole}`).reverse(), [
    'submit:candidate',
    'approve:centre',
    'approve:internal_verifier',
    'forward:centre',
    'approve:awarding_body',
    'certify:awarding_body',
  ]);
  t.like(events[0], { actorName: 'Aisha Bello', title: 'Certified' });
  t.like(
    events.find((e: { actorRole: string }) => e.actorRole === 'internal_verifier'),
    { metadata: { fromStage: 'internal_verification', outcome: 'APPROVED', feedback: 'Evidence verified' } },
  );
  // A shared application shows its certificate, through the shared file proxy.
  const link = (await post(user, `/applications/${id}/share-token`, asCandidate)).body.data;
  const shown = (await call('GET', link.url)).body.data.certificate;
  t.like(shown, { verificationCode: certificate.verificationCode });
  const proxied = await fetch(shown.fileUrl);
  t.is(proxied.headers.get('content-type'), 'application/pdf');
  t.true((await pdfText(new Uint8Array(await proxied.arrayBuffer()))).includes('Ada Obi'));
});

test('the IV is an approved assessor the centre retains; only that IV reviews, only at internal verification, and the centre no longer approves it', async (t) => {
  const { applicationId: id } = await atInterview();
  const notRetained = await approvedAssessor(platform);
  const pending = await approvedAssessor(platform, 'pending');
  await retain(platform, targets.centreId, pending.assessorId);
  const assign = (assessorId: string) => post(owner, `/applications/${id}/iv`, asCentre(), { assessorId });
  t.is((await assign(notRetained.assessorId)).body.error.code, 'verification.assessor_not_retained');
  t.is((await assign(pending.assessorId)).body.error.code, 'verification.assessor_not_eligible');
  const otherOwner = await signUp(platform);
  const otherCentre = await approvedCentreOwner(platform, otherOwner);
  const fromOtherCentre = await post(
    otherOwner,
    `/applications/${id}/iv`,
    { 'X-CAP-PERSONA': 'centre', 'X-CAP-CENTRE-ID': otherCentre },
    { assessorId: iv.assessorId },
  );
  t.is(fromOtherCentre.status, 403);
  t.is(fromOtherCentre.body.error.code, 'auth.out_of_scope');
  t.is((await assign(iv.assessorId)).status, 200);
  const detail = (await cap(platform, owner, 'GET', `/applications/${id}`, { headers: asCentre() })).body.data;
  t.like(detail.internalVerifier, { assessorId: iv.assessorId, name: 'Ada Obi', qualifications: [] });

  const tooEarly = await post(iv.user, `/applications/${id}/iv/review`, asAssessor, { decision: 'approve' });
  t.is(tooEarly.status, 409);
  t.is(tooEarly.body.error.code, 'application.not_in_stage');
  t.is((await post(owner, `/applications/${id}/review`, asCentre(), { decision: 'approve' })).status, 200);
  const byCentre = await post(owner, `/applications/${id}/review`, asCentre(), { decision: 'approve' });
  t.is(byCentre.status, 409, "internal verification is not the centre's to approve");
  t.is(byCentre.body.error.code, 'application.not_in_stage');
  const otherAssessor = await approvedAssessor(platform);
  const byOther = await post(otherAssessor.user, `/applications/${id}/iv/review`, asAssessor, { decision: 'approve' });
  t.is(byOther.status, 403);
  t.is(byOther.body.error.code, 'verification.not_internal_verifier');

  // A new IV replaces the old one, who can no longer review.
  const second = await approvedAssessor(platform);
  await retain(platform, targets.centreId, second.assessorId);
  t.is((await assign(second.assessorId)).status, 200);
  t.is(
    (await post(iv.user, `/applications/${id}/iv/review`, asAssessor, { decision: 'approve' })).body.error.code,
    'verification.not_internal_verifier',
  );
  const rejected = await post(second.user, `/applications/${id}/iv/review`, asAssessor, {
    decision: 'reject',
    feedback: 'Evidence not authentic',
  });
  t.like(rejected.body.data, { status: 'rejected' });
  const [entry] = await sql<{ status: string }>(
    platform,
    `SELECT status FROM cap.application_moves WHERE application_id = $1 AND from_stage = 'internal_verification'`,
    [id],
  );
  t.is(entry!.status, 'REJECTED');
});

test("forwarding needs IV approval, the trade's awarding body, and happens once; another awarding body sees nothing of it", async (t) => {
  const { applicationId: id } = await atInternalVerification();
  const early = await post(owner, `/applications/${id}/forward-to-awarding-body`, asCentre());
  t.is(early.status, 409);
  t.is(early.body.error.code, 'application.not_in_stage');
  await post(iv.user, `/applications/${id}/iv/review`, asAssessor, { decision: 'approve' });
  t.is((await post(owner, `/applications/${id}/forward-to-awarding-body`, asCentre())).status, 200);
  const twice = await post(owner, `/applications/${id}/forward-to-awarding-body`, asCentre());
  t.is(twice.status, 409);
  t.is(twice.body.error.code, 'application.already_forwarded');

  const other = await awardingBody(platform, admin, 'Another Board');
  t.false(
    (await cap(platform, other.member, 'GET', '/awarding-body/applications', { headers: asBody })).body.data.some(
      (a: { id: string }) => a.id === id,
    ),
  );
  const foreign = await post(other.member, `/applications/${id}/ev`, asBody, { assessorId: ev.assessorId });
  t.is(foreign.status, 403);
  t.is(foreign.body.error.code, 'auth.out_of_scope');
  t.is((await post(other.member, `/applications/${id}/certificate`, asBody, {})).status, 403);

  // A trade with no awarding body: nowhere to forward to, and nothing changes.
  const orphanTrade = (
    await cap(platform, admin, 'POST', '/admin/trades', { json: { sectorId: targets.sectorId, name: 'Tiling' } })
  ).body.data.id;
  const orphan = await candidateWithApplication(platform, { ...targets, tradeId: orphanTrade });
  await sql(
    platform,
    `UPDATE cap.applications SET current_stage_key = 'external_verification', status = 'in_progress' WHERE id = $1`,
    [orphan.applicationId],
  );
  const nowhere = await post(owner, `/applications/${orphan.applicationId}/forward-to-awarding-body`, asCentre());
  t.is(nowhere.status, 409);
  t.is(nowhere.body.error.code, 'application.no_awarding_body');
  t.is(
    (
      await sql(platform, `SELECT 1 FROM cap.application_moves WHERE application_id = $1 AND action = 'forward'`, [
        orphan.applicationId,
      ])
    ).length,
    0,
  );
});

test('the EV is an approved assessor other than the IV, assigned by the awarding body; the centre and the candidate cannot act as it', async (t) => {
  const { user, applicationId: id } = await forwarded();
  const sameAsIv = await post(body.member, `/applications/${id}/ev`, asBody, { assessorId: iv.assessorId });
  t.is(sameAsIv.status, 422);
  t.is(sameAsIv.body.error.code, 'verification.ev_is_iv');
  const byCentre = await post(owner, `/applications/${id}/ev`, asCentre(), { assessorId: ev.assessorId });
  t.is(byCentre.status, 403);
  t.is(byCentre.body.error.code, 'auth.awarding_body_persona_required');
  const reviewByCandidate = await post(user, `/applications/${id}/ev/review`, asCandidate, { decision: 'approve' });
  t.is(reviewByCandidate.body.error.code, 'auth.awarding_body_persona_required');
  t.is((await post(body.member, `/applications/${id}/ev`, asBody, { assessorId: ev.assessorId })).status, 200);
  const rejected = await post(body.member, `/applications/${id}/ev/review`, asBody, {
    decision: 'reject',
    feedback: 'Not at the standard',
  });
  t.like(rejected.body.data, { status: 'rejected' });
});

test("a certificate the awarding body uploaded is issued as it is; someone else's file is 422; before certification it is 409", async (t) => {
  const { applicationId: id } = await forwarded();
  const notYet = await post(body.member, `/applications/${id}/certificate`, asBody, {});
  t.is(notYet.status, 409);
  t.is(notYet.body.error.code, 'application.not_in_stage');
  await post(body.member, `/applications/${id}/ev`, asBody, { assessorId: ev.assessorId });
  await post(body.member, `/applications/${id}/ev/review`, asBody, { decision: 'approve' });
  const theirs = await uploadAsset(platform, owner, pdfBytes(), 'certificate', 'cert.pdf', 'application/pdf');
  const refused = await post(body.member, `/applications/${id}/certificate`, asBody, { certificateAssetId: theirs });
  t.is(refused.status, 422);
  t.is(refused.body.error.code, 'certificate.asset_not_found');
  const mine = await uploadAsset(platform, body.member, pdfBytes(), 'certificate', 'cert.pdf', 'application/pdf');
  const issued = await post(body.member, `/applications/${id}/certificate`, asBody, { certificateAssetId: mine });
  t.is(issued.status, 201, issued.text);
  t.is(issued.body.data.certificateAssetId, mine);
});

test('PATCH /centre/applications/bulk certify is 403 application.certify_bypass_off while CAP_CENTRE_CERTIFY_BYPASS is off, and changes nothing', async (t) => {
  const { applicationId: id } = await atInterview();
  const res = await cap(platform, owner, 'PATCH', '/centre/applications/bulk', {
    headers: asCentre(),
    json: { ids: [id], action: 'certify' },
  });
  t.is(res.status, 403);
  t.is(res.body.error.code, 'application.certify_bypass_off');
  const [row] = await sql<{ status: string }>(platform, 'SELECT status FROM cap.applications WHERE id = $1', [id]);
  t.is(row!.status, 'in_progress');
});

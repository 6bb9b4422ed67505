import test from 'ava';
import {
  activeStaff,
  applicationTargets,
  approvedCentreOwner,
  cap,
  candidateWithApplication,
  drafts,
  onboard,
} from '../helpers/cap.ts';
import { pdfBytes, pngBytes, uploadAsset } from '../helpers/files.ts';
import { sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp, type SignedUpUser } from '../helpers/users.ts';

// The evidence vault (openapi/cap/evidence.yaml): general evidence, self-assessment, third-party report.
let platform: TestPlatform;
let owner: SignedUpUser;
let targets: { centreId: string; sectorId: string; tradeId: string };
let unitIds: string[];

const asCandidate = { 'X-CAP-PERSONA': 'candidate' };
const asCentre = (centreId = targets.centreId) => ({ 'X-CAP-PERSONA': 'centre', 'X-CAP-CENTRE-ID': centreId });

test.before(async () => {
  platform = await startTestPlatform();
  const made = await applicationTargets(platform, { sector: 'Building and Construction', trade: 'Masonry' });
  ({ owner } = made);
  targets = { centreId: made.centreId, sectorId: made.sectorId, tradeId: made.tradeId };
  // The trade's NOS document with two units at level 1 (an application keeps the NOS of its day).
  const unit = (n: number) => ({
    referenceNumber: `MAS/L1/0${n}`,
    title: `Masonry unit ${n}`,
    isMandatory: true,
    assessmentMethods: ['observation'],
    learningOutcomes: [],
  });
  const imported = await cap(platform, made.admin, 'POST', `/admin/trades/${made.tradeId}/nos`, {
    json: { title: 'Masonry (NOS)', levels: [{ level: 1, purpose: 'Works safely.', units: [unit(1), unit(2)] }] },
  });
  if (imported.status !== 201) throw new Error(imported.text);
  unitIds = (
    await sql<{ id: string }>(
      platform,
      `SELECT u.id FROM cap.units u JOIN cap.nos_documents d ON d.id = u.nos_document_id WHERE d.trade_id = $1 AND d.status = 'active' ORDER BY u.position`,
      [made.tradeId],
    )
  ).map((r) => r.id);
});
test.after.always(() => platform?.stop());

const evidencePath = (applicationId: string, rest = '') => `/applications/${applicationId}/evidence${rest}`;

test("general evidence of one of the trade's types with the candidate's own file is kept, read with a fresh link, listed and removed", async (t) => {
  const { user, applicationId } = await candidateWithApplication(platform, targets);
  const assetId = await uploadAsset(platform, user, pngBytes(4), 'evidence', 'wall.png');
  const created = await cap(platform, user, 'POST', evidencePath(applicationId), {
    headers: asCandidate,
    json: {
      documentName: 'Garden wall',
      evidenceType: 'Photographs of completed work',
      assetId,
      textValue: 'Built in 2024',
    },
  });
  t.is(created.status, 201, created.text);
  t.like(created.body.data, {
    applicationId,
    documentName: 'Garden wall',
    evidenceType: 'Photographs of completed work',
    assetId,
    formData: null,
    textValue: 'Built in 2024',
  });
  t.regex(created.body.data.url, /\/storage\/files\//);
  const read = await cap(platform, user, 'GET', evidencePath(applicationId, `/${created.body.data.id}`), {
    headers: asCandidate,
  });
  t.is(read.status, 200);
  t.is(read.body.data.id, created.body.data.id);
  const listed = await cap(platform, user, 'GET', evidencePath(applicationId), { headers: asCandidate });
  t.deepEqual(
    listed.body.data.map((item: { kind: string; documentName: string }) => [item.kind, item.documentName]),
    [['general', 'Garden wall']],
  );
  const removed = await cap(platform, user, 'DELETE', evidencePath(applicationId, `/${created.body.data.id}`), {
    headers: asCandidate,
  });
  t.is(removed.status, 200);
  t.deepEqual((await cap(platform, user, 'GET', evidencePath(applicationId), { headers: asCandidate })).body.data, []);
  t.is(
    (
      await cap(platform, user, 'GET', evidencePath(applicationId, `/${created.body.data.id}`), {
        headers: asCandidate,
      })
    ).status,
    404,
  );
});

test("evidence of a type the trade does not have, with nothing in it, or with another user's file is refused (422) and nothing is kept", async (t) => {
  const { user, applicationId } = await candidateWithApplication(platform, targets, { draft: true });
  const otherFile = await uploadAsset(
    platform,
    await signUp(platform),
    pdfBytes(),
    'evidence',
    'theirs.pdf',
    'application/pdf',
  );
  const post = (json: object) =>
    cap(platform, user, 'POST', evidencePath(applicationId), { headers: asCandidate, json });
  const wrongType = await post({ documentName: 'Letter', evidenceType: 'Horoscope', textValue: 'x' });
  t.is(wrongType.status, 422);
  t.is(wrongType.body.error.code, 'evidence.invalid');
  t.is(wrongType.body.error.details[0].field, 'evidenceType');
  const empty = await post({ documentName: 'Letter', evidenceType: 'Training certificates' });
  t.is(empty.body.error.code, 'evidence.invalid');
  const notMine = await post({ documentName: 'Letter', evidenceType: 'Training certificates', assetId: otherFile });
  t.is(notMine.status, 422);
  t.is(notMine.body.error.code, 'evidence.asset_not_found');
  t.is(
    (await sql(platform, 'SELECT 1 FROM cap.application_evidence WHERE application_id = $1', [applicationId])).length,
    0,
  );
});

test("the centre's staff read the vault; another centre, another candidate and an unassigned assessor are 403 auth.out_of_scope; only the candidate writes", async (t) => {
  const { user, applicationId } = await candidateWithApplication(platform, targets);
  await cap(platform, user, 'POST', evidencePath(applicationId), {
    headers: asCandidate,
    json: {
      documentName: 'Reference',
      evidenceType: 'Employer or supervisor reference letter',
      textValue: 'Ada works well.',
    },
  });
  const { member } = await activeStaff(platform, owner, targets.centreId);
  const byStaff = await cap(platform, member, 'GET', evidencePath(applicationId), { headers: asCentre() });
  t.is(byStaff.status, 200, byStaff.text);
  t.is(byStaff.body.data.length, 1);
  t.is(
    (await cap(platform, member, 'GET', evidencePath(applicationId, '/self-assessment'), { headers: asCentre() }))
      .status,
    200,
  );

  const otherOwner = await signUp(platform);
  const otherCentre = await approvedCentreOwner(platform, otherOwner);
  const anotherCandidate = await signUp(platform);
  await onboard(platform, anotherCandidate, 'candidate');
  const assessor = await signUp(platform);
  await onboard(platform, assessor, 'assessor');
  await sql(platform, `UPDATE cap.assessor_profiles SET status = 'approved' WHERE user_id = $1`, [assessor.userId]);
  for (const [who, headers] of [
    [otherOwner, asCentre(otherCentre)],
    [anotherCandidate, asCandidate],
    [assessor, { 'X-CAP-PERSONA': 'assessor' }],
  ] as const) {
    for (const path of ['', '/self-assessment', '/third-party-report']) {
      const res = await cap(platform, who, 'GET', evidencePath(applicationId, path), { headers });
      t.is(res.status, 403, `${headers['X-CAP-PERSONA']} GET ${path}`);
      t.is(res.body.error.code, 'auth.out_of_scope');
    }
    // A cursor of the vault (its one row's id, as the API encodes it) does not turn the refusal into a 422.
    const cursor = Buffer.from(JSON.stringify({ after: byStaff.body.data[0].id })).toString('base64url');
    const paged = await cap(platform, who, 'GET', `${evidencePath(applicationId)}?cursor=${cursor}`, { headers });
    t.is(paged.status, 403, `${headers['X-CAP-PERSONA']} GET with a cursor`);
    t.is(paged.body.error.code, 'auth.out_of_scope');
  }
  const staffWrites = await cap(platform, member, 'POST', evidencePath(applicationId), {
    headers: asCentre(),
    json: { documentName: 'x', evidenceType: 'Training certificates', textValue: 'x' },
  });
  t.is(staffWrites.status, 403);
  t.is(staffWrites.body.error.code, 'auth.candidate_persona_required');
  const otherWrites = await cap(platform, anotherCandidate, 'PUT', evidencePath(applicationId, '/self-assessment'), {
    headers: asCandidate,
    json: { reflection: { text: 'mine' } },
  });
  t.is(otherWrites.status, 403);
  t.is(otherWrites.body.error.code, 'auth.out_of_scope');
  t.is(
    (await cap(platform, user, 'GET', evidencePath('01ARZ3NDEKTSV4RRFFQ69G5FAV'), { headers: asCandidate })).status,
    404,
  );
});

test('the self-assessment starts with one entry per unit of the trade, saves drafts, and submit freezes the personal information for good', async (t) => {
  const { user, applicationId } = await candidateWithApplication(platform, targets);
  const path = evidencePath(applicationId, '/self-assessment');
  const fresh = (await cap(platform, user, 'GET', path, { headers: asCandidate })).body.data;
  t.deepEqual(
    fresh.competencies.map((c: { unitId: string }) => c.unitId),
    unitIds,
  );
  t.like(fresh, {
    applicationId,
    frozenPersonalInformation: null,
    submittedAt: null,
    personalInformation: { personalDetails: { firstName: 'Ada' } },
  });

  const unknownUnit = await cap(platform, user, 'PUT', path, {
    headers: asCandidate,
    json: { competencies: [{ unitId: 'MAS/L9/99', rating: 'competent' }] },
  });
  t.is(unknownUnit.status, 422);
  t.is(unknownUnit.body.error.code, 'evidence.invalid');
  const twice = await cap(platform, user, 'PUT', path, {
    headers: asCandidate,
    json: { competencies: [{ unitId: unitIds[0] }, { unitId: unitIds[0] }] },
  });
  t.is(twice.body.error.details[0].issue, 'appears twice');

  const competencies = unitIds.map((unitId) => ({ unitId, rating: 'competent', notes: 'Daily work' }));
  const saved = await cap(platform, user, 'PUT', path, {
    headers: asCandidate,
    json: { competencies, reflection: { strengths: 'Block work' } },
  });
  t.is(saved.status, 200, saved.text);
  t.like(saved.body.data, { submittedAt: null, reflection: { strengths: 'Block work' } });
  t.deepEqual(saved.body.data.competencies, competencies);

  const noDeclaration = await cap(platform, user, 'PUT', path, { headers: asCandidate, json: { submit: true } });
  t.is(noDeclaration.status, 422);
  t.is(noDeclaration.body.error.code, 'evidence.self_assessment_incomplete');
  t.is(
    (await cap(platform, user, 'GET', path, { headers: asCandidate })).body.data.submittedAt,
    null,
    'a refused submit changes nothing',
  );

  const submitted = await cap(platform, user, 'PUT', path, {
    headers: asCandidate,
    json: { declaration: { isTrueAndMine: true }, submit: true },
  });
  t.is(submitted.status, 200, submitted.text);
  t.truthy(submitted.body.data.submittedAt);
  t.deepEqual(submitted.body.data.frozenPersonalInformation.personalDetails, drafts.candidate.personalDetails);

  // The profile changes later; the submitted self-assessment keeps what it froze, and changes no more.
  await cap(platform, user, 'PATCH', '/onboarding/candidate/save', {
    json: { personalDetails: { firstName: 'Adaeze' } },
  });
  const after = (await cap(platform, user, 'GET', path, { headers: asCandidate })).body.data;
  t.is(after.frozenPersonalInformation.personalDetails.firstName, 'Ada');
  t.is(after.personalInformation.personalDetails.firstName, 'Ada');
  const again = await cap(platform, user, 'PUT', path, {
    headers: asCandidate,
    json: { reflection: { strengths: 'changed' } },
  });
  t.is(again.status, 409);
  t.is(again.body.error.code, 'evidence.self_assessment_submitted');
  const vault = (await cap(platform, user, 'GET', evidencePath(applicationId), { headers: asCandidate })).body.data;
  t.like(vault[0], { kind: 'self_assessment', status: 'submitted' });
});

test("the third-party report is the candidate's own upload; a later one replaces it; it shows in the vault", async (t) => {
  const { user, applicationId } = await candidateWithApplication(platform, targets);
  const path = evidencePath(applicationId, '/third-party-report');
  t.deepEqual((await cap(platform, user, 'GET', path, { headers: asCandidate })).body.data, {
    applicationId,
    assetId: null,
    url: null,
    submittedAt: null,
  });
  const theirs = await uploadAsset(
    platform,
    await signUp(platform),
    pdfBytes(),
    'evidence',
    'report.pdf',
    'application/pdf',
  );
  const refused = await cap(platform, user, 'POST', path, { headers: asCandidate, json: { assetId: theirs } });
  t.is(refused.status, 422);
  t.is(refused.body.error.code, 'evidence.asset_not_found');
  const first = await uploadAsset(platform, user, pdfBytes(), 'evidence', 'report.pdf', 'application/pdf');
  const second = await uploadAsset(platform, user, pdfBytes(), 'evidence', 'report-2.pdf', 'application/pdf');
  t.is((await cap(platform, user, 'POST', path, { headers: asCandidate, json: { assetId: first } })).status, 201);
  const replaced = await cap(platform, user, 'POST', path, { headers: asCandidate, json: { assetId: second } });
  t.like(replaced.body.data, { applicationId, assetId: second });
  t.truthy(replaced.body.data.submittedAt);
  t.regex(replaced.body.data.url, /\/storage\/files\//);
  const vault = await cap(platform, user, 'GET', `${evidencePath(applicationId)}?limit=1`, { headers: asCandidate });
  t.like(vault.body.data[0], { kind: 'third_party_report', status: 'submitted' });
  t.false(vault.body.meta.pagination.hasMore);
});

test('from internal verification on, and once finished, the vault is 409 evidence.locked for every change but still read', async (t) => {
  const { user, applicationId } = await candidateWithApplication(platform, targets);
  const kept = await cap(platform, user, 'POST', evidencePath(applicationId), {
    headers: asCandidate,
    json: { documentName: 'Logbook', evidenceType: 'Work logbook or diary', textValue: 'Week 1' },
  });
  const assetId = await uploadAsset(platform, user, pdfBytes(), 'evidence', 'report.pdf', 'application/pdf');
  for (const [stage, status] of [
    ['internal_verification', 'in_progress'],
    ['interview', 'rejected'],
  ]) {
    await sql(platform, `UPDATE cap.applications SET current_stage_key = $2, status = $3 WHERE id = $1`, [
      applicationId,
      stage,
      status,
    ]);
    const changes = [
      cap(platform, user, 'POST', evidencePath(applicationId), {
        headers: asCandidate,
        json: { documentName: 'Late', evidenceType: 'Work logbook or diary', textValue: 'x' },
      }),
      cap(platform, user, 'DELETE', evidencePath(applicationId, `/${kept.body.data.id}`), { headers: asCandidate }),
      cap(platform, user, 'PUT', evidencePath(applicationId, '/self-assessment'), {
        headers: asCandidate,
        json: { reflection: { late: true } },
      }),
      cap(platform, user, 'POST', evidencePath(applicationId, '/third-party-report'), {
        headers: asCandidate,
        json: { assetId },
      }),
    ];
    for (const res of await Promise.all(changes)) {
      t.is(res.status, 409, `${stage}/${status}: ${res.text}`);
      t.is(res.body.error.code, 'evidence.locked');
    }
    t.is((await cap(platform, user, 'GET', evidencePath(applicationId), { headers: asCandidate })).body.data.length, 1);
  }
});

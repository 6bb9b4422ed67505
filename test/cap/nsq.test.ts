import test from 'ava';
import { approvedAssessor, asAssessor, retainedAssessor, type TestAssessor } from '../helpers/assessors.ts';
import { applicationForm, applicationTargets, cap, candidateWithApplication, onboard } from '../helpers/cap.ts';
import { pngBytes, uploadAsset } from '../helpers/files.ts';
import { sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp, type SignedUpUser } from '../helpers/users.ts';

// NSQ paths (openapi/cap/nsq.yaml): the induction form, unit assessors, unit evidence, direct
// observation and sign-off, along NSQ's own stages.
let platform: TestPlatform;
let owner: SignedUpUser;
let admin: SignedUpUser;
let targets: { centreId: string; sectorId: string; tradeId: string };
/** Units by level of the trade's NOS: level 1 has two, level 2 one. */
let units: { l1: string[]; l2: string[] };
let assessor: TestAssessor;
let otherAssessor: TestAssessor;

const asCandidate = { 'X-CAP-PERSONA': 'candidate' };
const asCentre = () => ({ 'X-CAP-PERSONA': 'centre', 'X-CAP-CENTRE-ID': targets.centreId });

test.before(async () => {
  platform = await startTestPlatform();
  const made = await applicationTargets(platform, { sector: 'Electrical', trade: 'Electrical Installation' });
  ({ owner, admin } = made);
  targets = { centreId: made.centreId, sectorId: made.sectorId, tradeId: made.tradeId };
  const unit = (level: number, n: number) => ({
    referenceNumber: `ELE/L${level}/0${n}`,
    title: `Electrical unit ${level}.${n}`,
    isMandatory: n === 1,
    assessmentMethods: ['observation'],
    learningOutcomes: [],
  });
  const imported = await cap(platform, admin, 'POST', `/admin/trades/${made.tradeId}/nos`, {
    json: {
      title: 'Electrical (NOS)',
      levels: [
        { level: 1, purpose: 'Wires safely.', units: [unit(1, 1), unit(1, 2)] },
        { level: 2, purpose: 'Installs circuits.', units: [unit(2, 1)] },
      ],
    },
  });
  if (imported.status !== 201) throw new Error(imported.text);
  const rows = await sql<{ id: string; level: number }>(
    platform,
    `SELECT u.id, l.level FROM cap.units u JOIN cap.qualification_levels l ON l.id = u.qualification_level_id JOIN cap.nos_documents d ON d.id = u.nos_document_id
      WHERE d.trade_id = $1 AND d.status = 'active' ORDER BY l.level, u.position`,
    [made.tradeId],
  );
  units = {
    l1: rows.filter((r) => r.level === 1).map((r) => r.id),
    l2: rows.filter((r) => r.level === 2).map((r) => r.id),
  };
  [assessor, otherAssessor] = await Promise.all([
    retainedAssessor(platform, admin, owner, targets.centreId),
    retainedAssessor(platform, admin, owner, targets.centreId),
  ]);
});
test.after.always(() => platform?.stop());

/** A submitted and paid NSQ application, placed at induction (payment is tested in its own area). */
async function atInduction() {
  const user = await signUp(platform);
  await onboard(platform, user, 'candidate');
  const made = await cap(platform, user, 'POST', '/applications', {
    headers: asCandidate,
    json: { type: 'NSQ', unitIds: [], ...targets },
  });
  const applicationId = made.body.data.id as string;
  await cap(platform, user, 'PATCH', `/applications/${applicationId}`, { headers: asCandidate, json: applicationForm });
  await cap(platform, user, 'POST', `/applications/${applicationId}/submit`, { headers: asCandidate });
  await sql(
    platform,
    `UPDATE cap.applications SET status = 'in_progress', current_stage_key = 'induction' WHERE id = $1`,
    [applicationId],
  );
  return { user, applicationId };
}

const review = (applicationId: string, stageKey: string) =>
  cap(platform, owner, 'POST', `/applications/${applicationId}/review`, {
    headers: asCentre(),
    json: { decision: 'approve', stageKey },
  });

/** An NSQ application whose induction wished for both level 1 units, approved: at unit assessment, with a unit assessor. */
async function atUnitAssessment() {
  const made = await atInduction();
  await cap(platform, made.user, 'POST', `/applications/${made.applicationId}/induction`, {
    headers: asCandidate,
    json: { level: 1, unitIds: units.l1 },
  });
  await cap(platform, owner, 'POST', `/applications/${made.applicationId}/unit-assessors`, {
    headers: asCentre(),
    json: { assessorId: assessor.id },
  });
  const moved = await review(made.applicationId, 'induction');
  if (moved.status !== 200) throw new Error(moved.text);
  return made;
}

const signature = (user: SignedUpUser) => uploadAsset(platform, user, pngBytes(2), 'signature', 'signature.png');
const observe = (who: TestAssessor, applicationId: string, unitId: string, extra: object = {}) =>
  cap(platform, who.user, 'POST', `/applications/${applicationId}/units/${unitId}/observation`, {
    headers: asAssessor,
    json: {
      observedAt: new Date(Date.now() - 3_600_000).toISOString(),
      notes: 'Wired a ring main safely.',
      outcome: 'competent',
      ...extra,
    },
  });

test("the induction form shows the trade and its NOS options; the wished level and units must be the NOS's, units of that level (422 otherwise)", async (t) => {
  const { user, applicationId } = await atInduction();
  const path = `/applications/${applicationId}/induction`;
  const empty = await cap(platform, user, 'GET', path, { headers: asCandidate });
  t.is(empty.status, 200, empty.text);
  t.like(empty.body.data, {
    applicationId,
    trade: { id: targets.tradeId, name: 'Electrical Installation' },
    level: null,
    unitIds: [],
    submittedAt: null,
  });
  t.deepEqual(
    empty.body.data.options.map((o: any) => [o.level, o.units.map((u: any) => u.unitId)]),
    [
      [1, units.l1],
      [2, units.l2],
    ],
  );

  const noLevel = await cap(platform, user, 'POST', path, {
    headers: asCandidate,
    json: { level: 3, unitIds: units.l1 },
  });
  t.is(noLevel.status, 422);
  t.is(noLevel.body.error.code, 'nsq.induction_invalid');
  t.is(noLevel.body.error.details[0].field, 'level');
  const wrongLevel = await cap(platform, user, 'POST', path, {
    headers: asCandidate,
    json: { level: 1, unitIds: [units.l1[0], units.l2[0]] },
  });
  t.deepEqual(
    wrongLevel.body.error.details.map((d: any) => d.field),
    ['unitIds[1]'],
  );
  t.is((await sql(platform, 'SELECT 1 FROM cap.nsq_inductions WHERE application_id = $1', [applicationId])).length, 0);

  const sent = await cap(platform, user, 'POST', path, {
    headers: asCandidate,
    json: { level: 1, unitIds: [units.l1[1]!] },
  });
  t.is(sent.status, 200, sent.text);
  t.like(sent.body.data, { level: 1, unitIds: [units.l1[1]] });
  t.truthy(sent.body.data.submittedAt);
  t.deepEqual(
    (await cap(platform, owner, 'GET', path, { headers: asCentre() })).body.data.unitIds,
    [units.l1[1]],
    'the centre reads the wish-list',
  );
});

test('the induction moves on only once its form is sent (409 nsq.induction_missing); an RPL application has no induction', async (t) => {
  const { user, applicationId } = await atInduction();
  const early = await review(applicationId, 'induction');
  t.is(early.status, 409);
  t.is(early.body.error.code, 'nsq.induction_missing');
  await cap(platform, user, 'POST', `/applications/${applicationId}/induction`, {
    headers: asCandidate,
    json: { level: 2, unitIds: units.l2 },
  });
  t.is((await review(applicationId, 'induction')).body.data.currentStageKey, 'unit_assessment');
  t.is(
    (
      await cap(platform, user, 'POST', `/applications/${applicationId}/induction`, {
        headers: asCandidate,
        json: { level: 1, unitIds: units.l1 },
      })
    ).body.error.code,
    'application.not_in_stage',
    'the wish-list is settled',
  );

  const rpl = await candidateWithApplication(platform, targets);
  t.is(
    (
      await cap(platform, rpl.user, 'POST', `/applications/${rpl.applicationId}/induction`, {
        headers: asCandidate,
        json: { level: 1, unitIds: units.l1 },
      })
    ).body.error.code,
    'application.not_in_stage',
  );
});

test('the centre assigns unit assessors it retains (role unit_assessor); others are 422 nsq.assessor_not_retained', async (t) => {
  const { applicationId } = await atInduction();
  const path = `/applications/${applicationId}/unit-assessors`;
  const stranger = await approvedAssessor(platform, admin);
  const refused = await cap(platform, owner, 'POST', path, { headers: asCentre(), json: { assessorId: stranger.id } });
  t.is(refused.status, 422);
  t.is(refused.body.error.code, 'nsq.assessor_not_retained');
  const assigned = await cap(platform, owner, 'POST', path, { headers: asCentre(), json: { assessorId: assessor.id } });
  t.is(assigned.status, 200, assigned.text);
  t.deepEqual(
    assigned.body.data.map((a: any) => [a.assessorId, a.name]),
    [[assessor.id, 'Ada Obi']],
  );
  t.is(
    (await cap(platform, owner, 'POST', path, { headers: asCentre(), json: { assessorId: assessor.id } })).body.data
      .length,
    1,
    'assigning again changes nothing',
  );
  const rows = await sql<{ role: string }>(
    platform,
    `SELECT role FROM cap.application_assessors WHERE application_id = $1 AND ended_at IS NULL`,
    [applicationId],
  );
  t.deepEqual(
    rows.map((r) => r.role),
    ['unit_assessor'],
  );
});

test('units: the candidate adds evidence to wished units; only a unit assessor observes and signs off, after a competent observation; the last sign-off moves the application to internal verification', async (t) => {
  const { user, applicationId } = await atUnitAssessment();
  const unitPath = (unitId: string, rest: string) => `/applications/${applicationId}/units/${unitId}/${rest}`;
  const [first, second] = units.l1 as [string, string];

  const unwished = await cap(platform, user, 'POST', unitPath(units.l2[0]!, 'evidence'), {
    headers: asCandidate,
    json: { documentName: 'Photo', textValue: 'x' },
  });
  t.is(unwished.status, 404);
  t.is(
    (
      await cap(platform, user, 'POST', unitPath(first, 'evidence'), {
        headers: asCandidate,
        json: { documentName: 'Photo' },
      })
    ).body.error.code,
    'nsq.evidence_invalid',
  );
  const file = await uploadAsset(platform, user, pngBytes(3), 'evidence', 'board.png');
  const evidence = await cap(platform, user, 'POST', unitPath(first, 'evidence'), {
    headers: asCandidate,
    json: { documentName: 'Distribution board', assetId: file },
  });
  t.is(evidence.status, 201, evidence.text);
  t.like(evidence.body.data, { unitId: first, kind: 'evidence', assetId: file, recordedBy: user.userId });

  const notAssigned = await observe(otherAssessor, applicationId, first);
  t.is(notAssigned.status, 403);
  t.is(notAssigned.body.error.code, 'nsq.not_unit_assessor');
  t.is(
    (await observe(assessor, applicationId, first, { observedAt: new Date(Date.now() + 86_400_000).toISOString() }))
      .body.error.code,
    'nsq.observation_invalid',
  );
  t.is((await observe(assessor, applicationId, first, { outcome: 'not_yet_competent' })).status, 201);
  const sign = async (unitId: string) =>
    cap(platform, assessor.user, 'POST', unitPath(unitId, 'signoff'), {
      headers: asAssessor,
      json: { signatureAssetId: await signature(assessor.user) },
    });
  const unobserved = await sign(first);
  t.is(unobserved.status, 409);
  t.is(unobserved.body.error.code, 'nsq.unit_not_observed', 'a not-yet-competent observation does not do');

  t.is((await observe(assessor, applicationId, first)).status, 201);
  const signed = await sign(first);
  t.is(signed.status, 200, signed.text);
  t.like(signed.body.data, { unitsSignedOff: 1, unitsTotal: 2, currentStageKey: 'unit_assessment' });
  t.is((await sign(first)).body.error.code, 'nsq.unit_signed_off');
  t.is(
    (
      await cap(platform, user, 'POST', unitPath(first, 'evidence'), {
        headers: asCandidate,
        json: { documentName: 'Late', textValue: 'x' },
      })
    ).body.error.code,
    'nsq.unit_signed_off',
  );
  t.is(
    (await review(applicationId, 'unit_assessment')).body.error.code,
    'nsq.units_not_signed_off',
    'the centre cannot skip a unit',
  );

  await observe(assessor, applicationId, second);
  t.like((await sign(second)).body.data, { unitsSignedOff: 2, currentStageKey: 'internal_verification' });
  const [move] = await sql<{ actor: string; status: string }>(
    platform,
    `SELECT actor, status FROM cap.application_moves WHERE application_id = $1 AND from_stage = 'unit_assessment'`,
    [applicationId],
  );
  t.deepEqual(move, { actor: 'unit_assessor', status: 'APPROVED' });

  const listed = await cap(platform, owner, 'GET', `/applications/${applicationId}/units`, { headers: asCentre() });
  t.deepEqual(
    listed.body.data.map((u: any) => [u.unitId, u.evidence.length, u.observations.length, Boolean(u.signedOff)]),
    [
      [first, 1, 2, true],
      [second, 0, 1, true],
    ],
  );
  t.is(
    (await cap(platform, assessor.user, 'GET', `/applications/${applicationId}/units`, { headers: asAssessor })).status,
    200,
    'a unit assessor reads them',
  );
  t.is(
    (await cap(platform, otherAssessor.user, 'GET', `/applications/${applicationId}/units`, { headers: asAssessor }))
      .body.error.code,
    'auth.out_of_scope',
  );
});

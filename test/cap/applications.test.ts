import test from 'ava';
import { lifecycles, rplStages, type StageKey } from '../../server/cap/applications/lifecycle.ts';
import { applicationForm, applicationTargets, cap, onboard } from '../helpers/cap.ts';
import { pngBytes, uploadAsset } from '../helpers/files.ts';
import { sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp, type SignedUpUser } from '../helpers/users.ts';

// Applications (openapi/cap/applications.yaml) and their lifecycle table (applications/lifecycle.ts).
let platform: TestPlatform;
let admin: SignedUpUser;
let owner: SignedUpUser;
let centreId: string;
let sectorId: string;
let tradeId: string;

const asCandidate = { 'X-CAP-PERSONA': 'candidate' };
const asCentre = () => ({ 'X-CAP-PERSONA': 'centre', 'X-CAP-CENTRE-ID': centreId });

test.before(async () => {
  platform = await startTestPlatform();
  ({ admin, owner, centreId, sectorId, tradeId } = await applicationTargets(platform, {
    sector: 'Building and Construction',
    trade: 'Masonry',
  }));
});
test.after.always(() => platform?.stop());

/** A signed-up user who completed the candidate onboarding (Ada Obi). */
async function candidate(): Promise<SignedUpUser> {
  const user = await signUp(platform);
  await onboard(platform, user, 'candidate');
  return user;
}

async function draft(user: SignedUpUser, type = 'RPL') {
  const res = await cap(platform, user, 'POST', '/applications', {
    headers: asCandidate,
    json: { type, sectorId, tradeId, unitIds: [], centreId },
  });
  if (res.status !== 201) throw new Error(res.text);
  return res.body.data as { id: string };
}

async function submitted(user: SignedUpUser) {
  const app = await draft(user);
  await cap(platform, user, 'PATCH', `/applications/${app.id}`, { headers: asCandidate, json: applicationForm });
  const res = await cap(platform, user, 'POST', `/applications/${app.id}/submit`, { headers: asCandidate });
  if (res.status !== 200) throw new Error(res.text);
  return app;
}

test('a draft starts from the candidate onboarding; a second draft at the same centre is 409 application.draft_exists', async (t) => {
  const user = await candidate();
  const created = await cap(platform, user, 'POST', '/applications', {
    headers: asCandidate,
    json: { type: 'RPL', sectorId, tradeId, unitIds: [], centreId },
  });
  t.is(created.status, 201, created.text);
  t.like(created.body.data, {
    type: 'RPL',
    status: 'draft',
    currentStageKey: 'application_form',
    submittedAt: null,
    candidate: { firstName: 'Ada', lastName: 'Obi', name: 'Ada Obi' },
    sector: { id: sectorId, name: 'Building and Construction' },
    trade: { id: tradeId, name: 'Masonry' },
    centre: { id: centreId },
  });
  const detail = (await cap(platform, user, 'GET', `/applications/${created.body.data.id}`, { headers: asCandidate }))
    .body.data;
  t.like(detail, {
    personalInformation: { personalDetails: { firstName: 'Ada' }, residentialAddress: { state: 'Lagos' } },
    identityFieldsLocked: false,
    frozenProfile: null,
    facilitator: null,
  });

  const again = await cap(platform, user, 'POST', '/applications', {
    headers: asCandidate,
    json: { type: 'RPL', sectorId, tradeId, unitIds: [], centreId },
  });
  t.is(again.status, 409);
  t.is(again.body.error.code, 'application.draft_exists');
  t.is(
    (
      await cap(platform, user, 'POST', '/applications', {
        headers: asCandidate,
        json: { type: 'NSQ', sectorId, tradeId, unitIds: [], centreId },
      })
    ).status,
    201,
    'another type is another draft',
  );
});

test("a draft must point at the catalogue: placeholder ids or another sector's trade are 422 naming each field", async (t) => {
  const user = await candidate();
  const placeholders = await cap(platform, user, 'POST', '/applications', {
    headers: asCandidate,
    json: { type: 'RPL', sectorId: 'sector-1', tradeId: 'trade-1', unitIds: [], centreId: 'centre-1' },
  });
  t.is(placeholders.status, 422);
  t.deepEqual(
    placeholders.body.error.details.map((d: { field: string }) => d.field),
    ['sectorId', 'tradeId', 'centreId'],
  );
  const other = await cap(platform, admin, 'POST', '/admin/sectors', { json: { name: 'Agriculture' } });
  const wrongSector = await cap(platform, user, 'POST', '/applications', {
    headers: asCandidate,
    json: { type: 'RPL', sectorId: other.body.data.id, tradeId, unitIds: [], centreId },
  });
  t.deepEqual(wrongSector.body.error.details, [{ field: 'tradeId', issue: 'is not a trade of that sector' }]);
});

test('only the candidate fills a draft, only while it is a draft; a made-up id is a clean 404', async (t) => {
  const user = await candidate();
  const app = await draft(user);
  const patched = await cap(platform, user, 'PATCH', `/applications/${app.id}`, {
    headers: asCandidate,
    json: { experienceAndTrade: { reasonForSeekingRPL: 'Certification' } },
  });
  t.is(patched.status, 200, patched.text);
  const again = await cap(platform, user, 'PATCH', `/applications/${app.id}`, {
    headers: asCandidate,
    json: { assessmentDeclaration: { infoProvidedIsAccurate: true } },
  });
  t.is(again.status, 200);
  const detail = (await cap(platform, user, 'GET', `/applications/${app.id}`, { headers: asCandidate })).body.data;
  t.is(detail.reasonForSeekingRPL, 'Certification', 'sections merge');
  t.deepEqual(detail.assessmentDeclaration, { infoProvidedIsAccurate: true });

  t.is(
    (
      await cap(platform, user, 'PATCH', '/applications/app-1700000000000', {
        headers: asCandidate,
        json: applicationForm,
      })
    ).status,
    404,
  );
  const stranger = await candidate();
  const theirs = await cap(platform, stranger, 'PATCH', `/applications/${app.id}`, {
    headers: asCandidate,
    json: applicationForm,
  });
  t.is(theirs.status, 403);
  t.is(theirs.body.error.code, 'auth.out_of_scope');
});

test('submit needs a complete form (422 application.incomplete naming every missing field), then the application waits for payment', async (t) => {
  const user = await signUp(platform);
  await onboard(platform, user, 'candidate');
  const app = await draft(user);
  await cap(platform, user, 'PATCH', `/applications/${app.id}`, {
    headers: asCandidate,
    json: { personalInformation: { personalDetails: { gender: '' } } },
  });
  const incomplete = await cap(platform, user, 'POST', `/applications/${app.id}/submit`, { headers: asCandidate });
  t.is(incomplete.status, 422);
  t.is(incomplete.body.error.code, 'application.incomplete');
  t.deepEqual(
    incomplete.body.error.details.map((d: { field: string }) => d.field),
    [
      'personalInformation.personalDetails.gender',
      'experienceAndTrade.currentOccupation.occupation',
      'experienceAndTrade.currentOccupation.yearsOfExperience',
      'experienceAndTrade.reasonForSeekingRPL',
      'assessmentDeclaration.infoProvidedIsAccurate',
      'assessmentDeclaration.understandsDoesNotGuaranteeCertification',
      'assessmentDeclaration.understandsThatNeedsToProvideSufficientEvidenceToDemonstrateCompetence',
      'assessmentDeclaration.agreesToTermsAndPrivacyPolicy',
    ],
  );

  await cap(platform, user, 'PATCH', `/applications/${app.id}`, { headers: asCandidate, json: applicationForm });
  const done = await cap(platform, user, 'POST', `/applications/${app.id}/submit`, { headers: asCandidate });
  t.is(done.status, 200, done.text);
  t.like(done.body.data, { status: 'in_progress', currentStageKey: 'payment' });
  t.truthy(done.body.data.submittedAt);

  const stages = (await cap(platform, user, 'GET', `/applications/${app.id}/stages`, { headers: asCandidate })).body
    .data;
  t.deepEqual(
    stages.map((s: { stageKey: string; status: string }) => `${s.stageKey}:${s.status}`),
    [
      'application_form:successful',
      'payment:awaiting_payment',
      'folder_arrangement:not_started',
      'interview:not_started',
      'internal_verification:not_started',
      'external_verification:not_started',
      'certification:not_started',
    ],
  );
  const history = (await cap(platform, user, 'GET', `/applications/${app.id}/history`, { headers: asCandidate })).body
    .data;
  t.is(history.length, 1);
  t.like(history[0], {
    versionNo: 1,
    submittedBy: user.userId,
    data: { experienceAndTrade: { reasonForSeekingRPL: 'To be certified for the work I do.' } },
  });
  t.like((await cap(platform, user, 'GET', `/applications/${app.id}/progress`, { headers: asCandidate })).body.data, {
    personalInformation: true,
    experienceAndTrade: true,
    reviewAndSubmit: true,
  });
  t.like((await cap(platform, user, 'GET', `/applications/${app.id}`, { headers: asCandidate })).body.data, {
    identityFieldsLocked: true,
    frozenProfile: { personalDetails: { firstName: 'Ada' } },
  });

  const edit = await cap(platform, user, 'PATCH', `/applications/${app.id}`, {
    headers: asCandidate,
    json: applicationForm,
  });
  t.is(edit.body.error.code, 'application.not_in_stage');
  t.is(
    (await cap(platform, user, 'POST', `/applications/${app.id}/submit`, { headers: asCandidate })).body.error.code,
    'application.not_in_stage',
  );
  const [event] = await sql<{ type: string }>(
    platform,
    `SELECT type FROM cap.outbox WHERE type = 'application.submitted' AND data->>'applicationId' = $1`,
    [app.id],
  );
  t.is(event?.type, 'application.submitted');
});

test("the list follows the acting persona: a candidate's own, the centre's; filters by status, stage and trade name", async (t) => {
  const user = await candidate();
  const mine = await submitted(user);
  const otherUser = await candidate();
  const others = await draft(otherUser);

  const own = (await cap(platform, user, 'GET', '/applications', { headers: asCandidate })).body.data.map(
    (a: { id: string }) => a.id,
  );
  t.deepEqual(own, [mine.id]);
  const centreList = (
    await cap(platform, owner, 'GET', '/applications?limit=100', { headers: asCentre() })
  ).body.data.map((a: { id: string }) => a.id);
  t.true(centreList.includes(mine.id) && centreList.includes(others.id));
  const paying = (
    await cap(platform, owner, 'GET', '/applications?stage=payment&status=in_progress&limit=100', {
      headers: asCentre(),
    })
  ).body.data.map((a: { id: string }) => a.id);
  t.true(paying.includes(mine.id));
  t.false(paying.includes(others.id));
  t.true(
    (await cap(platform, owner, 'GET', '/applications?q=mason&limit=100', { headers: asCentre() })).body.data.length >=
      2,
  );
  t.deepEqual((await cap(platform, owner, 'GET', '/applications?q=plumbing', { headers: asCentre() })).body.data, []);
  const sorted = await cap(platform, owner, 'GET', '/applications?sort=submittedAt&order=asc&limit=1', {
    headers: asCentre(),
  });
  t.is(sorted.status, 200);
  t.is(sorted.body.data.length, 1);
  t.truthy(sorted.body.data[0].submittedAt, 'submitted ones come before drafts');
  t.like((await cap(platform, user, 'GET', '/applications/summary', { headers: asCandidate })).body.data, {
    active: 1,
    completed: 0,
  });
  t.is(
    (await cap(platform, owner, 'GET', `/applications/${mine.id}`, { headers: asCentre() })).status,
    200,
    'the centre reads its application',
  );
});

test("a page of applications names each one's centre, sector, trade and candidate as its detail does", async (t) => {
  const user = await candidate();
  const mine = await submitted(user);
  const page = await cap(platform, owner, 'GET', '/applications?limit=100', { headers: asCentre() });
  const listed = page.body.data.find((a: { id: string }) => a.id === mine.id);
  const detail = (await cap(platform, owner, 'GET', `/applications/${mine.id}`, { headers: asCentre() })).body.data;
  t.truthy(listed.centre.name && listed.sector.name && listed.trade.slug && listed.candidate.name);
  t.like(detail, listed);
});

// Every move of the RPL table over HTTP: the application is placed at each stage, and each way of
// moving it (submit by the candidate, approve and reject by the centre) is tried there.
for (const stage of rplStages) {
  test(`RPL at ${stage}: exactly the moves of the lifecycle table succeed; the others are 409 application.not_in_stage`, async (t) => {
    const user = await candidate();
    const app = await draft(user);
    await cap(platform, user, 'PATCH', `/applications/${app.id}`, { headers: asCandidate, json: applicationForm });
    const place = () =>
      sql(platform, `UPDATE cap.applications SET current_stage_key = $2, status = $3 WHERE id = $1`, [
        app.id,
        stage,
        stage === 'application_form' ? 'draft' : 'in_progress',
      ]);
    const table = lifecycles.RPL.filter((move) => move.from === stage);
    const tries: Array<{ action: string; mover: 'candidate' | 'centre'; call: () => ReturnType<typeof cap> }> = [
      {
        action: 'submit',
        mover: 'candidate',
        call: () => cap(platform, user, 'POST', `/applications/${app.id}/submit`, { headers: asCandidate }),
      },
      {
        action: stage === 'certification' ? 'certify' : 'approve',
        mover: 'centre',
        call: () =>
          cap(platform, owner, 'POST', `/applications/${app.id}/review`, {
            headers: asCentre(),
            json: { decision: 'approve', feedback: 'Fine' },
          }),
      },
      {
        action: 'reject',
        mover: 'centre',
        call: () =>
          cap(platform, owner, 'POST', `/applications/${app.id}/review`, {
            headers: asCentre(),
            json: { decision: 'reject', feedback: 'Not enough evidence' },
          }),
      },
    ];
    for (const attempt of tries) {
      await place();
      const move = table.find((m) => m.action === attempt.action && m.by.includes(attempt.mover));
      const res = await attempt.call();
      if (move) {
        t.is(res.status, 200, `${attempt.action} at ${stage}: ${res.text}`);
        const expected =
          move.to === 'certified' || move.to === 'rejected'
            ? { status: move.to }
            : { status: 'in_progress', currentStageKey: move.to as StageKey };
        t.like(res.body.data, expected, `${attempt.action} at ${stage}`);
        const [history] = await sql<{ from_stage: string; to_stage: string; actor: string }>(
          platform,
          `SELECT from_stage, to_stage, actor FROM cap.application_moves WHERE application_id = $1 ORDER BY id DESC LIMIT 1`,
          [app.id],
        );
        t.deepEqual(history, { from_stage: stage, to_stage: move.to, actor: attempt.mover });
      } else {
        t.is(res.status, 409, `${attempt.action} at ${stage} is not in the table`);
        t.is(res.body.error.code, 'application.not_in_stage');
      }
    }
  });
}

test('a finished application moves no more, and only the centre reviews (403 for the candidate)', async (t) => {
  const user = await candidate();
  const app = await submitted(user);
  const byCandidate = await cap(platform, user, 'POST', `/applications/${app.id}/review`, {
    headers: asCandidate,
    json: { decision: 'approve' },
  });
  t.is(byCandidate.status, 403);
  t.is(byCandidate.body.error.code, 'auth.centre_persona_required');
  await sql(platform, `UPDATE cap.applications SET current_stage_key = 'interview' WHERE id = $1`, [app.id]);
  t.like(
    (
      await cap(platform, owner, 'POST', `/applications/${app.id}/review`, {
        headers: asCentre(),
        json: { decision: 'reject', stageKey: 'interview' },
      })
    ).body.data,
    { status: 'rejected' },
  );
  const after = await cap(platform, owner, 'POST', `/applications/${app.id}/review`, {
    headers: asCentre(),
    json: { decision: 'approve' },
  });
  t.is(after.status, 409);
  t.is(after.body.error.code, 'application.not_in_stage');
  const wrongStage = await submitted(await candidate());
  await sql(platform, `UPDATE cap.applications SET current_stage_key = 'interview' WHERE id = $1`, [wrongStage.id]);
  t.is(
    (
      await cap(platform, owner, 'POST', `/applications/${wrongStage.id}/review`, {
        headers: asCentre(),
        json: { decision: 'approve', stageKey: 'folder_arrangement' },
      })
    ).body.error.code,
    'application.not_in_stage',
  );
});

test("the timeline has one event per move, for the candidate and the centre; /candidate/events spans the candidate's applications", async (t) => {
  const user = await candidate();
  const app = await submitted(user);
  await sql(platform, `UPDATE cap.applications SET current_stage_key = 'folder_arrangement' WHERE id = $1`, [app.id]);
  await cap(platform, owner, 'POST', `/applications/${app.id}/review`, {
    headers: asCentre(),
    json: { decision: 'approve', feedback: 'Well arranged' },
  });
  const events = (await cap(platform, user, 'GET', `/applications/${app.id}/events`, { headers: asCandidate })).body
    .data;
  t.deepEqual(
    events.map((e: { eventType: string; actorRole: string }) => `${e.eventType}:${e.actorRole}`),
    ['approve:centre', 'submit:candidate'],
  );
  t.like(events[0], {
    applicationId: app.id,
    title: 'Folder arrangement approved',
    metadata: { fromStage: 'folder_arrangement', toStage: 'interview', feedback: 'Well arranged' },
  });
  t.is(
    (await cap(platform, owner, 'GET', `/applications/${app.id}/events`, { headers: asCentre() })).body.data.length,
    2,
    'the centre reads it too',
  );
  const mine = (await cap(platform, user, 'GET', '/candidate/events?limit=1', { headers: asCandidate })).body;
  t.is(mine.data.length, 1);
  t.true(mine.meta.pagination.hasMore);
  t.like((await cap(platform, user, 'GET', '/candidate/profile', { headers: asCandidate })).body.data, {
    name: 'Ada Obi',
    identityVerified: false,
  });
});

test("a candidate keeps a signature they uploaded; an unknown asset or another user's is 422 candidate.signature_not_found", async (t) => {
  const user = await candidate();
  t.deepEqual((await cap(platform, user, 'GET', '/candidate/profile/signature', { headers: asCandidate })).body.data, {
    assetId: null,
    url: null,
  });
  const assetId = await uploadAsset(platform, user, pngBytes(2), 'signature', 'signature.png');
  const kept = await cap(platform, user, 'PUT', '/candidate/profile/signature', {
    headers: asCandidate,
    json: { assetId },
  });
  t.is(kept.status, 200, kept.text);
  const read = (await cap(platform, user, 'GET', '/candidate/profile/signature', { headers: asCandidate })).body.data;
  t.is(read.assetId, assetId);
  t.regex(read.url, /^http/);
  const unknown = await cap(platform, user, 'PUT', '/candidate/profile/signature', {
    headers: asCandidate,
    json: { assetId: '01J9Z8X7W6V5T4S3R2Q1P0ZZZZ' },
  });
  t.is(unknown.status, 422);
  t.is(unknown.body.error.code, 'candidate.signature_not_found');
  const other = await candidate();
  const theirs = await cap(platform, other, 'PUT', '/candidate/profile/signature', {
    headers: asCandidate,
    json: { assetId },
  });
  t.is(theirs.body.error.code, 'candidate.signature_not_found', "another user's upload is not theirs to keep");
});

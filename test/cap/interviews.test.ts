import test from 'ava';
import { serviceDefinition, serviceNames } from '../../server/platform/grpc/proto.ts';
import { createGrpcServer, type GrpcServerHandle } from '../../server/platform/grpc/server.ts';
import { unavailable } from '../../server/platform/grpc/errors.ts';
import { pino } from 'pino';
import { approvedAssessor, asAssessor, retainedAssessor } from '../helpers/assessors.ts';
import { applicationTargets, approvedCentreOwner, cap, candidateWithApplication } from '../helpers/cap.ts';
import { pngBytes, uploadAsset } from '../helpers/files.ts';
import { sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp, type SignedUpUser } from '../helpers/users.ts';

// Interviews (openapi/cap/interviews.yaml): facilitator, panel, sitting, templates and bookings, forms,
// evaluations, appeals and gap-training recommendations (asked of a stand-in LMS over gRPC).
const serviceKey = 'interviews-test-service-key';
let platform: TestPlatform;
let lms: GrpcServerHandle;
// The stand-in LMS's state is shared: the tests that read `lmsRequests` or set `lmsUp` run serially.
let lmsUp = true;
let lmsRequests: Array<Record<string, any>> = [];
let admin: SignedUpUser;
let owner: SignedUpUser;
let targets: { centreId: string; sectorId: string; tradeId: string };
/** Five approved assessors the centre retains, and one it does not. */
let retained: Array<{ user: SignedUpUser; id: string }>;
let stranger: { user: SignedUpUser; id: string };

const asCandidate = { 'X-CAP-PERSONA': 'candidate' };
const asCentre = (centreId = targets.centreId) => ({ 'X-CAP-PERSONA': 'centre', 'X-CAP-CENTRE-ID': centreId });
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

test.before(async () => {
  // The LMS's RecommendationsService as CAP sees it over gRPC; `lmsUp = false` makes it unavailable.
  lms = await createGrpcServer({
    host: '127.0.0.1',
    port: 0,
    serviceKey,
    logger: pino({ level: 'silent' }),
    services: [
      {
        definition: serviceDefinition(serviceNames.recommendations),
        implementation: {
          RecommendCourses: async (request) => {
            if (!lmsUp) throw unavailable('the LMS is down');
            lmsRequests.push(request);
            return {
              provider: 'catalogue-match',
              courses: [
                {
                  id: 'course-1',
                  title: 'Block laying basics',
                  description: 'Foundations of block work.',
                  rank: 1,
                  explanation: 'Covers the units you missed.',
                  trade_id: request.trade_id,
                  sector_id: request.sector_id,
                  url: 'https://lms.example.test/courses/course-1',
                },
              ],
            };
          },
        },
      },
    ],
  });
  platform = await startTestPlatform({ serviceApiKey: serviceKey, lmsGrpcAddress: lms.address });
  const made = await applicationTargets(platform, { sector: 'Building and Construction', trade: 'Masonry' });
  ({ admin, owner } = made);
  targets = { centreId: made.centreId, sectorId: made.sectorId, tradeId: made.tradeId };
  const unit = (n: number) => ({
    referenceNumber: `MAS/L1/0${n}`,
    title: `Masonry unit ${n}`,
    isMandatory: true,
    assessmentMethods: ['observation'],
    learningOutcomes: [],
  });
  await cap(platform, admin, 'POST', `/admin/trades/${made.tradeId}/nos`, {
    json: { title: 'Masonry (NOS)', levels: [{ level: 1, purpose: 'Works safely.', units: [unit(1), unit(2)] }] },
  });
  retained = await Promise.all(
    ['Chidi', 'Ngozi', 'Tunde', 'Amaka', 'Emeka'].map((firstName) =>
      retainedAssessor(platform, admin, owner, targets.centreId, {}, { firstName, lastName: 'Assessor' }),
    ),
  );
  stranger = await approvedAssessor(platform, admin);
});
test.after.always(async () => {
  await platform?.stop();
  await lms?.stop();
});

/** A submitted and paid RPL application, placed at folder arrangement (payment is tested in its own area). */
async function arranging() {
  const made = await candidateWithApplication(platform, targets);
  await sql(
    platform,
    `UPDATE cap.applications SET status = 'in_progress', current_stage_key = 'folder_arrangement' WHERE id = $1`,
    [made.applicationId],
  );
  return made;
}

/** The centre approves the folder: the application moves to its interview. */
async function toInterview(applicationId: string) {
  const moved = await cap(platform, owner, 'POST', `/applications/${applicationId}/review`, {
    headers: asCentre(),
    json: { decision: 'approve', stageKey: 'folder_arrangement' },
  });
  if (moved.status !== 200) throw new Error(moved.text);
}

/** Seats: Chidi (lead), Ngozi and Tunde vote; Amaka observes without a vote. */
const fourSeats = () => [
  { assessorId: retained[0]!.id, isLead: true },
  { assessorId: retained[1]!.id },
  { assessorId: retained[2]!.id },
  { assessorId: retained[3]!.id, isObserver: true },
];

const setPanel = (applicationId: string, members: object[]) =>
  cap(platform, owner, 'POST', `/applications/${applicationId}/interview/panel`, {
    headers: asCentre(),
    json: { members },
  });
const setSchedule = (applicationId: string, json: object) =>
  cap(platform, owner, 'POST', `/applications/${applicationId}/interview/schedule`, { headers: asCentre(), json });

/** An application at interview with the four-seat panel and a sitting tomorrow. */
async function readyInterview() {
  const made = await arranging();
  await setPanel(made.applicationId, fourSeats());
  await setSchedule(made.applicationId, {
    scheduledAt: inDays(1),
    mode: 'online',
    link: 'https://meet.example.test/abc',
  });
  await toInterview(made.applicationId);
  return made;
}

async function signature(user: SignedUpUser) {
  return uploadAsset(platform, user, pngBytes(2), 'signature', 'signature.png');
}

const evaluate = async (who: { user: SignedUpUser }, applicationId: string, extra: object = {}) =>
  cap(platform, who.user, 'POST', `/applications/${applicationId}/interview/evaluate`, {
    headers: asAssessor,
    json: { feedback: 'Sound block work.', signatureAssetId: await signature(who.user), ...extra },
  });

test('the centre assigns a retained assessor as facilitator, shown on the application; a new one ends the previous assignment; one it does not retain is 422 interview.assessor_not_retained', async (t) => {
  const { applicationId } = await arranging();
  const path = `/applications/${applicationId}/facilitator`;
  const first = await cap(platform, owner, 'POST', path, {
    headers: asCentre(),
    json: { assessorId: retained[0]!.id },
  });
  t.is(first.status, 200, first.text);
  t.like(first.body.data, { id: applicationId, currentStageKey: 'folder_arrangement' });
  t.is(
    (await cap(platform, owner, 'POST', path, { headers: asCentre(), json: { assessorId: retained[1]!.id } })).status,
    200,
  );
  const current = await sql<{ assessor_id: string }>(
    platform,
    `SELECT assessor_id FROM cap.application_assessors WHERE application_id = $1 AND role = 'facilitator' AND ended_at IS NULL`,
    [applicationId],
  );
  t.deepEqual(
    current.map((r) => r.assessor_id),
    [retained[1]!.id],
  );
  const detail = await cap(platform, owner, 'GET', `/applications/${applicationId}`, { headers: asCentre() });
  t.like(detail.body.data.facilitator, { assessorId: retained[1]!.id, name: 'Ngozi Assessor', photo: null });

  const refused = await cap(platform, owner, 'POST', path, { headers: asCentre(), json: { assessorId: stranger.id } });
  t.is(refused.status, 422);
  t.is(refused.body.error.code, 'interview.assessor_not_retained');
  t.is(refused.body.error.details[0].field, 'assessorId');
  const byCandidate = await cap(platform, (await arranging()).user, 'POST', path, {
    headers: asCandidate,
    json: { assessorId: retained[0]!.id },
  });
  t.is(byCandidate.body.error.code, 'auth.centre_persona_required');
});

test('a panel is 3 voters with one lead plus an IV observer, who may be one of the three; the panel reads back with names', async (t) => {
  const { applicationId, user } = await arranging();
  const seated = await setPanel(applicationId, fourSeats());
  t.is(seated.status, 200, seated.text);
  t.deepEqual(
    seated.body.data.members.map((m: any) => [m.name, m.isLead, m.isObserver]),
    [
      ['Chidi Assessor', true, false],
      ['Ngozi Assessor', false, false],
      ['Tunde Assessor', false, false],
      ['Amaka Assessor', false, true],
    ],
  );
  const voting = await setPanel(applicationId, [
    { assessorId: retained[0]!.id, isLead: true },
    { assessorId: retained[1]!.id, isObserver: true },
    { assessorId: retained[2]!.id },
  ]);
  t.is(voting.status, 200, 'the observer is one of the three voters');
  const roles = await sql<{ assessor_id: string; role: string }>(
    platform,
    `SELECT assessor_id, role FROM cap.application_assessors WHERE application_id = $1 AND ended_at IS NULL ORDER BY role, assessor_id`,
    [applicationId],
  );
  t.is(roles.filter((r) => r.role === 'panel_voter').length, 3);
  t.deepEqual(
    roles.filter((r) => r.role === 'iv_observer').map((r) => r.assessor_id),
    [retained[1]!.id],
  );
  t.is(
    roles.some((r) => r.assessor_id === retained[3]!.id),
    false,
    "the previous panel's observer is no longer seated",
  );

  const read = await cap(platform, user, 'GET', `/applications/${applicationId}/interview/panel`, {
    headers: asCandidate,
  });
  t.is(read.status, 200);
  t.is(read.body.data.id, seated.body.data.id);
  t.is(
    (
      await cap(platform, retained[2]!.user, 'GET', `/applications/${applicationId}/interview/panel`, {
        headers: asAssessor,
      })
    ).status,
    200,
    'a seated assessor reads it',
  );
  const outsider = await cap(platform, retained[4]!.user, 'GET', `/applications/${applicationId}/interview/panel`, {
    headers: asAssessor,
  });
  t.is(outsider.status, 403);
  t.is(outsider.body.error.code, 'auth.out_of_scope');
});

test('a fourth voter, two leads, no observer or an assessor the centre does not retain is refused (422) and the panel stays as it was', async (t) => {
  const { applicationId } = await arranging();
  const seats = fourSeats();
  const fourthVoter = await setPanel(applicationId, [...seats.slice(0, 3), { assessorId: retained[3]!.id }]);
  t.is(fourthVoter.status, 422);
  t.is(fourthVoter.body.error.code, 'interview.panel_invalid');
  t.regex(fourthVoter.body.error.details.map((d: any) => d.issue).join('; '), /4 voter\(s\)/);
  t.is(
    (
      await setPanel(applicationId, [
        { ...seats[0]!, isLead: true },
        { ...seats[1]!, isLead: true },
        seats[2]!,
        seats[3]!,
      ])
    ).body.error.code,
    'interview.panel_invalid',
  );
  t.is((await setPanel(applicationId, seats.slice(0, 3))).body.error.code, 'interview.panel_invalid', 'no IV observer');
  const notRetained = await setPanel(applicationId, [
    ...seats.slice(0, 3),
    { assessorId: stranger.id, isObserver: true },
  ]);
  t.is(notRetained.body.error.code, 'interview.assessor_not_retained');
  t.is(notRetained.body.error.details[0].field, 'members[3].assessorId');
  t.is(
    (await sql(platform, 'SELECT 1 FROM cap.application_assessors WHERE application_id = $1', [applicationId])).length,
    0,
  );
  t.is(
    (await cap(platform, owner, 'GET', `/applications/${applicationId}/interview/panel`, { headers: asCentre() }))
      .status,
    404,
  );
});

test("a sitting needs a place (or the centre's address) in person and a link online, is not in the past, and is set up only at folder arrangement or interview; a booked application is no longer interviewSchedulable", async (t) => {
  const { applicationId, user } = await arranging();
  t.is(
    (await cap(platform, user, 'GET', `/applications/${applicationId}/interview/schedule`, { headers: asCandidate }))
      .status,
    404,
  );
  const noLink = await setSchedule(applicationId, { scheduledAt: inDays(2), mode: 'online' });
  t.is(noLink.status, 422);
  t.is(noLink.body.error.code, 'interview.schedule_invalid');
  t.is(noLink.body.error.details[0].field, 'link');
  t.is(
    (await setSchedule(applicationId, { scheduledAt: inDays(2), mode: 'physical' })).body.error.details[0].field,
    'location',
  );
  const past = await setSchedule(applicationId, {
    scheduledAt: inDays(-1),
    mode: 'online',
    link: 'https://meet.example.test/x',
  });
  t.is(past.body.error.code, 'interview.schedule_in_past');
  const schedulable = async () =>
    (
      await cap(platform, owner, 'GET', '/applications?interviewSchedulable=true&limit=100', { headers: asCentre() })
    ).body.data.map((a: any) => a.id);
  t.true((await schedulable()).includes(applicationId), 'without a sitting it can be booked');
  const booked = await setSchedule(applicationId, { scheduledAt: inDays(2), mode: 'physical', useCentreAddress: true });
  t.is(booked.status, 200, booked.text);
  t.like(booked.body.data, {
    status: 'scheduled',
    mode: 'physical',
    useCentreAddress: true,
    location: '3 Broad Street, Lagos, Nigeria',
    link: null,
    templateId: null,
  });
  t.deepEqual(
    (await cap(platform, user, 'GET', `/applications/${applicationId}/interview/schedule`, { headers: asCandidate }))
      .body.data,
    booked.body.data,
  );
  t.false((await schedulable()).includes(applicationId), 'with a sitting it is no longer schedulable');

  const draft = await candidateWithApplication(platform, targets, { draft: true });
  const early = await setSchedule(draft.applicationId, {
    scheduledAt: inDays(2),
    mode: 'online',
    link: 'https://meet.example.test/y',
  });
  t.is(early.status, 409);
  t.is(early.body.error.code, 'application.not_in_stage');
});

test('a template is copied onto many applications at once, frozen per application: a booking moves alone, never before the template clock, and the diary lists seated sittings with the candidate', async (t) => {
  const panel = await cap(platform, owner, 'POST', '/centre/panels', {
    headers: asCentre(),
    json: { name: 'Masonry panel', members: fourSeats() },
  });
  t.is(panel.status, 201, panel.text);
  const clock = inDays(10);
  const template = await cap(platform, owner, 'POST', '/centre/interviews', {
    headers: asCentre(),
    json: {
      title: 'Masonry sitting',
      panelId: panel.body.data.id,
      scheduledAt: clock,
      mode: 'online',
      link: 'https://meet.example.test/masonry',
    },
  });
  t.is(template.status, 201, template.text);
  const [first, second] = [await arranging(), await arranging()];
  await toInterview(second.applicationId);
  const schedulePath = `/centre/interviews/${template.body.data.id}/schedule`;

  const before = await cap(platform, owner, 'POST', schedulePath, {
    headers: asCentre(),
    json: { applicationIds: [first.applicationId], scheduledAt: inDays(9) },
  });
  t.is(before.status, 422);
  t.is(before.body.error.code, 'interview.before_template_clock');
  const draft = await candidateWithApplication(platform, targets, { draft: true });
  const mixed = await cap(platform, owner, 'POST', schedulePath, {
    headers: asCentre(),
    json: { applicationIds: [first.applicationId, draft.applicationId] },
  });
  t.is(mixed.status, 422);
  t.is(mixed.body.error.code, 'interview.not_schedulable');
  t.deepEqual(
    mixed.body.error.details.map((d: any) => d.field),
    ['applicationIds[1]'],
  );
  t.is(
    (await sql(platform, 'SELECT 1 FROM cap.application_interviews WHERE application_id = $1', [first.applicationId]))
      .length,
    0,
    'all or nothing',
  );

  const booked = await cap(platform, owner, 'POST', schedulePath, {
    headers: asCentre(),
    json: { applicationIds: [first.applicationId, second.applicationId] },
  });
  t.is(booked.status, 200, booked.text);
  t.deepEqual(
    booked.body.data.map((b: any) => [b.applicationId, b.scheduledAt, b.templateId, b.members.length]).sort(),
    [
      [first.applicationId, clock, template.body.data.id, 4],
      [second.applicationId, clock, template.body.data.id, 4],
    ].sort(),
  );
  const firstBooking = booked.body.data.find((b: any) => b.applicationId === first.applicationId);
  t.is(firstBooking.candidate.name, 'Ada Obi');
  const panelOf = async (applicationId: string) =>
    (await cap(platform, owner, 'GET', `/applications/${applicationId}/interview/panel`, { headers: asCentre() })).body
      .data.members;
  for (const booking of booked.body.data)
    t.deepEqual(booking.members, await panelOf(booking.applicationId), "a booking's seats are its panel's");

  const tooEarly = await cap(platform, owner, 'PATCH', `/centre/interview-bookings/${firstBooking.id}`, {
    headers: asCentre(),
    json: { scheduledAt: inDays(5) },
  });
  t.is(tooEarly.body.error.code, 'interview.before_template_clock');
  const later = inDays(12);
  const moved = await cap(platform, owner, 'PATCH', `/centre/interview-bookings/${firstBooking.id}`, {
    headers: asCentre(),
    json: { scheduledAt: later },
  });
  t.is(moved.status, 200, moved.text);
  t.is(moved.body.data.scheduledAt, later);
  t.is(
    (
      await cap(platform, second.user, 'GET', `/applications/${second.applicationId}/interview/schedule`, {
        headers: asCandidate,
      })
    ).body.data.scheduledAt,
    clock,
    'the other booking is untouched',
  );
  t.is(
    (
      await setSchedule(first.applicationId, {
        scheduledAt: inDays(3),
        mode: 'online',
        link: 'https://meet.example.test/z',
      })
    ).body.error.code,
    'interview.before_template_clock',
    "nor by the application's own schedule",
  );

  const diary = await cap(platform, owner, 'GET', `/centre/interview-bookings?from=${encodeURIComponent(inDays(11))}`, {
    headers: asCentre(),
  });
  t.deepEqual(
    diary.body.data.map((b: any) => [b.applicationId, b.candidate.name]),
    [[first.applicationId, 'Ada Obi']],
  );
  t.deepEqual(diary.body.data[0].members, await panelOf(first.applicationId));
  const templates = await cap(platform, owner, 'GET', `/centre/interviews?scheduledAt=${encodeURIComponent(clock)}`, {
    headers: asCentre(),
  });
  t.deepEqual(
    templates.body.data.map((x: any) => x.id),
    [template.body.data.id],
  );
  t.is(
    (
      await cap(platform, owner, 'GET', `/centre/interviews?to=${encodeURIComponent(inDays(9))}`, {
        headers: asCentre(),
      })
    ).body.data.some((x: any) => x.id === template.body.data.id),
    false,
  );
  t.deepEqual(
    (await cap(platform, owner, 'GET', '/centre/panels', { headers: asCentre() })).body.data.map((p: any) => p.name),
    ['Masonry panel'],
  );

  const otherOwner = await signUp(platform);
  const otherCentre = await approvedCentreOwner(platform, otherOwner);
  t.is(
    (
      await cap(platform, otherOwner, 'POST', schedulePath, {
        headers: asCentre(otherCentre),
        json: { applicationIds: [first.applicationId] },
      })
    ).status,
    404,
    "another centre's template is not found",
  );
});

test("only the panel's lead writes the forms; the candidate signs a completed form once, by upload, stored signature or typed name", async (t) => {
  const { applicationId, user } = await readyInterview();
  const formPath = (type: string) => `/applications/${applicationId}/interview/forms/${type}`;
  const byVoter = await cap(platform, retained[1]!.user, 'PUT', formPath('records'), {
    headers: asAssessor,
    json: { data: { notes: 'x' } },
  });
  t.is(byVoter.status, 403);
  t.is(byVoter.body.error.code, 'interview.lead_only');
  const draftForm = await cap(platform, retained[0]!.user, 'PUT', formPath('records'), {
    headers: asAssessor,
    json: { data: { notes: 'Arrived on time.' } },
  });
  t.is(draftForm.status, 200, draftForm.text);
  t.like(draftForm.body.data, {
    formType: 'records',
    status: 'draft',
    populatedBy: retained[0]!.id,
    candidateSignedAt: null,
  });
  const notReady = await cap(platform, user, 'POST', `${formPath('records')}/signoff`, {
    headers: asCandidate,
    json: { signatureMode: 'typed', typedName: 'Ada Obi' },
  });
  t.is(notReady.body.error.code, 'interview.form_not_ready');

  for (const type of ['records', 'assessment_grid', 'practical_observation', 'skill_demonstration']) {
    const done = await cap(platform, retained[0]!.user, 'PUT', formPath(type), {
      headers: asAssessor,
      json: { data: { type }, status: 'completed' },
    });
    t.is(done.status, 200, done.text);
  }
  const typed = await cap(platform, user, 'POST', `${formPath('records')}/signoff`, {
    headers: asCandidate,
    json: { signatureMode: 'typed', typedName: ' Ada Obi ' },
  });
  t.like(typed.body.data, { signatureMode: 'typed', typedSignatureName: 'Ada Obi', candidateSignatureAssetId: null });
  t.truthy(typed.body.data.candidateSignedAt);
  t.is(
    (
      await cap(platform, user, 'POST', `${formPath('records')}/signoff`, {
        headers: asCandidate,
        json: { signatureMode: 'typed', typedName: 'Ada' },
      })
    ).body.error.code,
    'interview.form_signed',
  );
  t.is(
    (await cap(platform, retained[0]!.user, 'PUT', formPath('records'), { headers: asAssessor, json: { data: {} } }))
      .body.error.code,
    'interview.form_signed',
    'a signed form no longer changes',
  );

  const noStored = await cap(platform, user, 'POST', `${formPath('assessment_grid')}/signoff`, {
    headers: asCandidate,
    json: { signatureMode: 'default' },
  });
  t.is(noStored.status, 422);
  t.is(noStored.body.error.code, 'interview.signature_invalid');
  const stored = await signature(user);
  await cap(platform, user, 'PUT', '/candidate/profile/signature', { headers: asCandidate, json: { assetId: stored } });
  const byDefault = await cap(platform, user, 'POST', `${formPath('assessment_grid')}/signoff`, {
    headers: asCandidate,
    json: { signatureMode: 'default' },
  });
  t.like(byDefault.body.data, { signatureMode: 'default', candidateSignatureAssetId: stored });

  const theirs = await signature(retained[4]!.user);
  t.is(
    (
      await cap(platform, user, 'POST', `${formPath('practical_observation')}/signoff`, {
        headers: asCandidate,
        json: { signatureMode: 'upload', signatureAssetId: theirs },
      })
    ).body.error.code,
    'interview.signature_not_found',
  );
  const upload = await signature(user);
  t.like(
    (
      await cap(platform, user, 'POST', `${formPath('practical_observation')}/signoff`, {
        headers: asCandidate,
        json: { signatureMode: 'upload', signatureAssetId: upload },
      })
    ).body.data,
    { signatureMode: 'upload', candidateSignatureAssetId: upload },
  );

  const forms = await cap(platform, owner, 'GET', `/applications/${applicationId}/interview/forms`, {
    headers: asCentre(),
  });
  t.deepEqual(
    forms.body.data.map((f: any) => [f.formType, f.signatureMode]),
    [
      ['records', 'typed'],
      ['assessment_grid', 'default'],
      ['practical_observation', 'upload'],
      ['skill_demonstration', null],
    ],
  );
});

test("every voter evaluates; decision and outcome are the lead's (403 interview.lead_only); the outcome waits for three evaluations, follows the decision and moves the application on", async (t) => {
  const { applicationId } = await readyInterview();
  const nonLead = await evaluate(retained[1]!, applicationId, { decision: 'competent', outcome: 'approve' });
  t.is(nonLead.status, 403);
  t.is(nonLead.body.error.code, 'interview.lead_only');
  const observer = await evaluate(retained[3]!, applicationId);
  t.is(observer.status, 403);
  t.is(observer.body.error.code, 'interview.not_a_voter');
  const outsider = await evaluate(retained[4]!, applicationId);
  t.is(outsider.body.error.code, 'auth.out_of_scope');
  const foreignSignature = await cap(
    platform,
    retained[1]!.user,
    'POST',
    `/applications/${applicationId}/interview/evaluate`,
    { headers: asAssessor, json: { feedback: 'x', signatureAssetId: await signature(retained[2]!.user) } },
  );
  t.is(foreignSignature.body.error.code, 'interview.signature_not_found');

  t.like((await evaluate(retained[1]!, applicationId)).body.data, { evaluations: 1, decision: null });
  const early = await evaluate(retained[0]!, applicationId, { decision: 'competent', outcome: 'approve' });
  t.is(early.status, 409);
  t.is(early.body.error.code, 'interview.evaluations_pending');
  t.is(
    (await sql(platform, 'SELECT 1 FROM cap.interview_evaluations WHERE application_id = $1', [applicationId])).length,
    1,
    'nothing of the refused call is kept',
  );
  t.like((await evaluate(retained[2]!, applicationId)).body.data, { evaluations: 2 });
  t.like((await evaluate(retained[0]!, applicationId, { decision: 'competent' })).body.data, {
    evaluations: 3,
    decision: 'competent',
    currentStageKey: 'interview',
  });
  const mismatch = await evaluate(retained[0]!, applicationId, { outcome: 'reject' });
  t.is(mismatch.status, 422);
  t.is(mismatch.body.error.code, 'interview.outcome_mismatch');
  t.is((await setPanel(applicationId, fourSeats())).body.error.code, 'interview.panel_locked');

  const done = await evaluate(retained[0]!, applicationId, { outcome: 'approve' });
  t.is(done.status, 200, done.text);
  t.like(done.body.data, { status: 'in_progress', currentStageKey: 'internal_verification' });
  const [move] = await sql<{ actor: string; status: string }>(
    platform,
    `SELECT actor, status FROM cap.application_moves WHERE application_id = $1 AND from_stage = 'interview'`,
    [applicationId],
  );
  t.deepEqual(move, { actor: 'panel', status: 'APPROVED' });
  t.is(
    (await cap(platform, owner, 'GET', `/applications/${applicationId}/interview/schedule`, { headers: asCentre() }))
      .body.data.status,
    'completed',
  );
  t.is(
    (await evaluate(retained[1]!, applicationId)).body.error.code,
    'application.not_in_stage',
    'after the outcome nobody evaluates',
  );
});

test('evaluating needs a sitting (409 interview.not_scheduled)', async (t) => {
  const { applicationId } = await arranging();
  await setPanel(applicationId, fourSeats());
  await toInterview(applicationId);
  const refused = await evaluate(retained[1]!, applicationId);
  t.is(refused.status, 409);
  t.is(refused.body.error.code, 'interview.not_scheduled');
});

/** Three evaluations and the lead's not-yet-competent outcome: the application is rejected. */
async function rejectedAtInterview() {
  const made = await readyInterview();
  await evaluate(retained[1]!, made.applicationId);
  await evaluate(retained[2]!, made.applicationId);
  const outcome = await evaluate(retained[0]!, made.applicationId, {
    decision: 'not_yet_competent',
    outcome: 'reject',
  });
  if (outcome.status !== 200) throw new Error(outcome.text);
  return made;
}

test('a rejected candidate appeals once at a time; reopening puts the application back at interview for a new round, dismissing keeps the rejection', async (t) => {
  const { applicationId, user } = await rejectedAtInterview();
  const appealPath = `/applications/${applicationId}/appeal`;
  const appeal = await cap(platform, user, 'POST', appealPath, {
    headers: asCandidate,
    json: { comment: 'My walls are straight.' },
  });
  t.is(appeal.status, 201, appeal.text);
  t.like(appeal.body.data, { applicationId, stageKey: 'interview', status: 'open', comment: 'My walls are straight.' });
  const again = await cap(platform, user, 'POST', appealPath, { headers: asCandidate, json: { comment: 'Again.' } });
  t.is(again.status, 409);
  t.is(again.body.error.code, 'appeal.already_open');

  const reopened = await cap(platform, owner, 'POST', `${appealPath}/${appeal.body.data.id}/resolve`, {
    headers: asCentre(),
    json: { decision: 'reopen', comment: 'A second sitting.' },
  });
  t.is(reopened.status, 200, reopened.text);
  t.like(reopened.body.data, { status: 'resolved_reopened', resolutionComment: 'A second sitting.' });
  t.like((await cap(platform, user, 'GET', `/applications/${applicationId}`, { headers: asCandidate })).body.data, {
    status: 'in_progress',
    currentStageKey: 'interview',
  });
  t.is(
    (
      await cap(platform, owner, 'POST', `${appealPath}/${appeal.body.data.id}/resolve`, {
        headers: asCentre(),
        json: { decision: 'dismiss' },
      })
    ).body.error.code,
    'appeal.resolved',
  );
  t.is(
    (await cap(platform, user, 'POST', appealPath, { headers: asCandidate, json: { comment: 'x' } })).body.error.code,
    'appeal.not_allowed',
    'an application in progress is not appealed',
  );
  t.like(
    (await evaluate(retained[1]!, applicationId)).body.data,
    { round: 2, evaluations: 1 },
    'a new round of evaluations',
  );

  await evaluate(retained[2]!, applicationId);
  await evaluate(retained[0]!, applicationId, { decision: 'not_yet_competent', outcome: 'reject' });
  const second = await cap(platform, user, 'POST', appealPath, {
    headers: asCandidate,
    json: { comment: 'Please look again.' },
  });
  const dismissed = await cap(platform, owner, 'POST', `${appealPath}/${second.body.data.id}/resolve`, {
    headers: asCentre(),
    json: { decision: 'dismiss' },
  });
  t.is(dismissed.body.data.status, 'resolved_dismissed');
  t.is(
    (await cap(platform, user, 'GET', `/applications/${applicationId}`, { headers: asCandidate })).body.data.status,
    'rejected',
  );
  t.is(
    (
      await cap(platform, user, 'POST', `${appealPath}/${second.body.data.id}/resolve`, {
        headers: asCandidate,
        json: { decision: 'reopen' },
      })
    ).body.error.code,
    'auth.centre_persona_required',
  );
});

test.serial(
  'gap training: the LMS recommends courses over gRPC for a not-yet-competent candidate; when it cannot be reached the answer says so with no courses; closing ends appeals',
  async (t) => {
    const { applicationId, user } = await rejectedAtInterview();
    const path = `/applications/${applicationId}/recommendations`;
    lmsRequests = [];
    const got = await cap(platform, user, 'GET', path, { headers: asCandidate });
    t.is(got.status, 200, got.text);
    t.like(got.body.data, {
      applicationId,
      closeReason: 'GAP_TRAINING',
      gapTrainingPending: true,
      closed: false,
      aiProvider: 'catalogue-match',
      lmsMode: 'grpc',
    });
    t.deepEqual(
      got.body.data.courses.map((c: any) => [c.id, c.rank, c.tradeId]),
      [['course-1', 1, targets.tradeId]],
    );
    t.deepEqual(
      lmsRequests[0]!.gap_units.map((u: any) => u.label),
      ['Masonry unit 1', 'Masonry unit 2'],
      'the panel named no gap units: every unit of the NOS',
    );

    lmsUp = false;
    try {
      const down = await cap(platform, owner, 'GET', path, { headers: asCentre() });
      t.like(down.body.data, { lmsMode: 'unavailable', aiProvider: 'none', gapTrainingPending: true });
      t.deepEqual(down.body.data.courses, []);
    } finally {
      lmsUp = true;
    }

    const appeal = await cap(platform, user, 'POST', `/applications/${applicationId}/appeal`, {
      headers: asCandidate,
      json: { comment: 'x' },
    });
    t.is(
      (await cap(platform, user, 'POST', `${path}/close`, { headers: asCandidate })).body.error.code,
      'recommendations.appeal_open',
    );
    await cap(platform, owner, 'POST', `/applications/${applicationId}/appeal/${appeal.body.data.id}/resolve`, {
      headers: asCentre(),
      json: { decision: 'dismiss' },
    });
    const closed = await cap(platform, user, 'POST', `${path}/close`, { headers: asCandidate });
    t.is(closed.status, 200, closed.text);
    t.like(closed.body.data, { applicationId, closeReason: 'GAP_TRAINING', closed: true });
    t.like((await cap(platform, user, 'GET', path, { headers: asCandidate })).body.data, {
      closed: true,
      gapTrainingPending: false,
    });
    t.is(
      (
        await cap(platform, user, 'POST', `/applications/${applicationId}/appeal`, {
          headers: asCandidate,
          json: { comment: 'y' },
        })
      ).body.error.code,
      'appeal.not_allowed',
    );

    const progressing = await arranging();
    t.like(
      (
        await cap(platform, progressing.user, 'GET', `/applications/${progressing.applicationId}/recommendations`, {
          headers: asCandidate,
        })
      ).body.data,
      { lmsMode: 'not_requested', gapTrainingPending: false, courses: [] },
    );
    t.is(
      (
        await cap(
          platform,
          progressing.user,
          'POST',
          `/applications/${progressing.applicationId}/recommendations/close`,
          { headers: asCandidate },
        )
      ).body.error.code,
      'recommendations.not_applicable',
    );
  },
);

test.serial(
  'the gap units are the units the panel found not yet competent: the LMS is asked about those alone; other ids or a competent decision are 422 interview.gap_units_invalid',
  async (t) => {
    const made = await readyInterview();
    const units = (await cap(platform, made.user, 'GET', `/trades/${targets.tradeId}/units`)).body.data as Array<{
      id: string;
      title: string;
    }>;
    const second = units.find((u) => u.title === 'Masonry unit 2')!;
    await evaluate(retained[1]!, made.applicationId);
    await evaluate(retained[2]!, made.applicationId);
    const stranger = await evaluate(retained[0]!, made.applicationId, {
      decision: 'not_yet_competent',
      gapUnitIds: ['no-such-unit'],
    });
    t.is(stranger.status, 422);
    t.is(stranger.body.error.code, 'interview.gap_units_invalid');
    t.is(stranger.body.error.details[0].field, 'gapUnitIds[0]');
    const competent = await evaluate(retained[0]!, made.applicationId, {
      decision: 'competent',
      gapUnitIds: [second.id],
    });
    t.is(competent.body.error.code, 'interview.gap_units_invalid');
    t.is(
      (await evaluate(retained[1]!, made.applicationId, { gapUnitIds: [second.id] })).body.error.code,
      'interview.lead_only',
    );
    const rejected = await evaluate(retained[0]!, made.applicationId, {
      decision: 'not_yet_competent',
      gapUnitIds: [second.id],
      outcome: 'reject',
    });
    t.is(rejected.status, 200, rejected.text);

    lmsRequests = [];
    const got = await cap(platform, made.user, 'GET', `/applications/${made.applicationId}/recommendations`, {
      headers: asCandidate,
    });
    t.is(got.status, 200, got.text);
    t.deepEqual(got.body.data.gapUnits, [{ unitId: second.id, title: 'Masonry unit 2' }]);
    t.deepEqual(lmsRequests[0]!.gap_units, [{ unit_id: second.id, label: 'Masonry unit 2' }]);
  },
);

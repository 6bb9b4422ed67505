import test from 'ava';
import { applicationAtStage, applicationTargets, cap } from '../helpers/cap.ts';
import { pdfBytes, uploadAsset } from '../helpers/files.ts';
import { call, sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp, type SignedUpUser } from '../helpers/users.ts';

// Downloadable templates (files by key, the public third-party report template) and versioned workflow
// templates (openapi/cap/templates.yaml).
let platform: TestPlatform;
let admin: SignedUpUser;
let owner: SignedUpUser;
let target: { sectorId: string; tradeId: string; centreId: string };

test.before(async () => {
  platform = await startTestPlatform();
  const targets = await applicationTargets(platform, { sector: 'Agriculture', trade: 'Poultry' });
  ({ admin, owner } = targets);
  target = { sectorId: targets.sectorId, tradeId: targets.tradeId, centreId: targets.centreId };
});
test.after.always(() => platform?.stop());

const publicTemplate = () => call('GET', platform.url('/v1/cap/evidence/third-party-report-template'));
const upload = (by: SignedUpUser, name: string) =>
  uploadAsset(platform, by, pdfBytes(), 'attachment', name, 'application/pdf');

test.serial(
  'the public third-party report template is 404 until an admin sets it, then anyone downloads the file',
  async (t) => {
    const before = await publicTemplate();
    t.is(before.status, 404);
    t.is(before.body.error.code, 'http.not_found');

    const report = await upload(admin, 'third-party-report.pdf');
    const reference = await upload(admin, 'employer-reference.pdf');
    const put = await cap(platform, admin, 'PUT', '/admin/templates', {
      json: {
        templates: [
          { key: 'third_party_report', assetId: report },
          { key: 'employer_reference', assetId: reference },
        ],
      },
    });
    t.is(put.status, 200, put.text);
    t.deepEqual(
      put.body.data.map((row: { key: string; assetId: string }) => [row.key, row.assetId]),
      [
        ['employer_reference', reference],
        ['third_party_report', report],
      ],
    );

    const served = await publicTemplate();
    t.is(served.status, 200, served.text);
    t.is(served.body.data.assetId, report);
    const file = await fetch(served.body.data.url);
    t.is(file.status, 200);
    t.deepEqual(Buffer.from(await file.arrayBuffer()), pdfBytes());

    // null removes one; the others stay.
    const removed = await cap(platform, admin, 'PUT', '/admin/templates', {
      json: { templates: [{ key: 'employer_reference', assetId: null }] },
    });
    t.deepEqual(
      removed.body.data.map((row: { key: string }) => row.key),
      ['third_party_report'],
    );
    t.deepEqual(
      (await cap(platform, admin, 'GET', '/admin/templates')).body.data.map((row: { key: string }) => row.key),
      ['third_party_report'],
    );
  },
);

test('PUT /admin/templates is all or nothing: a file the admin did not upload and a key listed twice are each named, and nothing changes', async (t) => {
  const mine = await upload(admin, 'mine.pdf');
  const theirs = await upload(owner, 'theirs.pdf');
  // The files by key (URLs are signed afresh on every read).
  const templates = async () =>
    (await cap(platform, admin, 'GET', '/admin/templates')).body.data.map((row: { key: string; assetId: string }) => [
      row.key,
      row.assetId,
    ]);
  const before = await templates();
  const refused = await cap(platform, admin, 'PUT', '/admin/templates', {
    json: {
      templates: [
        { key: 'checklist', assetId: mine },
        { key: 'guide', assetId: theirs },
        { key: 'checklist', assetId: mine },
      ],
    },
  });
  t.is(refused.status, 422);
  t.is(refused.body.error.code, 'validation.failed');
  t.deepEqual(refused.body.error.details.map((d: { field: string }) => d.field).sort(), [
    'templates[1].assetId',
    'templates[2].key',
  ]);
  t.deepEqual(await templates(), before);
  t.is(
    (
      await cap(platform, admin, 'PUT', '/admin/templates', {
        json: { templates: [{ key: 'Bad Key', assetId: mine }] },
      })
    ).status,
    422,
  );
});

test('templates need platform.templates.write: 403 auth.permission_denied for anyone else', async (t) => {
  const stranger = await signUp(platform);
  for (const res of [
    await cap(platform, stranger, 'GET', '/admin/templates'),
    await cap(platform, stranger, 'PUT', '/admin/templates', { json: { templates: [{ key: 'x1', assetId: null }] } }),
    await cap(platform, stranger, 'GET', '/admin/workflow-templates'),
    await cap(platform, stranger, 'POST', '/admin/workflow-templates/RPL/versions', {
      json: { stages: [{ stageKey: 'application_form' }] },
    }),
  ]) {
    t.is(res.status, 403);
    t.is(res.body.error.code, 'auth.permission_denied');
  }
});

test.serial(
  "workflow templates: version 0 until one is published; a new version lists the type's stages in order, and its durations give the stages their deadlines",
  async (t) => {
    const initial = (await cap(platform, admin, 'GET', '/admin/workflow-templates')).body.data;
    t.deepEqual(
      initial.map((w: { applicationType: string; version: number }) => [w.applicationType, w.version]),
      [
        ['RPL', 0],
        ['NSQ', 0],
      ],
    );
    const rpl = initial[0].stages.map((s: { stageKey: string }) => s.stageKey);
    t.deepEqual(rpl, [
      'application_form',
      'payment',
      'folder_arrangement',
      'interview',
      'internal_verification',
      'external_verification',
      'certification',
    ]);

    const swapped = [...rpl];
    [swapped[2], swapped[3]] = [swapped[3], swapped[2]];
    const refused = await cap(platform, admin, 'POST', '/admin/workflow-templates/RPL/versions', {
      json: { stages: swapped.map((stageKey: string) => ({ stageKey })) },
    });
    t.is(refused.status, 422);
    t.deepEqual(
      refused.body.error.details.map((d: { field: string }) => d.field),
      ['stages[2].stageKey', 'stages[3].stageKey'],
    );
    t.is(
      (
        await cap(platform, admin, 'POST', '/admin/workflow-templates/NSQ/versions', {
          json: { stages: rpl.map((stageKey: string) => ({ stageKey })) },
        })
      ).status,
      422,
      'RPL stages are not NSQ stages',
    );

    const stages = rpl.map((stageKey: string) =>
      stageKey === 'folder_arrangement'
        ? { stageKey, label: 'Portfolio', durationDays: 5, guidance: 'Check every document.' }
        : { stageKey },
    );
    const published = await cap(platform, admin, 'POST', '/admin/workflow-templates/RPL/versions', {
      json: { stages },
    });
    t.is(published.status, 201, published.text);
    t.like(published.body.data, { applicationType: 'RPL', version: 1 });
    t.like(published.body.data.stages[2], {
      stageKey: 'folder_arrangement',
      label: 'Portfolio',
      durationDays: 5,
      guidance: 'Check every document.',
    });
    t.like(published.body.data.stages[3], { stageKey: 'interview', label: 'Interview', durationDays: null });

    const app = await applicationAtStage(platform, target, 'folder_arrangement');
    const [entered] = await sql<{ entered_at: Date }>(
      platform,
      `SELECT entered_at FROM cap.application_stages WHERE application_id = $1 AND stage_key = 'folder_arrangement'`,
      [app.id],
    );
    const appStages = (
      await cap(platform, app.candidate, 'GET', `/applications/${app.id}/stages`, {
        headers: { 'X-CAP-PERSONA': 'candidate' },
      })
    ).body.data;
    const folder = appStages.find((s: { stageKey: string }) => s.stageKey === 'folder_arrangement');
    t.is(folder.label, 'Portfolio');
    t.is(folder.deadline, new Date(entered!.entered_at.getTime() + 5 * 86_400_000).toISOString());
    t.is(appStages.find((s: { stageKey: string }) => s.stageKey === 'interview').deadline, null);

    await cap(platform, admin, 'POST', '/admin/workflow-templates/RPL/versions', {
      json: { stages: rpl.map((stageKey: string) => ({ stageKey })) },
    });
    const versions = (await cap(platform, admin, 'GET', '/admin/workflow-templates/RPL/versions')).body.data;
    t.deepEqual(
      versions.map((v: { version: number }) => v.version),
      [2, 1],
    );
    t.is(versions[0].stages[2].label, 'Portfolio', 'a label left out keeps the one in force');
    t.is(versions[0].stages[2].durationDays, null);
    t.deepEqual(
      (await cap(platform, admin, 'GET', '/admin/workflow-templates')).body.data.map(
        (w: { version: number }) => w.version,
      ),
      [2, 0],
    );
  },
);

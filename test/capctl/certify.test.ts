import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { applicationTargets, cap, candidateWithApplication } from '../helpers/cap.ts';
import { runCapctl } from '../helpers/cli.ts';
import { pdfText } from '../helpers/pdf.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import type { SignedUpUser } from '../helpers/users.ts';

// `capctl certify` (a QA shortcut through the API) and `capctl application timeline`.
let platform: TestPlatform;
let admin: SignedUpUser;
let owner: SignedUpUser;
let targets: { centreId: string; sectorId: string; tradeId: string };
const configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-config-'));

test.before(async () => {
  platform = await startTestPlatform();
  const made = await applicationTargets(platform, { sector: 'Building and Construction', trade: 'Masonry' });
  ({ admin, owner } = made);
  targets = { centreId: made.centreId, sectorId: made.sectorId, tradeId: made.tradeId };
});
test.after.always(async () => {
  await platform?.stop();
  fs.rmSync(configDir, { recursive: true, force: true });
});

const cli = (...args: string[]) =>
  runCapctl(args, { CAPCTL_CONFIG_DIR: configDir, CAPCTL_BASE_URL: platform.urls.gateway! });

/** A candidate signed in to the profile, with a submitted application (at payment) or a draft. */
async function candidateProfile(profile: string, options: { draft?: boolean } = {}) {
  const { user, applicationId } = await candidateWithApplication(platform, targets, options);
  const login = await cli('login', '--email', user.email, '--password', user.password, '--profile', profile);
  if (login.code !== 0) throw new Error(login.stderr + login.stdout);
  return { user, applicationId };
}

const people = () => [
  '--admin-email',
  admin.email,
  '--admin-password',
  admin.password,
  '--centre-email',
  owner.email,
  '--centre-password',
  owner.password,
];

test('capctl certify drives a submitted application from payment to its certificate through the API; the timeline shows every move and who made it', async (t) => {
  const { user, applicationId } = await candidateProfile('ada');
  const result = await cli('certify', applicationId, '--profile', 'ada', ...people());
  t.is(result.code, 0, result.stderr + result.stdout);
  for (const stage of [
    'payment',
    'folder_arrangement',
    'interview',
    'internal_verification',
    'external_verification',
    'certification',
  ]) {
    t.regex(result.stdout, new RegExp(`^${stage}\\s`, 'm'), stage);
  }
  t.regex(result.stdout, /certificate issued: CAP-\w{4}-\w{4}-\w{4}/);
  const certificate = (
    await cap(platform, user, 'GET', `/applications/${applicationId}/certificate`, {
      headers: { 'X-CAP-PERSONA': 'candidate' },
    })
  ).body.data;
  t.true((await pdfText(new Uint8Array(await (await fetch(certificate.url)).arrayBuffer()))).includes('Ada Obi'));

  const timeline = await cli('application', 'timeline', applicationId, '--profile', 'ada');
  t.is(timeline.code, 0, timeline.stderr);
  t.regex(timeline.stdout, /^STAGE\s+STATUS\s+ENTERED$/m);
  t.regex(timeline.stdout, /^Certification\s+successful\s+\d{4}-/m);
  t.regex(
    timeline.stdout,
    /Internal verification approved\s+Ivy Verifier \(internal_verifier\)\s+internal_verification -> external_verification\s+APPROVED/,
  );
  t.regex(timeline.stdout, /Certified\s+Quinn Assurance \(awarding_body\)\s+certification -> certified\s+APPROVED/);
  const lines = timeline.stdout.split('\n');
  t.true(
    lines.findIndex((l) => l.includes('Application submitted')) < lines.findIndex((l) => l.includes('Certified')),
    'oldest first',
  );

  // A second application reuses the QA people it made the first time.
  const second = await candidateProfile('ada-2');
  const again = await cli('certify', second.applicationId, '--profile', 'ada-2', ...people(), '--json');
  t.is(again.code, 0, again.stderr);
  t.is(JSON.parse(again.stdout).application.status, 'certified');
});

test('capctl certify names the step it cannot drive and exits 1: a draft the candidate must submit', async (t) => {
  const { applicationId } = await candidateProfile('bola', { draft: true });
  const result = await cli('certify', applicationId, '--profile', 'bola', ...people());
  t.is(result.code, 1);
  t.regex(result.stderr, /application_form: the candidate fills and submits the draft first/);
});

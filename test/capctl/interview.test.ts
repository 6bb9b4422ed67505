import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { panelSeats } from '../../cli/commands/interview.ts';
import { retainedAssessor, type TestAssessor } from '../helpers/assessors.ts';
import { applicationTargets, cap, candidateWithApplication } from '../helpers/cap.ts';
import { runCapctl } from '../helpers/cli.ts';
import { pngBytes, uploadAsset } from '../helpers/files.ts';
import { sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import type { SignedUpUser } from '../helpers/users.ts';

// capctl interview panel|schedule|evaluate against the real platform, as the centre's super admin and
// the panel's voters (their sessions saved as capctl profiles).
let platform: TestPlatform;
let owner: SignedUpUser;
let centreId: string;
let voters: TestAssessor[];
let applicationId: string;
const configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-interview-'));

/** Saves the user's session as a capctl profile, as `capctl login` would. */
function saveProfile(name: string, user: SignedUpUser) {
  fs.mkdirSync(path.join(configDir, 'profiles'), { recursive: true });
  const profile = {
    baseUrl: platform.urls.gateway!,
    email: user.email,
    userId: user.userId,
    accessToken: user.accessToken,
    refreshToken: user.refreshToken,
  };
  fs.writeFileSync(path.join(configDir, 'profiles', `${name}.json`), JSON.stringify(profile), { mode: 0o600 });
}
const capctl = (...args: string[]) =>
  runCapctl(['interview', ...args], { CAPCTL_CONFIG_DIR: configDir, CAPCTL_BASE_URL: platform.urls.gateway! });

test.before(async () => {
  platform = await startTestPlatform();
  const made = await applicationTargets(platform, { sector: 'Building and Construction', trade: 'Tiling' });
  ({ owner, centreId } = made);
  voters = await Promise.all([0, 1, 2].map(() => retainedAssessor(platform, made.admin, owner, centreId)));
  ({ applicationId } = await candidateWithApplication(platform, {
    centreId,
    sectorId: made.sectorId,
    tradeId: made.tradeId,
  }));
  // Paid (payment is tested in its own area): at folder arrangement.
  await sql(
    platform,
    `UPDATE cap.applications SET status = 'in_progress', current_stage_key = 'folder_arrangement' WHERE id = $1`,
    [applicationId],
  );
  saveProfile('centre', owner);
  voters.forEach((voter, index) => saveProfile(`voter${index}`, voter.user));
});
test.after.always(async () => {
  await platform?.stop();
  fs.rmSync(configDir, { recursive: true, force: true });
});

test('the observer is one of the voters, or a fourth seat', (t) => {
  t.deepEqual(
    panelSeats('a', ['b', 'c'], 'b').map((s) => [s.assessorId, s.isLead, s.isObserver]),
    [
      ['a', true, false],
      ['b', false, true],
      ['c', false, false],
    ],
  );
  t.deepEqual(
    panelSeats('a', ['b', 'c'], 'd').map((s) => s.assessorId),
    ['a', 'b', 'c', 'd'],
  );
});

test.serial(
  'capctl interview panel seats the panel and schedule books the sitting; a fourth voter and two ways to meet are refused',
  async (t) => {
    const [lead, second, third] = voters.map((v) => v.id) as [string, string, string];
    const fourth = await capctl(
      'panel',
      applicationId,
      '--profile',
      'centre',
      '--centre',
      centreId,
      '--lead',
      lead,
      '--voter',
      second,
      '--voter',
      third,
      '--voter',
      voters[0]!.id,
      '--observer',
      second,
    );
    t.is(fourth.code, 1);
    t.regex(fourth.stderr + fourth.stdout, /interview\.panel_invalid/);
    const seated = await capctl(
      'panel',
      applicationId,
      '--profile',
      'centre',
      '--centre',
      centreId,
      '--lead',
      lead,
      '--voter',
      second,
      '--voter',
      third,
      '--observer',
      second,
    );
    t.is(seated.code, 0, seated.stderr);
    t.regex(seated.stdout, new RegExp(`${lead}  Ada Obi  lead`));
    t.regex(seated.stdout, new RegExp(`${second}  Ada Obi  IV observer`));

    const both = await capctl(
      'schedule',
      applicationId,
      '--profile',
      'centre',
      '--centre',
      centreId,
      '--at',
      '2099-01-10T09:00:00Z',
      '--link',
      'https://meet.example.test/a',
      '--location',
      'Hall 2',
    );
    t.is(both.code, 2);
    t.regex(both.stderr, /exactly one of --link, --location and --centre-address/);
    const booked = await capctl(
      'schedule',
      applicationId,
      '--profile',
      'centre',
      '--centre',
      centreId,
      '--at',
      '2099-01-10T09:00:00Z',
      '--link',
      'https://meet.example.test/a',
      '--json',
    );
    t.is(booked.code, 0, booked.stderr);
    t.like(JSON.parse(booked.stdout), {
      scheduledAt: '2099-01-10T09:00:00.000Z',
      mode: 'online',
      link: 'https://meet.example.test/a',
    });
  },
);

test.serial(
  'capctl interview evaluate: a voter evaluates; the outcome from a voter who does not lead is refused (interview.lead_only)',
  async (t) => {
    await cap(platform, owner, 'POST', `/applications/${applicationId}/review`, {
      headers: { 'X-CAP-PERSONA': 'centre', 'X-CAP-CENTRE-ID': centreId },
      json: { decision: 'approve', stageKey: 'folder_arrangement' },
    });
    const signature = await uploadAsset(platform, voters[1]!.user, pngBytes(2), 'signature', 'signature.png');
    const refused = await capctl(
      'evaluate',
      applicationId,
      '--profile',
      'voter1',
      '--feedback',
      'Neat.',
      '--signature',
      signature,
      '--decision',
      'competent',
      '--outcome',
      'approve',
    );
    t.is(refused.code, 1);
    t.regex(refused.stderr + refused.stdout, /interview\.lead_only/);
    const evaluated = await capctl(
      'evaluate',
      applicationId,
      '--profile',
      'voter1',
      '--feedback',
      'Neat.',
      '--signature',
      signature,
    );
    t.is(evaluated.code, 0, evaluated.stderr);
    t.regex(
      evaluated.stdout,
      /^1 of 3 voters have evaluated; decision not given; the application is in_progress at interview$/m,
    );
  },
);

import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { approvedAssessor } from '../helpers/assessors.ts';
import { applicationTargets, cap, asCentre } from '../helpers/cap.ts';
import { runCapctl } from '../helpers/cli.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import type { SignedUpUser } from '../helpers/users.ts';

// capctl assessor: the assessor market from a terminal, as the signed-in assessor.
let platform: TestPlatform;
let owner: SignedUpUser;
let centreId: string;
let sectorId: string;
let tradeId: string;
const configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-config-'));

test.before(async () => {
  platform = await startTestPlatform();
  let admin: SignedUpUser;
  ({ admin, owner, centreId, sectorId, tradeId } = await applicationTargets(platform, {
    sector: 'Textiles',
    trade: 'Tailoring',
  }));
  const assessor = await approvedAssessor(platform, admin);
  const login = await cli(
    'login',
    '--email',
    assessor.user.email,
    '--password',
    assessor.user.password,
    '--profile',
    'assessor',
  );
  if (login.code !== 0) throw new Error(login.stderr + login.stdout);
});
test.after.always(async () => {
  await platform?.stop();
  fs.rmSync(configDir, { recursive: true, force: true });
});

const cli = (...args: string[]) =>
  runCapctl(args, { CAPCTL_CONFIG_DIR: configDir, CAPCTL_BASE_URL: platform.urls.gateway! });
async function json(...args: string[]) {
  const result = await cli(...args, '--profile', 'assessor', '--json');
  if (result.code !== 0)
    throw new Error(`capctl ${args.join(' ')} exited ${result.code}: ${result.stdout}${result.stderr}`);
  return JSON.parse(result.stdout);
}

test('capctl assessor sets sectors, asks a centre to retain them, finds a job in the marketplace and applies once', async (t) => {
  t.deepEqual(
    (await json('assessor', 'sectors', '--set', sectorId)).map((s: { name: string }) => s.name),
    ['Textiles'],
  );
  const request = await json('assessor', 'retain-request', centreId, '--role', 'assessor');
  t.like(request, { centreId, preferredRole: 'assessor', status: 'pending' });
  t.deepEqual(
    (await json('assessor', 'requests')).map((r: { id: string }) => r.id),
    [request.id],
  );

  const deadline = new Date(Date.now() + 86_400_000).toISOString();
  const posting = (
    await cap(platform, owner, 'POST', '/centre/job-postings', {
      headers: asCentre(centreId),
      json: {
        title: 'Tailoring assessor',
        tradeId,
        slot: 1,
        deadline,
        description: 'Assess tailoring candidates.',
        requirements: [],
      },
    })
  ).body.data;
  t.true((await json('assessor', 'marketplace')).some((p: { id: string }) => p.id === posting.id));
  const human = await cli('assessor', 'apply', posting.id, '--profile', 'assessor');
  t.is(human.code, 0, human.stderr);
  t.regex(human.stdout, /applied to Tailoring assessor at .*: applied/);
  t.deepEqual(
    (await json('assessor', 'jobs')).map((a: { jobPostingId: string; status: string }) => [a.jobPostingId, a.status]),
    [[posting.id, 'applied']],
  );

  const again = await cli('assessor', 'apply', posting.id, '--profile', 'assessor', '--json');
  t.is(again.code, 1);
  t.is(JSON.parse(again.stdout).error.code, 'job_posting.already_applied');
});

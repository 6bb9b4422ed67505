import test from 'ava';
import { applicationTargets, cap, candidateWithApplication } from '../helpers/cap.ts';
import { sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import type { SignedUpUser } from '../helpers/users.ts';

// PATCH /centre/applications/bulk with action certify, on a platform run with CAP_CENTRE_CERTIFY_BYPASS on
// (cap-verification.test.ts shows it refused with the flag off).
let platform: TestPlatform;
let owner: SignedUpUser;
let targets: { centreId: string; sectorId: string; tradeId: string };

const asCentre = () => ({ 'X-CAP-PERSONA': 'centre', 'X-CAP-CENTRE-ID': targets.centreId });

test.before(async () => {
  platform = await startTestPlatform({ centreCertifyBypass: true });
  const made = await applicationTargets(platform, { sector: 'Building and Construction', trade: 'Masonry' });
  owner = made.owner;
  targets = { centreId: made.centreId, sectorId: made.sectorId, tradeId: made.tradeId };
});
test.after.always(() => platform?.stop());

async function atStage(stage: string) {
  const { applicationId } = await candidateWithApplication(platform, targets);
  await sql(platform, `UPDATE cap.applications SET current_stage_key = $2, status = 'in_progress' WHERE id = $1`, [
    applicationId,
    stage,
  ]);
  return applicationId;
}

const bulk = (ids: string[]) =>
  cap(platform, owner, 'PATCH', '/centre/applications/bulk', { headers: asCentre(), json: { ids, action: 'certify' } });

test('with the flag on, the centre certifies its applications after payment in one call, without any certificate', async (t) => {
  const ids = [await atStage('folder_arrangement'), await atStage('external_verification')];
  const res = await bulk(ids);
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body.data, { action: 'certify', updated: 2, ids });
  const rows = await sql<{ status: string; actor: string; action: string }>(
    platform,
    `SELECT a.status, m.actor, m.action FROM cap.applications a JOIN cap.application_moves m ON m.application_id = a.id WHERE a.id = ANY($1::text[]) AND m.action <> 'submit' ORDER BY a.id`,
    [ids],
  );
  t.deepEqual(
    rows,
    ids.map(() => ({ status: 'certified', actor: 'centre', action: 'certify_bypass' })),
  );
  t.is(
    (await sql(platform, 'SELECT 1 FROM cap.certificates WHERE application_id = ANY($1::text[])', [ids])).length,
    0,
    'no Certificate row',
  );
});

test('all or nothing: one id that cannot be certified (before payment, or no application of the centre) refuses the call, naming each, and changes nothing', async (t) => {
  const good = await atStage('interview');
  const unpaid = (await candidateWithApplication(platform, targets)).applicationId;
  const res = await bulk([good, unpaid, '01ARZ3NDEKTSV4RRFFQ69G5FAV']);
  t.is(res.status, 409);
  t.is(res.body.error.code, 'application.bulk_refused');
  t.deepEqual(
    res.body.error.details.map((d: { field: string }) => d.field),
    ['ids[1]', 'ids[2]'],
  );
  t.true(res.body.error.details[0].issue.includes('application.not_in_stage'));
  const [row] = await sql<{ status: string }>(platform, 'SELECT status FROM cap.applications WHERE id = $1', [good]);
  t.is(row!.status, 'in_progress');
});

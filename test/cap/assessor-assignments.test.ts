import test from 'ava';
import type { Sequelize } from 'sequelize';
import { createAssessorService, type AssessorService } from '../../server/cap/assessors/service.ts';
import { createSequelize } from '../../server/platform/db/database.ts';
import { newId } from '../../server/platform/ids.ts';
import { applicationTargets, cap, onboard } from '../helpers/cap.ts';
import { sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { grantPlatformRole, signUp, type SignedUpUser } from '../helpers/users.ts';

// The read side of assessor assignments (server/cap/assessors/assignments.ts), which the assign
// operations of later areas write: who a centre retains, and who works on which application now.
let platform: TestPlatform;
let sequelize: Sequelize;
let assessors: AssessorService;
let owner: SignedUpUser;
let centreId: string;
let applicationId: string;

test.before(async () => {
  platform = await startTestPlatform();
  sequelize = createSequelize(platform.databaseUrl, 'cap', 2);
  assessors = createAssessorService(sequelize);
  let sectorId: string;
  let tradeId: string;
  ({ owner, centreId, sectorId, tradeId } = await applicationTargets(platform, {
    sector: 'Hospitality',
    trade: 'Catering',
  }));
  const candidate = await signUp(platform);
  await onboard(platform, candidate, 'candidate');
  const made = await cap(platform, candidate, 'POST', '/applications', {
    headers: { 'X-CAP-PERSONA': 'candidate' },
    json: { type: 'RPL', sectorId, tradeId, unitIds: [], centreId },
  });
  applicationId = made.body.data.id;
});
test.after.always(async () => {
  await sequelize?.close();
  await platform?.stop();
});

/** An onboarded assessor whose profile has the given status; answers the profile id. */
async function assessorProfile(status: string): Promise<string> {
  const user = await signUp(platform);
  await onboard(platform, user, 'assessor');
  const [row] = await sql<{ id: string }>(
    platform,
    'UPDATE cap.assessor_profiles SET status = $2 WHERE user_id = $1 RETURNING id',
    [user.userId, status],
  );
  return row!.id;
}

async function retainRequest(assessorId: string, status: string) {
  await sql(
    platform,
    `INSERT INTO cap.retained_requests (id, assessor_id, centre_id, preferred_role, status, created_at, updated_at) VALUES ($1, $2, $3, 'any', $4, now(), now())`,
    [newId(), assessorId, centreId, status],
  );
}

test('a centre retains an assessor only with an approved request and an approved profile', async (t) => {
  const retained = await assessorProfile('approved');
  await retainRequest(retained, 'approved');
  t.true(await assessors.assignments.retainedBy(centreId, retained));

  const asking = await assessorProfile('approved');
  await retainRequest(asking, 'pending');
  t.false(await assessors.assignments.retainedBy(centreId, asking), 'a pending request does not retain');

  const revoked = await assessorProfile('approved');
  await retainRequest(revoked, 'revoked');
  t.false(await assessors.assignments.retainedBy(centreId, revoked), 'a revoked request does not retain');

  const suspended = await assessorProfile('suspended');
  await retainRequest(suspended, 'approved');
  t.false(await assessors.assignments.retainedBy(centreId, suspended), 'a suspended assessor is retained by nobody');
});

test('active assignments leave out ended ones and filter by application, assessor, centre and role', async (t) => {
  const assessorId = await assessorProfile('approved');
  const { ApplicationAssessor } = assessors.models;
  const facilitator = await ApplicationAssessor.create({
    applicationId,
    assessorId,
    centreId,
    role: 'facilitator',
    assignedBy: owner.userId,
  });
  await ApplicationAssessor.create({
    applicationId,
    assessorId,
    centreId,
    role: 'panel_voter',
    lead: true,
    assignedBy: owner.userId,
  });
  await ApplicationAssessor.create({
    applicationId,
    assessorId,
    centreId,
    role: 'iv',
    assignedBy: owner.userId,
    endedAt: new Date(),
  });

  const mine = await assessors.assignments.activeAssignments({ assessorId });
  t.deepEqual(
    mine.map((a) => a.role),
    ['facilitator', 'panel_voter'],
  );
  t.deepEqual(
    (await assessors.assignments.activeAssignments({ applicationId, role: 'panel_voter' })).map((a) => a.lead),
    [true],
  );
  t.deepEqual(
    (await assessors.assignments.activeAssignments({ assessorId, role: ['iv', 'facilitator'] })).map((a) => a.id),
    [facilitator.id],
  );
  t.is((await assessors.assignments.activeAssignments({ assessorId, centreId: newId() })).length, 0);
});

test('a role outside the vocabulary is refused by the table, and one person holds a role on an application once at a time', async (t) => {
  const assessorId = await assessorProfile('approved');
  const { ApplicationAssessor } = assessors.models;
  await t.throwsAsync(
    ApplicationAssessor.create({ applicationId, assessorId, centreId, role: 'chair' as never, assignedBy: null }),
    { message: /check constraint/ },
  );
  await ApplicationAssessor.create({ applicationId, assessorId, centreId, role: 'unit_assessor', assignedBy: null });
  await t.throwsAsync(
    ApplicationAssessor.create({ applicationId, assessorId, centreId, role: 'unit_assessor', assignedBy: null }),
  );
  await sequelize.transaction((transaction) => assessors.assignments.end({ centreId, assessorId }, transaction));
  await t.notThrowsAsync(
    ApplicationAssessor.create({ applicationId, assessorId, centreId, role: 'unit_assessor', assignedBy: null }),
    'once the first ended, again',
  );
});

test('an assessor with a retained request or an assignment is in use: admins cannot delete them (409 assessor.in_use)', async (t) => {
  const admin = await signUp(platform);
  await grantPlatformRole(platform, admin);
  const requested = await assessorProfile('approved');
  await retainRequest(requested, 'rejected');
  const refused = await cap(platform, admin, 'DELETE', `/admin/assessors/${requested}`);
  t.is(refused.status, 409);
  t.is(refused.body.error.code, 'assessor.in_use');
  t.regex(refused.body.error.message, /1 retained request/);
  const assigned = await assessorProfile('approved');
  await assessors.models.ApplicationAssessor.create({
    applicationId,
    assessorId: assigned,
    centreId,
    role: 'iv',
    assignedBy: null,
    endedAt: new Date(),
  });
  t.is((await cap(platform, admin, 'DELETE', `/admin/assessors/${assigned}`)).body.error.code, 'assessor.in_use');
  t.is(
    (await cap(platform, admin, 'DELETE', `/admin/assessors/${await assessorProfile('pending')}`)).status,
    200,
    'an unused one goes',
  );
});

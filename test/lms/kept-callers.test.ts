import test from 'ava';
import { randomUUID } from 'node:crypto';
import { call, captureLogs, eventually, sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { lms, lmsLearner, lmsStaff, type LmsPerson } from '../helpers/lms.ts';
import { signUp, type SignedUpUser } from '../helpers/users.ts';

// The LMS keeps each caller (their user, completed personas and staff membership) between requests and
// drops them when the database says a row of theirs changed (LMS migration 0011,
// server/platform/db/caller-cache.ts). Each test first makes the caller kept (two requests), then
// changes them, and checks the very next request.
const logs = captureLogs();
let platform: TestPlatform;
let admin: LmsPerson;
test.before(async () => {
  platform = await startTestPlatform({}, { logger: logs.logger });
  admin = await lmsStaff(platform, 'admin');
});
test.after.always(() => platform?.stop());

/** A GET as `user` and the statements it made (the development-mode access line's `queries`). */
async function counted(user: SignedUpUser, path: string) {
  const requestId = randomUUID();
  const res = await call('GET', platform.url(`/v1/lms${path}`), {
    token: user.accessToken,
    headers: { 'x-request-id': requestId },
  });
  let line: { queries?: number } | undefined;
  await eventually('the access line is written', async () => {
    const text = logs.lines.find((l) => l.includes(requestId) && l.includes('"msg":"request"'));
    line = text ? JSON.parse(text) : undefined;
    return line !== undefined;
  });
  return { res, queries: line!.queries };
}

/** Makes `user` a kept caller: their second request reads no caller. */
async function kept(user: SignedUpUser): Promise<void> {
  await lms(platform, user, 'GET', '/me');
  await lms(platform, user, 'GET', '/me');
}

const capabilities = async (user: SignedUpUser) => (await lms(platform, user, 'GET', '/me')).body.data.capabilities;

test('a kept caller costs a list no statement of its own: the first page of courses is one statement', async (t) => {
  const learner = await lmsLearner(platform);
  // A change of their row drops the kept caller: the next request reads it again, the one after does not.
  await sql(platform, `UPDATE lms.lms_users SET display_name = 'Ada' WHERE user_id = $1`, [learner.userId]);
  const first = await counted(learner, '/courses');
  t.is(first.res.status, 200);
  t.is(first.queries, 2, 'the caller, then the page');
  const second = await counted(learner, '/courses');
  t.is(second.res.status, 200);
  t.is(second.queries, 1, 'the page alone');
});

test('a staff role changed through the API counts at the member’s next request', async (t) => {
  const member = await lmsStaff(platform, 'support');
  await kept(member);
  t.true((await capabilities(member)).includes('payments.read'));
  const changed = await lms(platform, admin, 'PATCH', `/staff/${member.lmsUserId}`, { role: 'content_manager' });
  t.is(changed.status, 200, changed.text);
  const after = await capabilities(member);
  t.false(after.includes('payments.read'), 'support’s capability is gone');
  t.true(after.includes('instructor.invite'));
});

test('a staff member suspended through the API loses the staff capabilities at the next request', async (t) => {
  const member = await lmsStaff(platform, 'admin');
  await kept(member);
  t.is((await lms(platform, member, 'GET', '/staff')).status, 200);
  t.is((await lms(platform, admin, 'PATCH', `/staff/${member.lmsUserId}`, { status: 'suspended' })).status, 200);
  const refused = await lms(platform, member, 'GET', '/staff');
  t.is(refused.status, 403);
  t.deepEqual(await capabilities(member), []);
});

test('a learner suspended by staff loses course.enroll at the next request, and gets it back when restored', async (t) => {
  const learner = await lmsLearner(platform);
  await kept(learner);
  t.deepEqual(await capabilities(learner), ['course.enroll']);
  const off = await lms(platform, admin, 'PATCH', `/admin/learners/${learner.lmsUserId}`, { status: 'suspended' });
  t.is(off.status, 200, off.text);
  t.deepEqual(await capabilities(learner), []);
  t.is((await lms(platform, admin, 'PATCH', `/admin/learners/${learner.lmsUserId}`, { status: 'active' })).status, 200);
  t.deepEqual(await capabilities(learner), ['course.enroll']);
});

test('an onboarding completed through the API shows in the persona at the next request', async (t) => {
  const user = await signUp(platform);
  await kept(user);
  t.deepEqual(await capabilities(user), []);
  await lms(platform, user, 'POST', '/onboarding/start', { persona: 'learner' });
  await lms(platform, user, 'PATCH', '/onboarding/learner/save', {
    personalDetails: { firstName: 'Ada', lastName: 'Obi', gender: 'female' },
    contactInformation: { phoneNumber: { countryCode: '+234', number: '8031234567' } },
    residentialAddress: { country: 'Nigeria', state: 'Lagos', lga: 'Ikeja' },
  });
  t.is((await lms(platform, user, 'POST', '/onboarding/learner/submit')).status, 200);
  t.deepEqual(await capabilities(user), ['course.enroll']);
});

test('an account deleted on the Orchestrator is refused by the LMS at the first request after user.deleted is handled', async (t) => {
  const learner = await lmsLearner(platform);
  await kept(learner);
  const deleted = await call('DELETE', platform.url('/v1/ol/auth/account'), {
    token: learner.accessToken,
    json: { password: learner.password },
  });
  t.is(deleted.status, 200, deleted.text);
  // The LMS's consumer deactivates the user in its own transaction; a plain read (no settled()) waits for it.
  await eventually(
    'the LMS user is deactivated',
    async () =>
      (
        await sql<{ status: string }>(platform, 'SELECT status FROM lms.lms_users WHERE user_id = $1', [learner.userId])
      )[0]?.status === 'deactivated',
  );
  const refused = await lms(platform, learner, 'GET', '/courses');
  t.is(refused.status, 403);
  t.is(refused.body.error.code, 'auth.account_deactivated');
});

test('a staff membership suspended by SQL from another connection counts at the next request once notified', async (t) => {
  const member = await lmsStaff(platform, 'admin');
  await kept(member);
  t.is((await lms(platform, member, 'GET', '/staff')).status, 200);
  // `sql` is another connection (as psql would be) and waits until the platform has heard of the change.
  await sql(platform, `UPDATE lms.lms_staff_members SET status = 'suspended' WHERE lms_user_id = $1`, [
    member.lmsUserId,
  ]);
  t.is((await lms(platform, member, 'GET', '/staff')).status, 403);
});

test('a user deactivated by SQL from another connection is refused at the next request once notified', async (t) => {
  const learner = await lmsLearner(platform);
  await kept(learner);
  await sql(platform, `UPDATE lms.lms_users SET status = 'deactivated' WHERE user_id = $1`, [learner.userId]);
  const refused = await lms(platform, learner, 'GET', '/courses');
  t.is(refused.status, 403);
  t.is(refused.body.error.code, 'auth.account_deactivated');
});

test('an onboarding removed by SQL from another connection takes the persona away at the next request', async (t) => {
  const learner = await lmsLearner(platform);
  await kept(learner);
  await sql(platform, `DELETE FROM lms.lms_onboardings WHERE lms_user_id = $1`, [learner.lmsUserId]);
  t.deepEqual(await capabilities(learner), []);
});

import test from 'ava';
import { newId } from '../../server/platform/ids.ts';
import { approvedCentreOwner, cap, onboard, asCentre } from '../helpers/cap.ts';
import { call, sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { firstSignIn, latestMail, type SignedUpUser, signUp, testPassword, uniqueEmail } from '../helpers/users.ts';

// Centre staff (/centre/staff): adding people through ProvisionAccount, how they get in, the list and
// their status. Every call acts as the centre persona for one centre, as the real client does.

let platform: TestPlatform;

test.before(async () => {
  platform = await startTestPlatform();
});
test.after.always(() => platform?.stop());

/** A user who onboarded a centre: its active super admin. */
async function centreOwner(on: TestPlatform = platform): Promise<{ owner: SignedUpUser; centreId: string }> {
  const owner = await signUp(on);
  const centreId = await approvedCentreOwner(on, owner);
  return { owner, centreId };
}

function addStaff(
  by: SignedUpUser,
  centreId: string,
  person: { name?: string; email?: string; role?: string } = {},
  on: TestPlatform = platform,
) {
  return cap(on, by, 'POST', '/centre/staff', {
    headers: asCentre(centreId),
    json: {
      name: person.name ?? 'Bola Ade',
      email: person.email ?? uniqueEmail('staff'),
      role: person.role ?? 'staff',
    },
  });
}

/** Signs in with the password ProvisionAccount mailed, as the new member would. */
async function signInWithMailedPassword(email: string) {
  const { password } = await latestMail(platform, email);
  const res = await call('POST', platform.url('/v1/ol/auth/login'), { json: { email, password } });
  if (res.status !== 200) throw new Error(`login with the mailed password: ${res.status} ${res.text}`);
  const { accessToken, refreshToken, user } = res.body.data;
  return {
    member: { userId: user.userId, email, password: password!, accessToken, refreshToken } as SignedUpUser,
    mustChangePassword: user.mustChangePassword as boolean,
  };
}

/** Adds someone and lets them in: their first CAP call makes them active. */
async function activeMember(by: SignedUpUser, centreId: string, role = 'staff', name = 'Bola Ade') {
  const email = uniqueEmail(role);
  const added = await addStaff(by, centreId, { name, email, role });
  if (added.status !== 201) throw new Error(`add staff: ${added.status} ${added.text}`);
  const member = await firstSignIn(platform, email);
  await cap(platform, member, 'GET', '/me');
  return { member, staffId: added.body.data.id as string };
}

const staffStatus = async (staffId: string) =>
  (await sql(platform, 'SELECT status FROM cap.centre_staff WHERE id = $1', [staffId]))[0]?.status;

test('a super admin adds staff: 201 pending with the name, email and role given; the account gets its password by mail', async (t) => {
  const { owner, centreId } = await centreOwner();
  const email = uniqueEmail('new-staff');
  const res = await addStaff(owner, centreId, { name: 'Bola Ade', email: email.toUpperCase(), role: 'regular_admin' });
  t.is(res.status, 201, res.text);
  t.like(res.body.data, { email, name: 'Bola Ade', role: 'regular_admin', status: 'pending' });
  t.regex(res.body.data.id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
  const [row] = await sql(platform, 'SELECT user_id FROM cap.centre_staff WHERE id = $1', [res.body.data.id]);
  const [account] = await sql(platform, 'SELECT id FROM ol.users WHERE email = $1', [email]);
  t.is(row!.user_id, account!.id, 'the staff row holds the Orchestrator user id');
  t.truthy((await latestMail(platform, email)).password);
});

test('the new member signs in with the mailed password, is told to change it, changes it, and their first CAP call lets them into the centre', async (t) => {
  const { owner, centreId } = await centreOwner();
  const email = uniqueEmail('joiner');
  const added = await addStaff(owner, centreId, { name: 'Chidi Okafor', email, role: 'staff' });

  const { member, mustChangePassword } = await signInWithMailedPassword(email);
  t.true(mustChangePassword);
  const changed = await call('PATCH', platform.url('/v1/ol/auth/change-password'), {
    token: member.accessToken,
    json: { currentPassword: member.password, newPassword: testPassword },
  });
  t.is(changed.status, 200, changed.text);
  const login = await call('POST', platform.url('/v1/ol/auth/login'), { json: { email, password: testPassword } });
  t.false(login.body.data.user.mustChangePassword);
  t.is(await staffStatus(added.body.data.id), 'pending', 'signing in to the Orchestrator alone does not change CAP');

  const token = { ...member, accessToken: login.body.data.accessToken };
  const me = await cap(platform, token, 'GET', '/me');
  t.deepEqual(me.body.data.centres, [{ centreId, name: 'Lagos Skills Centre', role: 'staff', status: 'operable' }]);
  t.is(await staffStatus(added.body.data.id), 'active');
  const { onboardings } = (await cap(platform, token, 'GET', '/onboarding/mine')).body.data;
  t.like(onboardings, [{ persona: 'centre', status: 'completed' }]);
  t.like((await cap(platform, token, 'GET', '/onboarding/centre')).body.data.data, { variant: 'staff', centreId });
  t.deepEqual((await cap(platform, token, 'GET', '/context')).body.data, {
    persona: 'centre',
    centreId,
    role: 'staff',
  });
});

test('the first calls of a new member may race: they all succeed and the member is active once', async (t) => {
  const { owner, centreId } = await centreOwner();
  const email = uniqueEmail('racer');
  await addStaff(owner, centreId, { email });
  const member = await firstSignIn(platform, email);
  const answers = await Promise.all(
    ['/me', '/onboarding/mine', '/me/profile', '/me'].map((path) => cap(platform, member, 'GET', path)),
  );
  t.deepEqual(
    answers.map((a) => a.status),
    [200, 200, 200, 200],
  );
  t.is(
    (await sql(platform, `SELECT 1 FROM cap.onboardings WHERE user_id = $1 AND persona = 'centre'`, [member.userId]))
      .length,
    1,
  );
  t.is((await cap(platform, member, 'GET', '/me')).body.data.centres[0].status, 'operable');
});

test('only super admins add staff: a regular admin or a staff member gets 403 centre.role_forbidden', async (t) => {
  const { owner, centreId } = await centreOwner();
  for (const role of ['regular_admin', 'staff']) {
    const { member } = await activeMember(owner, centreId, role);
    const res = await addStaff(member, centreId);
    t.is(res.status, 403, role);
    t.is(res.body.error.code, 'centre.role_forbidden');
  }
});

test('adding an email that is already staff at the centre, in any case, is 409 centre.staff_exists', async (t) => {
  const { owner, centreId } = await centreOwner();
  const email = uniqueEmail('twice');
  t.is((await addStaff(owner, centreId, { email })).status, 201);
  const again = await addStaff(owner, centreId, { email: email.toUpperCase() });
  t.is(again.status, 409);
  t.is(again.body.error.code, 'centre.staff_exists');
  const ownerAgain = await addStaff(owner, centreId, { email: owner.email });
  t.is(ownerAgain.status, 409);
});

test('the same person may be staff at two centres', async (t) => {
  const first = await centreOwner();
  const second = await centreOwner();
  const email = uniqueEmail('shared');
  t.is((await addStaff(first.owner, first.centreId, { email })).status, 201);
  t.is((await addStaff(second.owner, second.centreId, { email })).status, 201);
  const { member } = await signInWithMailedPassword(email);
  const me = await cap(platform, member, 'GET', '/me');
  t.deepEqual(
    me.body.data.centres.map((c: { centreId: string }) => c.centreId).sort(),
    [first.centreId, second.centreId].sort(),
  );
});

test('a caller acting as another persona gets 403 auth.centre_persona_required', async (t) => {
  const { owner, centreId } = await centreOwner();
  const candidate = await signUp(platform);
  await onboard(platform, candidate, 'candidate');
  const res = await cap(platform, candidate, 'GET', '/centre/staff');
  t.is(res.status, 403);
  t.is(res.body.error.code, 'auth.centre_persona_required');
  const outsider = await cap(platform, candidate, 'GET', '/centre/staff', { headers: asCentre(centreId) });
  t.is(outsider.status, 403);
  t.is(outsider.body.error.code, 'auth.persona_not_held');
  t.is(
    (await cap(platform, owner, 'GET', '/centre/staff')).status,
    200,
    'one centre and no header: the default context',
  );
});

test('GET /centre/staff lists this centre only, newest first, filtered by status and q, sorted by name or email', async (t) => {
  const { owner, centreId } = await centreOwner();
  const other = await centreOwner();
  await addStaff(other.owner, other.centreId, { name: 'Elsewhere Person' });
  const tunde = await addStaff(owner, centreId, { name: 'Tunde Bello', email: uniqueEmail('tunde') });
  const amara = await addStaff(owner, centreId, { name: 'amara Obi', email: uniqueEmail('amara') });
  await call('PATCH', platform.url('/v1/cap/centre/staff'), {
    token: owner.accessToken,
    headers: asCentre(centreId),
    json: { ids: [tunde.body.data.id], status: 'inactive' },
  });

  const list = async (query = '') =>
    (await cap(platform, owner, 'GET', `/centre/staff${query}`, { headers: asCentre(centreId) })).body;
  const all = await list();
  t.deepEqual(
    all.data.map((s: { name: string }) => s.name),
    ['amara Obi', 'Tunde Bello', 'Ada Obi'],
  );
  t.like(all.meta.pagination, { hasMore: false, nextCursor: null, limit: 100 });
  t.deepEqual(
    (await list('?status=inactive')).data.map((s: { id: string }) => s.id),
    [tunde.body.data.id],
  );
  t.deepEqual(
    (await list('?q=OBI')).data.map((s: { name: string }) => s.name),
    ['amara Obi', 'Ada Obi'],
  );
  t.deepEqual((await list(`?q=${encodeURIComponent(amara.body.data.email.slice(0, 10))}`)).data.length, 1);
  t.deepEqual((await list('?q=%25')).data, [], 'a % in q is a character, not a wildcard');
  t.deepEqual(
    (await list('?sort=name')).data.map((s: { name: string }) => s.name),
    ['Ada Obi', 'amara Obi', 'Tunde Bello'],
  );
  t.deepEqual(
    (await list('?sort=name&order=desc')).data.map((s: { name: string }) => s.name),
    ['Tunde Bello', 'amara Obi', 'Ada Obi'],
  );
  t.deepEqual(
    (await list('?sort=createdAt&order=asc')).data.map((s: { name: string }) => s.name),
    ['Ada Obi', 'Tunde Bello', 'amara Obi'],
  );
});

test('pages of the staff list follow each other without gaps or repeats, in every sort', async (t) => {
  const { owner, centreId } = await centreOwner();
  for (const name of ['Kemi', 'kemi', 'Bisi', 'Zainab', 'Kemi']) await addStaff(owner, centreId, { name });
  for (const query of ['sort=name', 'sort=name&order=desc', 'sort=email', 'sort=createdAt']) {
    const whole = (
      await cap(platform, owner, 'GET', `/centre/staff?${query}`, { headers: asCentre(centreId) })
    ).body.data.map((s: { id: string }) => s.id);
    const paged: string[] = [];
    let cursor = '';
    for (;;) {
      const page = (
        await cap(platform, owner, 'GET', `/centre/staff?${query}&limit=2${cursor}`, { headers: asCentre(centreId) })
      ).body;
      paged.push(...page.data.map((s: { id: string }) => s.id));
      if (!page.meta.pagination.hasMore) break;
      cursor = `&cursor=${page.meta.pagination.nextCursor}`;
    }
    t.deepEqual(paged, whole, query);
  }
});

test("GET /centre/staff/{id}: the member with a zero workload; another centre's member is 403 auth.out_of_scope; an unknown id 404", async (t) => {
  const { owner, centreId } = await centreOwner();
  const other = await centreOwner();
  const mine = await addStaff(owner, centreId, { name: 'Ngozi Eze', role: 'regular_admin' });
  const theirs = await addStaff(other.owner, other.centreId);
  const detail = await cap(platform, owner, 'GET', `/centre/staff/${mine.body.data.id}`, {
    headers: asCentre(centreId),
  });
  t.is(detail.status, 200);
  t.deepEqual(detail.body.data, { ...mine.body.data, workload: { assigned: 0, ongoing: 0, completed: 0 } });
  const foreign = await cap(platform, owner, 'GET', `/centre/staff/${theirs.body.data.id}`, {
    headers: asCentre(centreId),
  });
  t.is(foreign.status, 403);
  t.is(foreign.body.error.code, 'auth.out_of_scope');
  t.is((await cap(platform, owner, 'GET', `/centre/staff/${newId()}`, { headers: asCentre(centreId) })).status, 404);
});

test('GET /centre/staff/summary counts the staff by status', async (t) => {
  const { owner, centreId } = await centreOwner();
  await addStaff(owner, centreId);
  await addStaff(owner, centreId);
  const gone = await addStaff(owner, centreId);
  await cap(platform, owner, 'PATCH', '/centre/staff', {
    headers: asCentre(centreId),
    json: { ids: [gone.body.data.id], status: 'inactive' },
  });
  const summary = await cap(platform, owner, 'GET', '/centre/staff/summary', { headers: asCentre(centreId) });
  t.deepEqual(summary.body.data, { total: 4, active: 1, pending: 2, inactive: 1 });
});

test('PATCH /centre/staff deactivates and reactivates in bulk; an inactive member can no longer act for the centre', async (t) => {
  const { owner, centreId } = await centreOwner();
  const a = await activeMember(owner, centreId);
  const b = await activeMember(owner, centreId);
  const off = await cap(platform, owner, 'PATCH', '/centre/staff', {
    headers: asCentre(centreId),
    json: { ids: [a.staffId, b.staffId], status: 'inactive' },
  });
  t.is(off.status, 200, off.text);
  t.deepEqual(
    off.body.data.map((s: { status: string }) => s.status),
    ['inactive', 'inactive'],
  );
  const refused = await cap(platform, a.member, 'GET', '/centre/staff', { headers: asCentre(centreId) });
  t.is(refused.status, 403);
  t.deepEqual((await cap(platform, a.member, 'GET', '/me')).body.data.centres, []);

  const on = await cap(platform, owner, 'PATCH', '/centre/staff', {
    headers: asCentre(centreId),
    json: { ids: [a.staffId], status: 'active' },
  });
  t.is(on.body.data[0].status, 'active');
  t.is((await cap(platform, a.member, 'GET', '/centre/staff', { headers: asCentre(centreId) })).status, 200);
});

test('a pending member deactivated before signing in is not let in by signing in', async (t) => {
  const { owner, centreId } = await centreOwner();
  const email = uniqueEmail('withdrawn');
  const added = await addStaff(owner, centreId, { email });
  await cap(platform, owner, 'PATCH', '/centre/staff', {
    headers: asCentre(centreId),
    json: { ids: [added.body.data.id], status: 'inactive' },
  });
  const { member } = await signInWithMailedPassword(email);
  t.deepEqual((await cap(platform, member, 'GET', '/me')).body.data.centres, []);
  t.is(await staffStatus(added.body.data.id), 'inactive');
});

test("PATCH /centre/staff is all or nothing: an unknown id is 404 and another centre's is 403, every bad id is named, and nothing changes", async (t) => {
  const { owner, centreId } = await centreOwner();
  const other = await centreOwner();
  const mine = await addStaff(owner, centreId);
  const theirs = await addStaff(other.owner, other.centreId);
  const unknown = await cap(platform, owner, 'PATCH', '/centre/staff', {
    headers: asCentre(centreId),
    json: { ids: [mine.body.data.id, newId()], status: 'inactive' },
  });
  t.is(unknown.status, 404);
  t.deepEqual(
    unknown.body.error.details.map((d: { field: string }) => d.field),
    ['ids[1]'],
  );
  const unknownId = newId();
  const foreign = await cap(platform, owner, 'PATCH', '/centre/staff', {
    headers: asCentre(centreId),
    json: { ids: [mine.body.data.id, theirs.body.data.id, unknownId], status: 'inactive' },
  });
  t.is(foreign.status, 403);
  t.is(foreign.body.error.code, 'auth.out_of_scope');
  t.deepEqual(foreign.body.error.details, [
    { field: 'ids[1]', issue: `staff member ${theirs.body.data.id} belongs to another centre` },
    { field: 'ids[2]', issue: `no staff member has the id ${unknownId}` },
  ]);
  t.is(await staffStatus(mine.body.data.id), 'pending');
  t.is(await staffStatus(theirs.body.data.id), 'pending');
});

test('only super admins change staff status: 403 centre.role_forbidden', async (t) => {
  const { owner, centreId } = await centreOwner();
  const { member } = await activeMember(owner, centreId, 'regular_admin');
  const target = await addStaff(owner, centreId);
  const res = await cap(platform, member, 'PATCH', '/centre/staff', {
    headers: asCentre(centreId),
    json: { ids: [target.body.data.id], status: 'inactive' },
  });
  t.is(res.status, 403);
  t.is(res.body.error.code, 'centre.role_forbidden');
});

test('a super admin cannot deactivate themselves: 409 centre.self_deactivation', async (t) => {
  const { owner, centreId } = await centreOwner();
  const [own] = await sql(platform, 'SELECT id FROM cap.centre_staff WHERE centre_id = $1 AND user_id = $2', [
    centreId,
    owner.userId,
  ]);
  const res = await cap(platform, owner, 'PATCH', '/centre/staff', {
    headers: asCentre(centreId),
    json: { ids: [own!.id], status: 'inactive' },
  });
  t.is(res.status, 409);
  t.is(res.body.error.code, 'centre.self_deactivation');
  t.is(await staffStatus(String(own!.id)), 'active');
});

test('two super admins deactivating each other at once leave the centre one active super admin (409 centre.last_super_admin)', async (t) => {
  const { owner, centreId } = await centreOwner();
  const partner = await activeMember(owner, centreId, 'super_admin');
  const [own] = await sql(platform, 'SELECT id FROM cap.centre_staff WHERE centre_id = $1 AND user_id = $2', [
    centreId,
    owner.userId,
  ]);
  const [first, second] = await Promise.all([
    cap(platform, owner, 'PATCH', '/centre/staff', {
      headers: asCentre(centreId),
      json: { ids: [partner.staffId], status: 'inactive' },
    }),
    cap(platform, partner.member, 'PATCH', '/centre/staff', {
      headers: asCentre(centreId),
      json: { ids: [own!.id], status: 'inactive' },
    }),
  ]);
  const outcomes = [
    `${first.status} ${first.body.error?.code ?? ''}`,
    `${second.status} ${second.body.error?.code ?? ''}`,
  ].sort();
  t.is(outcomes.filter((o) => o.startsWith('200')).length, 1, outcomes.join(', '));
  // The loser either waited for the winner (409) or was already out when its call began (403).
  t.regex(
    outcomes.find((o) => !o.startsWith('200'))!,
    /^(409 centre\.last_super_admin|403 auth\.centre_not_held)$/,
  );
  const active = await sql(
    platform,
    `SELECT 1 FROM cap.centre_staff WHERE centre_id = $1 AND role = 'super_admin' AND status = 'active'`,
    [centreId],
  );
  t.is(active.length, 1);
});

test('when ProvisionAccount cannot be reached, adding staff is 503 accounts.unavailable and writes nothing', async (t) => {
  const down = await startTestPlatform({ olGrpcAddress: '127.0.0.1:1' });
  t.teardown(() => down.stop());
  const { owner, centreId } = await centreOwner(down);
  const email = uniqueEmail('unreachable');
  const res = await addStaff(owner, centreId, { email }, down);
  t.is(res.status, 503);
  t.is(res.body.error.code, 'accounts.unavailable');
  t.deepEqual(await sql(down, 'SELECT id FROM cap.centre_staff WHERE email = $1', [email]), []);
  t.deepEqual(await sql(down, 'SELECT user_id FROM cap.users WHERE email = $1', [email]), []);
});

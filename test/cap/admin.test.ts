import test from 'ava';
import { newId } from '../../server/platform/ids.ts';
import { cap, onboard } from '../helpers/cap.ts';
import { call, sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import {
  firstSignIn,
  grantPlatformRole,
  latestMail,
  signUp,
  uniqueEmail,
  type SignedUpUser,
  platformWithAdmin,
} from '../helpers/users.ts';

// Platform admins: permissions from roles held as data, and the admins' centres (/admin/centres).

let platform: TestPlatform;
let admin: SignedUpUser;

test.before(async () => ({ platform, admin } = await platformWithAdmin()));
test.after.always(() => platform?.stop());

const newCentre = (overrides: Record<string, unknown> = {}) => ({
  name: 'Abuja Trade Centre',
  registrationNo: `RC-${Math.floor(Math.random() * 1e6)}`,
  address: { country: 'Nigeria', state: 'FCT', address: '1 Garki Way' },
  superAdmin: { name: 'Halima Musa', email: uniqueEmail('founder') },
  ...overrides,
});

const createCentre = (by: SignedUpUser, body: object = newCentre(), on: TestPlatform = platform) =>
  cap(on, by, 'POST', '/admin/centres', { json: body });

test('without a platform permission, /admin/centres is 403 auth.permission_denied, reading and writing', async (t) => {
  const user = await signUp(platform);
  await onboard(platform, user, 'centre'); // a centre super admin is no platform admin
  for (const res of [await cap(platform, user, 'GET', '/admin/centres'), await createCentre(user)]) {
    t.is(res.status, 403);
    t.is(res.body.error.code, 'auth.permission_denied');
  }
});

test('permissions come from the roles granted: platform_finance reads pricing, not centres', async (t) => {
  const finance = await signUp(platform);
  await grantPlatformRole(platform, finance, 'platform_finance');
  const res = await cap(platform, finance, 'GET', '/admin/centres');
  t.is(res.status, 403);
  t.regex(res.body.error.message, /platform\.centres\.read/);
});

test('a role granted or withdrawn shows on the very next request of a caller CAP keeps', async (t) => {
  const user = await signUp(platform);
  await onboard(platform, user, 'centre');
  t.is((await cap(platform, user, 'GET', '/admin/centres')).status, 403); // the caller is kept from here on
  await grantPlatformRole(platform, user);
  t.is((await cap(platform, user, 'GET', '/admin/centres')).status, 200);
  await sql(platform, 'DELETE FROM cap.platform_role_grants WHERE user_id = $1', [user.userId]);
  const res = await cap(platform, user, 'GET', '/admin/centres');
  t.is(res.status, 403);
  t.is(res.body.error.code, 'auth.permission_denied');
});

test('granting a role twice changes nothing', async (t) => {
  const user = await signUp(platform);
  t.deepEqual(await grantPlatformRole(platform, user), { granted: true });
  t.deepEqual(await grantPlatformRole(platform, user), { granted: false });
  t.is((await sql(platform, 'SELECT 1 FROM cap.platform_role_grants WHERE user_id = $1', [user.userId])).length, 1);
});

test('POST /admin/centres creates an approved centre and invites its super admin, who is pending until they sign in', async (t) => {
  const body = newCentre();
  const res = await createCentre(admin, body);
  t.is(res.status, 201, res.text);
  const centre = res.body.data;
  t.like(centre, {
    name: body.name,
    registrationNo: body.registrationNo,
    status: 'approved',
    address: body.address,
    logoAssetId: null,
  });
  t.like(centre.superAdmin, { name: 'Halima Musa', email: body.superAdmin.email, photo: null });
  const [account] = await sql(platform, 'SELECT id FROM ol.users WHERE email = $1', [body.superAdmin.email]);
  t.is(centre.superAdmin.userId, account!.id);
  const [staff] = await sql(platform, 'SELECT role, status FROM cap.centre_staff WHERE centre_id = $1', [centre.id]);
  t.deepEqual(staff, { role: 'super_admin', status: 'pending' });
  t.truthy((await latestMail(platform, body.superAdmin.email)).password);
});

test('the invited super admin signs in with the mailed password and runs the centre', async (t) => {
  const body = newCentre();
  const centre = (await createCentre(admin, body)).body.data;
  const { password } = await latestMail(platform, body.superAdmin.email);
  const login = await call('POST', platform.url('/v1/ol/auth/login'), {
    json: { email: body.superAdmin.email, password },
  });
  t.true(login.body.data.user.mustChangePassword);
  const founder = await firstSignIn(platform, body.superAdmin.email);
  const me = await cap(platform, founder, 'GET', '/me');
  t.deepEqual(me.body.data.centres, [
    { centreId: centre.id, name: body.name, role: 'super_admin', status: 'operable' },
  ]);
  t.like((await cap(platform, founder, 'GET', '/onboarding/mine')).body.data.onboardings, [
    { persona: 'centre', status: 'completed' },
  ]);
  const added = await cap(platform, founder, 'POST', '/centre/staff', {
    headers: { 'X-CAP-PERSONA': 'centre', 'X-CAP-CENTRE-ID': centre.id },
    json: { name: 'Musa Bello', email: uniqueEmail('deputy'), role: 'regular_admin' },
  });
  t.is(added.status, 201, added.text);
});

test('GET /admin/centres lists newest first with each founding super admin, an onboarded centre included', async (t) => {
  const owner = await signUp(platform);
  await onboard(platform, owner, 'centre');
  const first = (await createCentre(admin, newCentre({ name: 'First Listed Centre' }))).body.data;
  const second = (await createCentre(admin, newCentre({ name: 'Second Listed Centre' }))).body.data;
  const list = (await cap(platform, admin, 'GET', '/admin/centres?limit=100')).body.data;
  const ids = list.map((c: { id: string }) => c.id);
  t.true(ids.indexOf(second.id) < ids.indexOf(first.id));
  const onboarded = list.find((c: { superAdmin: { userId: string } }) => c.superAdmin.userId === owner.userId);
  t.like(onboarded, {
    name: 'Lagos Skills Centre',
    status: 'pending',
    superAdmin: { name: 'Ada Obi', email: owner.email, photo: null },
  });
  t.deepEqual(
    list.find((c: { id: string }) => c.id === first.id),
    first,
  );
});

test('GET /admin/centres filters by name or registration number and pages by cursor', async (t) => {
  const marker = `Q${Date.now()}`;
  const made = [];
  for (const n of [1, 2, 3])
    made.push((await createCentre(admin, newCentre({ name: `${marker} Centre ${n}` }))).body.data.id);
  const byName = (await cap(platform, admin, 'GET', `/admin/centres?q=${marker.toLowerCase()}`)).body.data;
  t.deepEqual(
    byName.map((c: { id: string }) => c.id),
    [...made].reverse(),
  );
  const registrationNo = `RN-${marker}`;
  const numbered = (await createCentre(admin, newCentre({ registrationNo }))).body.data;
  t.deepEqual(
    (await cap(platform, admin, 'GET', `/admin/centres?q=${registrationNo}`)).body.data.map(
      (c: { id: string }) => c.id,
    ),
    [numbered.id],
  );

  const named = encodeURIComponent(`${marker} Centre`);
  const page1 = (await cap(platform, admin, 'GET', `/admin/centres?q=${named}&limit=2`)).body;
  t.is(page1.data.length, 2);
  t.true(page1.meta.pagination.hasMore);
  const page2 = (
    await cap(platform, admin, 'GET', `/admin/centres?q=${named}&limit=2&cursor=${page1.meta.pagination.nextCursor}`)
  ).body;
  t.deepEqual(
    [...page1.data, ...page2.data].map((c: { id: string }) => c.id),
    [...made].reverse(),
  );
  t.false(page2.meta.pagination.hasMore);
});

test('/admin operations take no persona headers: whatever they say, the permission decides', async (t) => {
  const res = await cap(platform, admin, 'GET', '/admin/centres', {
    headers: { 'X-CAP-PERSONA': 'candidate', 'X-CAP-CENTRE-ID': 'nonsense' },
  });
  t.is(res.status, 200, res.text);
});

test('POST /admin/centres checks its body: 422 validation.failed naming the fields', async (t) => {
  const res = await createCentre(admin, { name: ' ', superAdmin: { email: 'not-an-email' } });
  t.is(res.status, 422);
  const fields = res.body.error.details.map((d: { field: string }) => d.field);
  for (const field of ['name', 'registrationNo', 'superAdmin.name', 'superAdmin.email'])
    t.true(fields.includes(field), field);
});

test('when ProvisionAccount cannot be reached, no centre is created: 503 accounts.unavailable', async (t) => {
  const down = await startTestPlatform({ olGrpcAddress: '127.0.0.1:1' });
  t.teardown(() => down.stop());
  const downAdmin = await signUp(down);
  await grantPlatformRole(down, downAdmin);
  const res = await createCentre(downAdmin, newCentre(), down);
  t.is(res.status, 503);
  t.is(res.body.error.code, 'accounts.unavailable');
  t.deepEqual(await sql(down, 'SELECT id FROM cap.centres'), []);
});

// The centre lifecycle (openapi/cap/admin-centres.yaml).

async function pendingCentre(): Promise<{ owner: SignedUpUser; centreId: string }> {
  const owner = await signUp(platform);
  await onboard(platform, owner, 'centre');
  return { owner, centreId: (await cap(platform, owner, 'GET', '/me')).body.data.centres[0].centreId };
}

const act = (id: string, action: string) => cap(platform, admin, 'POST', `/admin/centres/${id}/${action}`);

test('every move of the centre lifecycle: allowed ones change the status, the others are 409 centre.transition_not_allowed', async (t) => {
  const moves: Array<[from: string, action: string, to: string | 409]> = [
    ['pending', 'approve', 'approved'],
    ['pending', 'reject', 'rejected'],
    ['pending', 'suspend', 409],
    ['approved', 'approve', 'approved'],
    ['approved', 'reject', 409],
    ['approved', 'suspend', 'suspended'],
    ['suspended', 'approve', 'approved'],
    ['suspended', 'reject', 409],
    ['suspended', 'suspend', 'suspended'],
    ['rejected', 'approve', 409],
    ['rejected', 'reject', 'rejected'],
    ['rejected', 'suspend', 409],
  ];
  for (const [from, action, to] of moves) {
    const { centreId } = await pendingCentre();
    await sql(platform, 'UPDATE cap.centres SET status = $1 WHERE id = $2', [from, centreId]);
    const res = await act(centreId, action);
    if (to === 409) {
      t.is(res.status, 409, `${action} from ${from}`);
      t.is(res.body.error.code, 'centre.transition_not_allowed');
      t.is((await sql(platform, 'SELECT status FROM cap.centres WHERE id = $1', [centreId]))[0]!.status, from);
    } else {
      t.is(res.status, 200, `${action} from ${from}: ${res.text}`);
      t.is(res.body.data.status, to);
    }
  }
});

test('a suspended centre: its people still sign in, nobody acts for it (403 centre.suspended), and approving it again lets them back', async (t) => {
  const { owner, centreId } = await pendingCentre();
  await act(centreId, 'approve');
  await act(centreId, 'suspend');
  t.is((await cap(platform, owner, 'GET', '/me')).status, 200);
  const refused = await cap(platform, owner, 'GET', '/centre/staff', { headers: { 'X-CAP-PERSONA': 'centre' } });
  t.is(refused.status, 403);
  t.is(refused.body.error.code, 'centre.suspended');
  await act(centreId, 'approve');
  t.is((await cap(platform, owner, 'GET', '/centre/staff', { headers: { 'X-CAP-PERSONA': 'centre' } })).status, 200);
});

test('bulk actions are all or nothing: one id that cannot change stops them all, and every bad id is named', async (t) => {
  const a = await pendingCentre();
  const b = await pendingCentre();
  const rejected = await pendingCentre();
  await act(rejected.centreId, 'reject');
  const unknown = newId();
  const refused = await cap(platform, admin, 'PATCH', '/admin/centres/bulk', {
    json: { ids: [a.centreId, rejected.centreId, b.centreId, unknown], action: 'approve' },
  });
  t.is(refused.status, 409);
  t.is(refused.body.error.code, 'admin.bulk_refused');
  t.deepEqual(
    refused.body.error.details.map((d: { field: string }) => d.field),
    ['ids[1]', 'ids[3]'],
  );
  const statuses = await sql(platform, 'SELECT status FROM cap.centres WHERE id = ANY($1)', [[a.centreId, b.centreId]]);
  t.deepEqual(
    statuses.map((r) => r.status),
    ['pending', 'pending'],
    'nothing changed',
  );
  const done = await cap(platform, admin, 'PATCH', '/admin/centres/bulk', {
    json: { ids: [a.centreId, b.centreId], action: 'approve' },
  });
  t.is(done.status, 200);
  t.deepEqual(
    done.body.data.map((c: { status: string }) => c.status),
    ['approved', 'approved'],
  );
});

test.serial(
  'only an unused centre is deleted (409 centre.in_use otherwise); the summary counts by status without the rejected',
  async (t) => {
    const before = (await cap(platform, admin, 'GET', '/admin/centres/summary')).body.data;
    const unused = await pendingCentre();
    const used = await pendingCentre();
    await act(used.centreId, 'approve');
    await cap(platform, used.owner, 'POST', '/centre/staff', {
      headers: { 'X-CAP-PERSONA': 'centre' },
      json: { name: 'Bola Ade', email: uniqueEmail('member'), role: 'staff' },
    });
    const inUse = await cap(platform, admin, 'DELETE', `/admin/centres/${used.centreId}`);
    t.is(inUse.status, 409);
    t.is(inUse.body.error.code, 'centre.in_use');
    const after = (await cap(platform, admin, 'GET', '/admin/centres/summary')).body.data;
    t.is(after.pending - before.pending, 1);
    t.is(after.approved - before.approved, 1);
    t.is((await cap(platform, admin, 'DELETE', `/admin/centres/${unused.centreId}`)).status, 200);
    t.is((await cap(platform, admin, 'GET', `/admin/centres/${unused.centreId}`)).status, 404);
    await act(used.centreId, 'suspend');
    const rejectedToo = await pendingCentre();
    await act(rejectedToo.centreId, 'reject');
    const last = (await cap(platform, admin, 'GET', '/admin/centres/summary')).body.data;
    t.is(last.total, last.pending + last.approved + last.suspended, 'rejected centres are not counted');
  },
);

test('the centre detail shows its staff, read-only; it needs platform.centres.read', async (t) => {
  const { centreId } = await pendingCentre();
  const detail = await cap(platform, admin, 'GET', `/admin/centres/${centreId}`);
  t.is(detail.status, 200);
  t.like(detail.body.data, { id: centreId, status: 'pending' });
  t.is(detail.body.data.staff.length, 1);
  t.is(detail.body.data.staff[0].role, 'super_admin');
  const stranger = await signUp(platform);
  t.is((await cap(platform, stranger, 'GET', `/admin/centres/${centreId}`)).body.error.code, 'auth.permission_denied');
});

test('POST /admin/accounts/lookup answers the accounts of the addresses that have one, with status, a mailed password still held and platform roles; others are left out', async (t) => {
  const finance = await signUp(platform);
  await grantPlatformRole(platform, finance, 'platform_finance');
  const pending = uniqueEmail('pending');
  await call('POST', platform.url('/v1/ol/auth/register'), {
    json: { email: pending, password: 'Pending-pass-2024', intents: ['cap'] },
  });
  const centre = newCentre();
  t.is((await createCentre(admin, centre)).status, 201);
  const nobody = uniqueEmail('nobody');
  const res = await cap(platform, admin, 'POST', '/admin/accounts/lookup', {
    json: {
      emails: [nobody, finance.email.toUpperCase(), pending, centre.superAdmin.email, admin.email, pending],
    },
  });
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body.data, [
    {
      email: finance.email,
      userId: finance.userId,
      status: 'active',
      mustChangePassword: false,
      platformRoles: ['platform_finance'],
    },
    {
      email: pending,
      userId: res.body.data[1].userId,
      status: 'pending_verification',
      mustChangePassword: false,
      platformRoles: [],
    },
    {
      email: centre.superAdmin.email,
      userId: res.body.data[2].userId,
      status: 'active',
      mustChangePassword: true,
      platformRoles: [],
    },
    {
      email: admin.email,
      userId: admin.userId,
      status: 'active',
      mustChangePassword: false,
      platformRoles: ['platform_admin'],
    },
  ]);
  // Reading who has an account is for platform admins only.
  const denied = await cap(platform, finance, 'POST', '/admin/accounts/lookup', { json: { emails: [admin.email] } });
  t.is(denied.status, 403);
  t.regex(denied.body.error.message, /platform\.accounts\.read/);
  for (const emails of [[], ['not an address'], Array.from({ length: 501 }, () => uniqueEmail())]) {
    const bad = await cap(platform, admin, 'POST', '/admin/accounts/lookup', { json: { emails } });
    t.is(bad.status, 422, JSON.stringify(emails).slice(0, 40));
    t.is(bad.body.error.code, 'validation.failed');
  }
});

import test from 'ava';
import type { Sequelize } from 'sequelize';
import { createPlatformRoles } from '../server/cap/admin/service.ts';
import type { PlatformRole } from '../server/cap/admin/roles.ts';
import { createUserService } from '../server/cap/users/service.ts';
import { createSequelize } from '../server/platform/db/database.ts';
import { closeGrpcClients } from '../server/platform/grpc/client.ts';
import { cap, onboard } from './helpers/cap.ts';
import { call, sql, startTestPlatform, type TestPlatform } from './helpers/platform.ts';
import { latestMail, signUp, uniqueEmail, type SignedUpUser } from './helpers/users.ts';

// Platform admins: permissions from roles held as data, and the admins' centres (/admin/centres).

let platform: TestPlatform;
let sequelize: Sequelize;
let admin: SignedUpUser;

/** Grants a platform role the way `capctl admin create` does, straight into the CAP schema. */
async function grant(user: SignedUpUser, role: PlatformRole, on: TestPlatform = platform) {
  const db = on === platform ? sequelize : createSequelize(on.databaseUrl, 'cap', 1);
  try {
    return await createPlatformRoles(db, createUserService(db)).grant({ userId: user.userId, email: user.email }, role);
  } finally {
    if (db !== sequelize) await db.close();
  }
}

test.before(async () => {
  platform = await startTestPlatform();
  sequelize = createSequelize(platform.databaseUrl, 'cap', 2);
  admin = await signUp(platform);
  await grant(admin, 'platform_admin');
});
test.after.always(async () => {
  closeGrpcClients();
  await sequelize?.close();
  await platform?.stop();
});

const newCentre = (overrides: Record<string, unknown> = {}) => ({
  name: 'Abuja Trade Centre',
  registrationNo: `RC-${Math.floor(Math.random() * 1e6)}`,
  address: { country: 'Nigeria', state: 'FCT', address: '1 Garki Way' },
  superAdmin: { name: 'Halima Musa', email: uniqueEmail('founder') },
  ...overrides,
});

const createCentre = (by: SignedUpUser, body: object = newCentre(), on: TestPlatform = platform) => cap(on, by, 'POST', '/admin/centres', { json: body });

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
  await grant(finance, 'platform_finance');
  const res = await cap(platform, finance, 'GET', '/admin/centres');
  t.is(res.status, 403);
  t.regex(res.body.error.message, /platform\.centres\.read/);
});

test('granting a role twice changes nothing', async (t) => {
  const user = await signUp(platform);
  t.deepEqual(await grant(user, 'platform_admin'), { granted: true });
  t.deepEqual(await grant(user, 'platform_admin'), { granted: false });
  t.is((await sql(platform, 'SELECT 1 FROM cap.platform_role_grants WHERE user_id = $1', [user.userId])).length, 1);
});

test('POST /admin/centres creates an approved centre and invites its super admin, who is pending until they sign in', async (t) => {
  const body = newCentre();
  const res = await createCentre(admin, body);
  t.is(res.status, 201, res.text);
  const centre = res.body.data;
  t.like(centre, { name: body.name, registrationNo: body.registrationNo, status: 'approved', address: body.address, logoAssetId: null });
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
  const login = await call('POST', platform.url('/v1/ol/auth/login'), { json: { email: body.superAdmin.email, password } });
  t.true(login.body.data.user.mustChangePassword);
  const founder = { accessToken: login.body.data.accessToken } as SignedUpUser;
  const me = await cap(platform, founder, 'GET', '/me');
  t.deepEqual(me.body.data.centres, [{ centreId: centre.id, name: body.name, role: 'super_admin', status: 'operable' }]);
  t.like((await cap(platform, founder, 'GET', '/onboarding/mine')).body.data.onboardings, [{ persona: 'centre', status: 'completed' }]);
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
  t.like(onboarded, { name: 'Lagos Skills Centre', status: 'pending', superAdmin: { name: 'Ada Obi', email: owner.email, photo: null } });
  t.deepEqual(list.find((c: { id: string }) => c.id === first.id), first);
});

test('GET /admin/centres filters by name or registration number and pages by cursor', async (t) => {
  const marker = `Q${Date.now()}`;
  const made = [];
  for (const n of [1, 2, 3]) made.push((await createCentre(admin, newCentre({ name: `${marker} Centre ${n}` }))).body.data.id);
  const byName = (await cap(platform, admin, 'GET', `/admin/centres?q=${marker.toLowerCase()}`)).body.data;
  t.deepEqual(byName.map((c: { id: string }) => c.id), [...made].reverse());
  const registrationNo = `RN-${marker}`;
  const numbered = (await createCentre(admin, newCentre({ registrationNo }))).body.data;
  t.deepEqual((await cap(platform, admin, 'GET', `/admin/centres?q=${registrationNo}`)).body.data.map((c: { id: string }) => c.id), [numbered.id]);

  const named = encodeURIComponent(`${marker} Centre`);
  const page1 = (await cap(platform, admin, 'GET', `/admin/centres?q=${named}&limit=2`)).body;
  t.is(page1.data.length, 2);
  t.true(page1.meta.pagination.hasMore);
  const page2 = (await cap(platform, admin, 'GET', `/admin/centres?q=${named}&limit=2&cursor=${page1.meta.pagination.nextCursor}`)).body;
  t.deepEqual([...page1.data, ...page2.data].map((c: { id: string }) => c.id), [...made].reverse());
  t.false(page2.meta.pagination.hasMore);
});

test('/admin operations take no persona headers: whatever they say, the permission decides', async (t) => {
  const res = await cap(platform, admin, 'GET', '/admin/centres', { headers: { 'X-CAP-PERSONA': 'candidate', 'X-CAP-CENTRE-ID': 'nonsense' } });
  t.is(res.status, 200, res.text);
});

test('POST /admin/centres checks its body: 422 validation.failed naming the fields', async (t) => {
  const res = await createCentre(admin, { name: ' ', superAdmin: { email: 'not-an-email' } });
  t.is(res.status, 422);
  const fields = res.body.error.details.map((d: { field: string }) => d.field);
  for (const field of ['name', 'registrationNo', 'superAdmin.name', 'superAdmin.email']) t.true(fields.includes(field), field);
});

test('when ProvisionAccount cannot be reached, no centre is created: 503 accounts.unavailable', async (t) => {
  const down = await startTestPlatform({ olGrpcAddress: '127.0.0.1:1' });
  t.teardown(() => down.stop());
  const downAdmin = await signUp(down);
  await grant(downAdmin, 'platform_admin', down);
  const res = await createCentre(downAdmin, newCentre(), down);
  t.is(res.status, 503);
  t.is(res.body.error.code, 'accounts.unavailable');
  t.deepEqual(await sql(down, 'SELECT id FROM cap.centres'), []);
});

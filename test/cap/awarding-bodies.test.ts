import test from 'ava';
import { cap, onboard } from '../helpers/cap.ts';
import { pngBytes, uploadAsset } from '../helpers/files.ts';
import type { TestPlatform } from '../helpers/platform.ts';
import {
  firstSignIn,
  latestMail,
  type SignedUpUser,
  signUp,
  uniqueEmail,
  platformWithAdmin,
} from '../helpers/users.ts';

// Awarding bodies: made by platform admins with their first admin, who invites the body's staff.
let platform: TestPlatform;
let admin: SignedUpUser;

test.before(async () => ({ platform, admin } = await platformWithAdmin()));
test.after.always(() => platform?.stop());

const newBody = (adminEmail = uniqueEmail('body-admin')) => ({
  name: 'National Board for Technical Education',
  registrationNo: `NBTE-${Math.floor(Math.random() * 1e9)}`,
  admin: { name: 'Aisha Bello', email: adminEmail },
});
const asBody = { 'X-CAP-PERSONA': 'awarding_body' };

test('a platform admin makes an awarding body; its new admin signs in, holds the awarding_body persona, and anyone signed in sees it listed', async (t) => {
  const body = newBody();
  const made = await cap(platform, admin, 'POST', '/admin/awarding-bodies', { json: body });
  t.is(made.status, 201, made.text);
  t.like(made.body.data, {
    name: body.name,
    registrationNo: body.registrationNo,
    admin: { email: body.admin.email, role: 'admin', status: 'pending' },
  });
  t.truthy((await latestMail(platform, body.admin.email)).password);
  const bodyAdmin = await firstSignIn(platform, body.admin.email);
  const me = (await cap(platform, bodyAdmin, 'GET', '/me')).body.data;
  t.deepEqual(me.awardingBody, {
    awardingBodyId: made.body.data.id,
    name: body.name,
    role: 'admin',
    status: 'operable',
  });
  t.like((await cap(platform, bodyAdmin, 'GET', '/context')).body.data, { persona: 'awarding_body' });
  const someone = await signUp(platform);
  const list = (await cap(platform, someone, 'GET', '/admin/awarding-bodies')).body.data;
  t.true(list.some((b: { id: string }) => b.id === made.body.data.id));
});

test('an awarding body made with a logo lists it resolved to a short-lived URL that serves the bytes; without one, logo is null', async (t) => {
  const bytes = pngBytes(4);
  const logoAssetId = await uploadAsset(platform, admin, bytes, 'logo', 'nbte.png');
  const made = await cap(platform, admin, 'POST', '/admin/awarding-bodies', { json: { ...newBody(), logoAssetId } });
  t.is(made.status, 201, made.text);
  t.is(made.body.data.logoAssetId, logoAssetId);
  const plain = (await cap(platform, admin, 'POST', '/admin/awarding-bodies', { json: newBody() })).body.data;
  const list = (await cap(platform, admin, 'GET', '/admin/awarding-bodies')).body.data as any[];
  const listed = list.find((b) => b.id === made.body.data.id);
  t.deepEqual(Buffer.from(await (await fetch(listed.logo)).arrayBuffer()), bytes);
  t.is(list.find((b) => b.id === plain.id).logo, null);
});

test('making awarding bodies needs platform.awarding_bodies.write; a registration number is taken once (409)', async (t) => {
  const someone = await signUp(platform);
  const refused = await cap(platform, someone, 'POST', '/admin/awarding-bodies', { json: newBody() });
  t.is(refused.status, 403);
  t.is(refused.body.error.code, 'auth.permission_denied');
  const body = newBody();
  t.is((await cap(platform, admin, 'POST', '/admin/awarding-bodies', { json: body })).status, 201);
  const again = await cap(platform, admin, 'POST', '/admin/awarding-bodies', {
    json: { ...body, admin: { name: 'Other', email: uniqueEmail('other') } },
  });
  t.is(again.status, 409);
  t.is(again.body.error.code, 'awarding_body.registration_taken');
});

test("the body's admin invites staff: a new address is let in by its first call, an existing user must accept", async (t) => {
  const body = newBody();
  const bodyId = (await cap(platform, admin, 'POST', '/admin/awarding-bodies', { json: body })).body.data.id;
  const bodyAdmin = await firstSignIn(platform, body.admin.email);
  await cap(platform, bodyAdmin, 'GET', '/me');

  const newcomer = uniqueEmail('ev');
  const invitedNew = await cap(platform, bodyAdmin, 'POST', '/awarding-body/staff', {
    headers: asBody,
    json: { email: newcomer, awardingBodyId: bodyId },
  });
  t.is(invitedNew.status, 201, invitedNew.text);
  t.is(invitedNew.body.data.status, 'pending');
  const staff = await firstSignIn(platform, newcomer);
  t.like((await cap(platform, staff, 'GET', '/me')).body.data.awardingBody, { role: 'staff', status: 'operable' });

  const existing = await signUp(platform);
  const invitedExisting = await cap(platform, bodyAdmin, 'POST', '/awarding-body/staff', {
    headers: asBody,
    json: { email: existing.email, awardingBodyId: bodyId },
  });
  t.is(invitedExisting.body.data.status, 'pending');
  t.like((await cap(platform, existing, 'GET', '/me')).body.data.awardingBody, { status: 'onboarding_required' });
  const [invitation] = (await cap(platform, existing, 'GET', '/me/invitations')).body.data;
  t.like(invitation, { kind: 'awarding_body', organisationId: bodyId, role: 'staff' });
  t.is((await cap(platform, existing, 'POST', `/me/invitations/${invitation.id}/accept`)).status, 200);
  t.like((await cap(platform, existing, 'GET', '/me')).body.data.awardingBody, { status: 'operable' });
});

test('only an admin of that body invites its staff; other personas are refused', async (t) => {
  const body = newBody();
  const bodyId = (await cap(platform, admin, 'POST', '/admin/awarding-bodies', { json: body })).body.data.id;
  const bodyAdmin = await firstSignIn(platform, body.admin.email);
  const staffEmail = uniqueEmail('ev');
  await cap(platform, bodyAdmin, 'POST', '/awarding-body/staff', {
    headers: asBody,
    json: { email: staffEmail, awardingBodyId: bodyId },
  });
  const staff = await firstSignIn(platform, staffEmail);
  await cap(platform, staff, 'GET', '/me');
  const byStaff = await cap(platform, staff, 'POST', '/awarding-body/staff', {
    headers: asBody,
    json: { email: uniqueEmail('x'), awardingBodyId: bodyId },
  });
  t.is(byStaff.body.error.code, 'awarding_body.role_forbidden');

  const otherBody = newBody();
  const otherId = (await cap(platform, admin, 'POST', '/admin/awarding-bodies', { json: otherBody })).body.data.id;
  const outOfScope = await cap(platform, bodyAdmin, 'POST', '/awarding-body/staff', {
    headers: asBody,
    json: { email: uniqueEmail('x'), awardingBodyId: otherId },
  });
  t.is(outOfScope.status, 403);
  t.is(outOfScope.body.error.code, 'auth.out_of_scope');

  const candidate = await signUp(platform);
  await onboard(platform, candidate, 'candidate');
  const wrongPersona = await cap(platform, candidate, 'POST', '/awarding-body/staff', {
    json: { email: uniqueEmail('x'), awardingBodyId: bodyId },
  });
  t.is(wrongPersona.status, 403);
  t.is(wrongPersona.body.error.code, 'auth.awarding_body_persona_required');
});

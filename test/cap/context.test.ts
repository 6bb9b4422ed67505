import test from 'ava';
import {
  isExempt,
  resolveActingContext,
  type ContextHeaders,
  type Memberships,
} from '../../server/cap/people/context/resolve.ts';
import { newId } from '../../server/platform/ids.ts';
import { loadApiDocument } from '../../server/platform/http/openapi.ts';
import { cap, onboard } from '../helpers/cap.ts';
import { sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp, type SignedUpUser } from '../helpers/users.ts';

// The acting context (X-CAP-PERSONA, X-CAP-CENTRE-ID), rule by rule as the spec's table states it:
// first the pure function, then the same rules over HTTP against GET /context.

const nothing: Memberships = {
  candidate: false,
  assessor: false,
  assessorStatus: null,
  awardingBody: false,
  centres: [],
};
const centreA = { centreId: 'A', role: 'super_admin' as const, centreStatus: 'approved' as const };
const centreB = { centreId: 'B', role: 'staff' as const, centreStatus: 'approved' as const };

const pureRules: Array<{
  rule: string;
  memberships: Partial<Memberships>;
  headers: ContextHeaders;
  expect: object | string;
}> = [
  {
    rule: 'a named persona the caller holds is the context',
    memberships: { candidate: true, assessor: true },
    headers: { persona: 'assessor' },
    expect: { persona: 'assessor' },
  },
  {
    rule: 'a named persona the caller does not hold is 403',
    memberships: { candidate: true },
    headers: { persona: 'assessor' },
    expect: 'auth.persona_not_held',
  },
  {
    rule: 'centre is held only with a membership',
    memberships: { candidate: true },
    headers: { persona: 'centre' },
    expect: 'auth.persona_not_held',
  },
  {
    rule: 'awarding_body is held only with its membership',
    memberships: { candidate: true },
    headers: { persona: 'awarding_body' },
    expect: 'auth.persona_not_held',
  },
  {
    rule: 'awarding_body membership makes it a hat',
    memberships: { awardingBody: true },
    headers: {},
    expect: { persona: 'awarding_body' },
  },
  {
    rule: 'omitted persona with one hat defaults to it',
    memberships: { assessor: true },
    headers: {},
    expect: { persona: 'assessor' },
  },
  {
    rule: 'omitted persona with one centre hat defaults to it and its centre',
    memberships: { centres: [centreA] },
    headers: {},
    expect: { persona: 'centre', centreId: 'A', role: 'super_admin' },
  },
  {
    rule: 'omitted persona with two hats is 400',
    memberships: { candidate: true, centres: [centreA] },
    headers: {},
    expect: 'auth.persona_ambiguous',
  },
  { rule: 'omitted persona with no hat is 403', memberships: {}, headers: {}, expect: 'auth.persona_required' },
  {
    rule: 'the centre header with another named persona is 400',
    memberships: { candidate: true, centres: [centreA] },
    headers: { persona: 'candidate', centreId: 'A' },
    expect: 'auth.centre_header_not_allowed',
  },
  {
    rule: 'the centre header when the default persona is not centre is 400',
    memberships: { candidate: true },
    headers: { centreId: 'A' },
    expect: 'auth.centre_header_not_allowed',
  },
  {
    rule: 'the centre header picks a membership and its role',
    memberships: { centres: [centreA, centreB] },
    headers: { persona: 'centre', centreId: 'B' },
    expect: { persona: 'centre', centreId: 'B', role: 'staff' },
  },
  {
    rule: 'the centre header naming a centre not held is 403',
    memberships: { centres: [centreA] },
    headers: { persona: 'centre', centreId: 'B' },
    expect: 'auth.centre_not_held',
  },
  {
    rule: 'omitted centre header with one membership defaults to it',
    memberships: { candidate: true, centres: [centreB] },
    headers: { persona: 'centre' },
    expect: { persona: 'centre', centreId: 'B', role: 'staff' },
  },
  {
    rule: 'omitted centre header with two memberships is 400',
    memberships: { centres: [centreA, centreB] },
    headers: { persona: 'centre' },
    expect: 'auth.centre_ambiguous',
  },
  {
    rule: 'omitted persona and centre with two memberships is 400 on the centre',
    memberships: { centres: [centreA, centreB] },
    headers: {},
    expect: 'auth.centre_ambiguous',
  },
];

for (const { rule, memberships, headers, expect } of pureRules) {
  test(`resolveActingContext: ${rule}`, (t) => {
    const resolution = resolveActingContext({ ...nothing, ...memberships }, headers);
    if (typeof expect === 'string') {
      t.false(resolution.ok);
      if (!resolution.ok) t.is(resolution.error.code, expect);
    } else {
      t.deepEqual(resolution, { ok: true, context: expect });
    }
  });
}

test('resolveActingContext: each refusal has the status of the spec (403 not held or none, 400 ambiguous or misplaced)', (t) => {
  const statuses: Record<string, 400 | 403> = {
    'auth.persona_not_held': 403,
    'auth.persona_required': 403,
    'auth.centre_not_held': 403,
    'auth.persona_ambiguous': 400,
    'auth.centre_ambiguous': 400,
    'auth.centre_header_not_allowed': 400,
  };
  for (const { memberships, headers, expect } of pureRules) {
    const resolution = resolveActingContext({ ...nothing, ...memberships }, headers);
    if (typeof expect === 'string' && !resolution.ok) t.is(resolution.error.status, statuses[expect]!, expect);
  }
});

test('the document declares both persona headers on every authenticated operation outside the exempt paths, and on no other', async (t) => {
  const doc = await loadApiDocument('cap');
  for (const op of doc.operations) {
    const headers = op.parameters
      .filter((p) => p.in === 'header')
      .map((p) => p.name)
      .sort();
    const needsContext = (op.security ?? []).length > 0 && !isExempt(op.path);
    t.deepEqual(
      headers,
      needsContext ? ['X-CAP-CENTRE-ID', 'X-CAP-PERSONA'] : [],
      `${op.method.toUpperCase()} ${op.path}`,
    );
  }
});

// Over HTTP: real users whose memberships come from real onboarding. Staff rows beyond a centre's
// owner are written directly until staff management exists (the next issue).

let platform: TestPlatform;
const users: Record<string, SignedUpUser> = {};
const centres: Record<string, string> = { unknown: newId() };

async function addStaff(user: SignedUpUser, centre: string, role: string, status: string) {
  await sql(
    platform,
    'INSERT INTO cap.centre_staff (id, centre_id, user_id, email, role, status, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, now(), now())',
    [newId(), centres[centre], user.userId, user.email, role, status],
  );
}

async function ownCentre(user: SignedUpUser, name: string) {
  await onboard(platform, user, 'centre');
  centres[name] = (await cap(platform, user, 'GET', '/me')).body.data.centres[0].centreId;
}

test.before(async () => {
  platform = await startTestPlatform();
  const names = ['none', 'candidateDraft', 'candidate', 'assessor', 'centreOwner', 'candidateAndCentre', 'twoCentres'];
  await Promise.all(names.map(async (name) => (users[name] = await signUp(platform))));
  await cap(platform, users.none!, 'GET', '/me');
  await cap(platform, users.candidateDraft!, 'POST', '/onboarding/start', { json: { persona: 'candidate' } });
  await onboard(platform, users.candidate!, 'candidate');
  await onboard(platform, users.assessor!, 'assessor');
  await ownCentre(users.centreOwner!, 'A');
  await onboard(platform, users.candidateAndCentre!, 'candidate');
  await ownCentre(users.candidateAndCentre!, 'B');
  await ownCentre(users.twoCentres!, 'C');
  await addStaff(users.twoCentres!, 'A', 'regular_admin', 'active');
  await addStaff(users.twoCentres!, 'B', 'staff', 'inactive');
  await addStaff(users.candidate!, 'A', 'staff', 'inactive');
  await addStaff(users.candidate!, 'B', 'staff', 'pending');
});
test.after.always(() => platform?.stop());

interface HttpRule {
  rule: string;
  user: string;
  persona?: string;
  centre?: string;
  /** The context (centre by name), or the error as `status code`. */
  expect: { persona: string; centre?: string; role?: string } | string;
}

const httpRules: HttpRule[] = [
  {
    rule: 'a named persona the caller holds is the context',
    user: 'candidateAndCentre',
    persona: 'candidate',
    expect: { persona: 'candidate' },
  },
  {
    rule: 'a named persona the caller does not hold is 403',
    user: 'candidate',
    persona: 'assessor',
    expect: '403 auth.persona_not_held',
  },
  {
    rule: 'a draft onboarding does not hold its persona',
    user: 'candidateDraft',
    persona: 'candidate',
    expect: '403 auth.persona_not_held',
  },
  {
    rule: 'pending and inactive staff rows do not hold the centre persona',
    user: 'candidate',
    persona: 'centre',
    expect: '403 auth.persona_not_held',
  },
  {
    rule: 'nobody holds awarding_body yet',
    user: 'candidateAndCentre',
    persona: 'awarding_body',
    expect: '403 auth.persona_not_held',
  },
  {
    rule: 'omitted persona with one hat defaults to it (candidate)',
    user: 'candidate',
    expect: { persona: 'candidate' },
  },
  { rule: 'omitted persona with one hat defaults to it (assessor)', user: 'assessor', expect: { persona: 'assessor' } },
  {
    rule: 'omitted persona with one hat defaults to it (centre, with its centre)',
    user: 'centreOwner',
    expect: { persona: 'centre', centre: 'A', role: 'super_admin' },
  },
  { rule: 'omitted persona with two hats is 400', user: 'candidateAndCentre', expect: '400 auth.persona_ambiguous' },
  { rule: 'omitted persona with no hat is 403', user: 'none', expect: '403 auth.persona_required' },
  {
    rule: 'omitted persona with only a draft onboarding is 403',
    user: 'candidateDraft',
    expect: '403 auth.persona_required',
  },
  {
    rule: 'the centre header with another named persona is 400',
    user: 'candidateAndCentre',
    persona: 'candidate',
    centre: 'B',
    expect: '400 auth.centre_header_not_allowed',
  },
  {
    rule: 'the centre header when the default persona is not centre is 400',
    user: 'assessor',
    centre: 'A',
    expect: '400 auth.centre_header_not_allowed',
  },
  {
    rule: 'the centre header picks an active membership; the role comes from its row',
    user: 'twoCentres',
    persona: 'centre',
    centre: 'A',
    expect: { persona: 'centre', centre: 'A', role: 'regular_admin' },
  },
  {
    rule: 'the centre header picks the other membership with its own role',
    user: 'twoCentres',
    persona: 'centre',
    centre: 'C',
    expect: { persona: 'centre', centre: 'C', role: 'super_admin' },
  },
  {
    rule: 'the centre header naming an inactive membership is 403',
    user: 'twoCentres',
    persona: 'centre',
    centre: 'B',
    expect: '403 auth.centre_not_held',
  },
  {
    rule: "the centre header naming someone else's centre is 403",
    user: 'centreOwner',
    persona: 'centre',
    centre: 'C',
    expect: '403 auth.centre_not_held',
  },
  {
    rule: 'the centre header naming no centre at all is 403',
    user: 'centreOwner',
    persona: 'centre',
    centre: 'unknown',
    expect: '403 auth.centre_not_held',
  },
  {
    rule: 'omitted centre header with one membership defaults to it',
    user: 'candidateAndCentre',
    persona: 'centre',
    expect: { persona: 'centre', centre: 'B', role: 'super_admin' },
  },
  {
    rule: 'omitted centre header with two memberships is 400',
    user: 'twoCentres',
    persona: 'centre',
    expect: '400 auth.centre_ambiguous',
  },
  {
    rule: 'omitted persona and centre header with two memberships is 400',
    user: 'twoCentres',
    expect: '400 auth.centre_ambiguous',
  },
];

for (const { rule, user, persona, centre, expect } of httpRules) {
  test(`GET /context: ${rule}`, async (t) => {
    const headers: Record<string, string> = {};
    if (persona) headers['X-CAP-PERSONA'] = persona;
    if (centre) headers['X-CAP-CENTRE-ID'] = centres[centre]!;
    const res = await cap(platform, users[user]!, 'GET', '/context', { headers });
    if (typeof expect === 'string') {
      t.is(`${res.status} ${res.body.error?.code}`, expect);
    } else {
      t.is(res.status, 200, res.text);
      const context = expect.centre
        ? { persona: expect.persona, centreId: centres[expect.centre], role: expect.role }
        : { persona: expect.persona };
      t.deepEqual(res.body.data, context);
    }
  });
}

test('GET /context: header values outside the document are 422 validation.failed', async (t) => {
  const cases: Array<Record<string, string>> = [{ 'X-CAP-PERSONA': 'admin' }, { 'X-CAP-CENTRE-ID': 'centre-1' }];
  for (const headers of cases) {
    const res = await cap(platform, users.candidate!, 'GET', '/context', { headers });
    t.is(res.status, 422);
    t.is(res.body.error.code, 'validation.failed');
  }
});

test('exempt paths ignore the persona headers, whatever they say', async (t) => {
  const headers = { 'X-CAP-PERSONA': 'not-a-persona', 'X-CAP-CENTRE-ID': 'centre-1' };
  for (const path of ['/me', '/me/profile', '/me/deletion-eligibility', '/onboarding/mine', '/onboarding/candidate']) {
    t.is((await cap(platform, users.candidateDraft!, 'GET', path, { headers })).status, 200, path);
  }
  const saved = await cap(platform, users.candidateDraft!, 'PATCH', '/onboarding/candidate/save', {
    headers,
    json: {},
  });
  t.is(saved.status, 200);
});

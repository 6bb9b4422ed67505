import test, { type ExecutionContext } from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { MatchersV3 } from '@pact-foundation/pact';
import { loadDrafts } from '../../server/platform/dev/provider-states.ts';
import {
  bearer,
  capctl,
  configDir,
  email,
  errorBody,
  exampleAccessToken,
  isoDateTime,
  mayBeNull,
  mockGateway,
  pactFiles,
  runScenario,
  stepTests,
  ulid,
  type State,
  type StepInteraction,
} from './support.ts';

// capctl -> CAP: `capctl me --service cap` and the onboarding and acting-context steps of the bundled
// scenarios, run by capctl's scenario runner against Pact's mock server. Writes pacts/capctl-cap.json.

const { boolean, eachLike, fromProviderState, integer, like, string } = MatchersV3;
const pact = pactFiles(test);
const capPact = () => pact('capctl', 'cap');

const candidateDraft = loadDrafts('cap').candidate!;
const started = { persona: 'candidate', stage: 'started' };

const summary = (status: 'draft' | 'completed', persona = 'candidate') => ({
  onboardingId: ulid(),
  persona,
  status,
  createdAt: isoDateTime(),
  lastUpdatedAt: isoDateTime(),
});

/** A scenario step sending the example token; the verifier replaces it with the state's user's. */
const step = (id: string, http: string, expect = '{ status: 200 }') => `
  - id: ${id}
    http: { ${http}, headers: { Authorization: "Bearer ${exampleAccessToken}" } }
    expect: ${expect}`;

test.serial('capctl me --service cap reads the signed-in user on CAP', async (t) => {
  const cli = configDir(t);
  await capPact()
    .addInteraction()
    .given('a verified user')
    .uponReceiving("a read of the caller's CAP account")
    .withRequest('GET', '/v1/cap/me', (b) => b.headers({ Authorization: bearer() }))
    .willRespondWith(200, (b) =>
      b.jsonBody({
        success: true,
        data: {
          userId: ulid(),
          email: email(),
          identityVerified: boolean(false),
          candidate: null,
          centres: [],
          assessor: null,
          awardingBody: null,
        },
      }),
    )
    .executeTest(async (mock) => {
      cli.signedIn(mock.url);
      const run = await capctl(t, cli.dir, 'me', '--service', 'cap', '--json');
      t.is(run.code, 0, run.stderr);
      t.like(JSON.parse(run.stdout), { identityVerified: false, candidate: null });
    });
});

test.serial(
  'capctl seed --dry-run as a signed-in admin reads which seeded addresses have accounts, and nothing else',
  async (t) => {
    const cli = configDir(t);
    const seeds = path.join(cli.dir, 'seeds');
    fs.mkdirSync(seeds);
    fs.writeFileSync(
      path.join(seeds, 'people.yaml'),
      'people:\n  candidates:\n    - { email: ada@example.test, password: Candidate-pass-2024 }\n',
    );
    await capPact()
      .addInteraction()
      .given('a platform admin')
      .uponReceiving('a lookup of the accounts of some addresses by a platform admin')
      .withRequest('POST', '/v1/cap/admin/accounts/lookup', (b) =>
        b
          .headers({ Authorization: bearer() })
          .jsonBody({ emails: [fromProviderState('${email}', 'ada@example.test')] }),
      )
      .willRespondWith(200, (b) =>
        b.jsonBody({
          success: true,
          data: eachLike({
            email: fromProviderState('${email}', 'ada@example.test'),
            userId: ulid(),
            status: string('active'),
            mustChangePassword: boolean(false),
            platformRoles: eachLike('platform_admin'),
          }),
        }),
      )
      .executeTest(async (mock) => {
        cli.signedIn(mock.url);
        const run = await capctl(t, cli.dir, 'seed', '--profile', 'default', '--dry-run', '--json', seeds);
        t.is(run.code, 0, run.stderr);
        t.deepEqual(JSON.parse(run.stdout).counts, { candidates: { created: 0, updated: 0, unchanged: 1 } });
      });
  },
);

test.serial('capctl run starts, lists, reads, saves and submits the candidate onboarding', async (t) => {
  const cap = capPact();
  cap
    .addInteraction()
    .given('a verified user')
    .uponReceiving('a start of the candidate onboarding')
    .withRequest('POST', '/v1/cap/onboarding/start', (b) =>
      b.headers({ Authorization: bearer() }).jsonBody({ persona: 'candidate' }),
    )
    .willRespondWith(201, (b) => b.jsonBody({ success: true, data: summary('draft') }));
  cap
    .addInteraction()
    .given('a user with an onboarding', started)
    .uponReceiving("a list of the caller's onboardings")
    .withRequest('GET', '/v1/cap/onboarding/mine', (b) => b.headers({ Authorization: bearer() }))
    .willRespondWith(200, (b) => b.jsonBody({ success: true, data: { onboardings: eachLike(summary('draft')) } }));
  cap
    .addInteraction()
    .given('a user with an onboarding', started)
    .uponReceiving('a read of the candidate onboarding')
    .withRequest('GET', '/v1/cap/onboarding/candidate', (b) => b.headers({ Authorization: bearer() }))
    .willRespondWith(200, (b) => b.jsonBody({ success: true, data: { ...summary('draft'), data: {} } }));
  cap
    .addInteraction()
    .given('a user with an onboarding', started)
    .uponReceiving('a save of the complete candidate draft')
    .withRequest('PATCH', '/v1/cap/onboarding/candidate/save', (b) =>
      b.headers({ Authorization: bearer() }).jsonBody(candidateDraft),
    )
    .willRespondWith(200, (b) =>
      b.jsonBody({ success: true, data: { ...summary('draft'), data: like(candidateDraft) } }),
    );
  await cap
    .addInteraction()
    .given('a user with an onboarding', { persona: 'candidate', stage: 'saved' })
    .uponReceiving('a submit of the candidate onboarding')
    .withRequest('POST', '/v1/cap/onboarding/candidate/submit', (b) => b.headers({ Authorization: bearer() }))
    .willRespondWith(200, (b) => b.jsonBody({ success: true, data: summary('completed') }))
    .executeTest(async (mock) => {
      await runScenario(
        t,
        await mockGateway(t, { cap: mock.url }),
        `
name: candidate onboarding
steps:${step('start', 'method: POST, path: /v1/cap/onboarding/start, body: { persona: candidate }', '{ status: 201 }')}
${step('mine', 'method: GET, path: /v1/cap/onboarding/mine')}
${step('read', 'method: GET, path: /v1/cap/onboarding/candidate')}
${step('save', `method: PATCH, path: /v1/cap/onboarding/candidate/save, body: ${JSON.stringify(candidateDraft)}`)}
${step('submit', 'method: POST, path: /v1/cap/onboarding/candidate/submit', '{ body: { data.status: completed } }')}
`,
      );
    });
});

/** One acting-context rule: GET /v1/cap/context with these persona headers, as capctl run sends it. */
async function contextRule(
  t: ExecutionContext,
  rule: {
    description: string;
    state: string;
    params?: { personas: string[] };
    headers: Record<string, string>;
    status: number;
    body: unknown;
  },
) {
  await capPact()
    .addInteraction()
    .given(rule.state, rule.params)
    .uponReceiving(rule.description)
    .withRequest('GET', '/v1/cap/context', (b) => b.headers({ Authorization: bearer(), ...rule.headers }))
    .willRespondWith(rule.status, (b) => b.jsonBody(rule.body))
    .executeTest(async (mock) => {
      const headers = Object.entries(rule.headers)
        .map(([name, value]) => `, ${name}: "${value}"`)
        .join('');
      await runScenario(
        t,
        await mockGateway(t, { cap: mock.url }),
        `
name: ${rule.description}
steps:
  - id: context
    http: { method: GET, path: /v1/cap/context, headers: { Authorization: "Bearer ${exampleAccessToken}"${headers} } }
    expect: { status: ${rule.status} }
`,
      );
    });
}

test.serial('with no persona header, the only persona held is the acting context', (t) =>
  contextRule(t, {
    description: 'a context request without persona headers from a candidate',
    state: 'a user holding personas',
    params: { personas: ['candidate'] },
    headers: {},
    status: 200,
    body: { success: true, data: { persona: 'candidate' } },
  }),
);

test.serial('a caller holding no persona is 403 auth.persona_required', (t) =>
  contextRule(t, {
    description: 'a context request without persona headers from a user holding no persona',
    state: 'a verified user',
    headers: {},
    status: 403,
    body: errorBody('auth.persona_required'),
  }),
);

test.serial('a persona the caller does not hold is 403 auth.persona_not_held', (t) =>
  contextRule(t, {
    description: 'a context request as a centre from a candidate',
    state: 'a user holding personas',
    params: { personas: ['candidate'] },
    headers: { 'X-CAP-PERSONA': 'centre' },
    status: 403,
    body: errorBody('auth.persona_not_held'),
  }),
);

test.serial('no persona header with two personas held is 400 auth.persona_ambiguous', (t) =>
  contextRule(t, {
    description: 'a context request without persona headers from a candidate who is also an assessor',
    state: 'a user holding personas',
    params: { personas: ['candidate', 'assessor'] },
    headers: {},
    status: 400,
    body: errorBody('auth.persona_ambiguous'),
  }),
);

test.serial('a centre header with another persona is 400 auth.centre_header_not_allowed', (t) =>
  contextRule(t, {
    description: 'a context request as a candidate naming a centre',
    state: 'a user holding personas',
    params: { personas: ['candidate'] },
    headers: { 'X-CAP-PERSONA': 'candidate', 'X-CAP-CENTRE-ID': '01J9Z8X7W6V5T4S3R2Q1P0CENT' },
    status: 400,
    body: errorBody('auth.centre_header_not_allowed'),
  }),
);

// --- The other CAP steps of the bundled scenarios, as capctl run makes them -------------------------

const drafts = loadDrafts('cap');
const onboarding = (persona: string, stage: 'started' | 'saved' | 'submitted'): State => [
  'a user with an onboarding',
  { persona, stage },
];
const holding = (...personas: string[]): State => ['a user holding personas', { personas }];
const verified: State = ['a verified user'];
const superAdmin: State = ['a centre with a super admin'];
const member = (params: { role?: string; status?: string; centres?: number } = {}): State => [
  'a centre staff member',
  params,
];
const withStaff = (status: 'pending' | 'active' | 'inactive'): State => ['a centre with a staff member', { status }];

const centreId = fromProviderState('${centreId}', '01J9Z8X7W6V5T4S3R2Q1P0CENT');
const asCentre = { 'X-CAP-PERSONA': 'centre', 'X-CAP-CENTRE-ID': centreId };
const otherCentre = '01J9Z8X7W6V5T4S3R2Q1P0XTRA';

/** GET /me's data; the fields not given are a new user's. */
const me = (fields: Record<string, unknown> = {}) => ({
  success: true,
  data: {
    userId: ulid(),
    email: email(),
    identityVerified: false,
    candidate: null,
    centres: [],
    assessor: null,
    awardingBody: null,
    ...fields,
  },
});
const centreHeld = (role: string) => ({
  centreId: ulid(),
  name: string('Lagos Skills Centre'),
  role,
  status: 'operable',
});
const withDetails = (code: string, field: string) => ({
  ...errorBody(code),
  error: { ...errorBody(code).error, details: eachLike({ field: string(field), issue: string('is required') }) },
});
const staffMember = (role: string, status: string) => ({
  id: ulid(),
  email: email(),
  name: string('Bola Ade'),
  role,
  status,
  createdAt: isoDateTime(),
});
// In a list, whose items may be anyone's, only what every member has: a name is optional.
const staffItem = (role: string, status: string) => {
  const { name: _name, ...always } = staffMember(role, status);
  return always;
};
const pagination = { pagination: { nextCursor: null, hasMore: false, limit: integer(20) } };
const context = (data: Record<string, unknown>) => ({ success: true, data });
const adminCentre = {
  id: ulid(),
  name: string('Port Harcourt Skills Academy'),
  registrationNo: string('RC-104233'),
  status: 'approved',
  createdAt: isoDateTime(),
};

type Rule = StepInteraction & { rule: string };
const get = (path: StepInteraction['path'], rest: Omit<Rule, 'method' | 'path'>): Rule => ({
  method: 'GET',
  path,
  ...rest,
});

// Onboarding (candidate-signup, persona-rules, centre-staff, identity-verification).
stepTests(test, capPact, 'cap', [
  get('/v1/cap/onboarding/mine', {
    rule: 'before any onboarding the list is empty',
    description: "a list of the caller's onboardings before any",
    states: [verified],
    status: 200,
    response: { success: true, data: { onboardings: [] } },
  }),
  get('/v1/cap/onboarding/mine', {
    rule: 'a completed onboarding is listed completed',
    description: "a list of the caller's completed onboardings",
    states: [onboarding('candidate', 'submitted')],
    status: 200,
    response: { success: true, data: { onboardings: eachLike(summary('completed')) } },
  }),
  get('/v1/cap/onboarding/mine', {
    rule: 'a centre staff member holds a completed centre onboarding',
    description: 'a list of the onboardings of a centre staff member',
    states: [member()],
    status: 200,
    response: { success: true, data: { onboardings: eachLike(summary('completed', 'centre')) } },
  }),
  {
    rule: 'starting again is 409 onboarding.already_started',
    description: 'a second start of the candidate onboarding',
    states: [onboarding('candidate', 'started')],
    method: 'POST',
    path: '/v1/cap/onboarding/start',
    body: { persona: 'candidate' },
    status: 409,
    response: errorBody('onboarding.already_started'),
  },
  {
    rule: 'the awarding body onboarding needs an invitation (403 onboarding.invite_required)',
    description: 'a start of the awarding body onboarding',
    states: [verified],
    method: 'POST',
    path: '/v1/cap/onboarding/start',
    body: { persona: 'awarding_body' },
    status: 403,
    response: errorBody('onboarding.invite_required'),
  },
  {
    rule: 'onboarding ignores the persona header',
    description: 'a start of the candidate onboarding naming another persona',
    states: [verified],
    method: 'POST',
    path: '/v1/cap/onboarding/start',
    headers: { 'X-CAP-PERSONA': 'centre' },
    body: { persona: 'candidate' },
    status: 201,
    response: { success: true, data: summary('draft') },
  },
  ...['centre', 'assessor'].flatMap((persona): Rule[] => [
    {
      rule: `the ${persona} onboarding starts`,
      description: `a start of the ${persona} onboarding`,
      states: [verified],
      method: 'POST',
      path: '/v1/cap/onboarding/start',
      body: { persona },
      status: 201,
      response: { success: true, data: summary('draft', persona) },
    },
    {
      rule: `the complete ${persona} draft saves`,
      description: `a save of the complete ${persona} draft`,
      states: [onboarding(persona, 'started')],
      method: 'PATCH',
      path: `/v1/cap/onboarding/${persona}/save`,
      body: drafts[persona],
      status: 200,
      response: { success: true, data: { ...summary('draft', persona), data: like(drafts[persona]) } },
    },
    {
      rule: `the ${persona} onboarding submits`,
      description: `a submit of the ${persona} onboarding`,
      states: [onboarding(persona, 'saved')],
      method: 'POST',
      path: `/v1/cap/onboarding/${persona}/submit`,
      status: 200,
      response: { success: true, data: summary('completed', persona) },
    },
  ]),
  {
    rule: 'a save of part of the draft answers the merged draft',
    description: 'a save of part of the candidate draft',
    states: [onboarding('candidate', 'started')],
    method: 'PATCH',
    path: '/v1/cap/onboarding/candidate/save',
    body: { personalDetails: { firstName: 'Ada', lastName: 'Obi' } },
    status: 200,
    response: {
      success: true,
      data: { ...summary('draft'), data: like({ personalDetails: { firstName: 'Ada', lastName: 'Obi' } }) },
    },
  },
  {
    rule: 'an identity number is not part of the draft (422)',
    description: 'a save of a candidate draft with an identity number',
    states: [onboarding('candidate', 'started')],
    method: 'PATCH',
    path: '/v1/cap/onboarding/candidate/save',
    body: { personalDetails: { nin: '10012345678' } },
    status: 422,
    response: withDetails('validation.failed', 'personalDetails.nin'),
  },
  {
    rule: 'submitting an empty draft is 422 onboarding.incomplete',
    description: 'a submit of an empty candidate draft',
    states: [onboarding('candidate', 'started')],
    method: 'POST',
    path: '/v1/cap/onboarding/candidate/submit',
    status: 422,
    response: withDetails('onboarding.incomplete', 'personalDetails.firstName'),
  },
  {
    rule: 'a second submit is 409 onboarding.already_completed',
    description: 'a second submit of the candidate onboarding',
    states: [onboarding('candidate', 'submitted')],
    method: 'POST',
    path: '/v1/cap/onboarding/candidate/submit',
    status: 409,
    response: errorBody('onboarding.already_completed'),
  },
]);

// Who am I: /me and the profile.
stepTests(test, capPact, 'cap', [
  get('/v1/cap/me', {
    rule: '/me ignores persona headers',
    description: "a read of the caller's CAP account naming a persona not held",
    states: [verified],
    headers: { 'X-CAP-PERSONA': 'assessor', 'X-CAP-CENTRE-ID': otherCentre },
    status: 200,
    response: me(),
  }),
  get('/v1/cap/me', {
    rule: 'with a draft the candidate persona needs onboarding',
    description: 'a read of the CAP account of a candidate with a draft',
    states: [onboarding('candidate', 'started')],
    status: 200,
    response: me({ candidate: { status: 'onboarding_required' } }),
  }),
  get('/v1/cap/me', {
    rule: 'a completed onboarding makes the candidate persona operable',
    description: 'a read of the CAP account of a candidate',
    states: [holding('candidate')],
    status: 200,
    response: me({ candidate: { status: 'operable' } }),
  }),
  get('/v1/cap/me', {
    rule: '/me shows both personas of a candidate who is also an assessor',
    description: 'a read of the CAP account of a candidate who is also an assessor',
    states: [holding('candidate', 'assessor')],
    status: 200,
    response: me({ candidate: { status: 'operable' }, assessor: { status: 'operable' } }),
  }),
  get('/v1/cap/me', {
    rule: 'a verified identity shows on /me',
    description: 'a read of the CAP account of a user with a verified identity',
    states: [['a user with an identity verified']],
    status: 200,
    response: me({ identityVerified: true, candidate: { status: 'onboarding_required' } }),
  }),
  get('/v1/cap/me', {
    rule: "/me lists the super admin's centre",
    description: 'a read of the CAP account of a centre super admin',
    states: [superAdmin],
    status: 200,
    response: me({ centres: eachLike(centreHeld('super_admin')) }),
  }),
  get('/v1/cap/me', {
    rule: "/me lists a staff member's centre with their role",
    description: 'a read of the CAP account of a centre staff member',
    states: [member()],
    status: 200,
    response: me({ centres: eachLike(centreHeld('staff')) }),
  }),
  get('/v1/cap/me', {
    rule: '/me lists both centres of a staff member of two',
    description: 'a read of the CAP account of a staff member of two centres',
    states: [member({ centres: 2 })],
    status: 200,
    response: me({ centres: eachLike(centreHeld('staff'), 2) }),
  }),
  get('/v1/cap/me/profile', {
    rule: 'a completed onboarding seeds the profile',
    description: 'a read of the profile of a candidate',
    states: [holding('candidate')],
    status: 200,
    response: {
      success: true,
      data: {
        identityVerified: false,
        personalDetails: like(drafts.candidate!.personalDetails),
        contactInformation: like(drafts.candidate!.contactInformation),
        residentialAddress: like(drafts.candidate!.residentialAddress),
      },
    },
  }),
  get('/v1/cap/me/profile', {
    rule: 'the profile carries the verified flag',
    description: 'a read of the profile of a candidate with a verified identity',
    states: [['a user with an identity verified', { stage: 'submitted' }]],
    status: 200,
    response: {
      success: true,
      data: { identityVerified: true, personalDetails: like(drafts.candidate!.personalDetails) },
    },
  }),
]);

// Identity verification.
const identityRequest = (nin: string) => ({
  method: 'POST' as const,
  path: '/v1/cap/identity-verification',
  body: { type: 'nin', identificationNumber: nin },
});
stepTests(test, capPact, 'cap', [
  {
    rule: 'with no name or date of birth saved the check is 422 identity.details_missing',
    description: 'an identity verification with no name or date of birth saved',
    states: [onboarding('candidate', 'started')],
    ...identityRequest('10000000001'),
    status: 422,
    response: withDetails('identity.details_missing', 'personalDetails.firstName'),
  },
  {
    rule: 'a number that is not 11 digits is 422',
    description: 'an identity verification with a malformed number',
    states: [onboarding('candidate', 'saved')],
    ...identityRequest('12345'),
    status: 422,
    response: withDetails('validation.failed', 'identificationNumber'),
  },
  {
    rule: 'a number the provider does not match is 422 identity.not_verified with the outcome',
    description: 'an identity verification with a number that does not match',
    states: [onboarding('candidate', 'saved')],
    ...identityRequest('20000000001'),
    status: 422,
    response: errorBody('identity.not_verified', [{ field: 'identificationNumber', issue: 'name_mismatch' }]),
  },
  {
    rule: 'a valid number verifies',
    description: 'an identity verification with a number that matches',
    states: [onboarding('candidate', 'saved')],
    ...identityRequest('10000000001'),
    status: 200,
    response: { success: true, data: { verified: true, verifiedAt: isoDateTime(), provider: string('sandbox') } },
  },
  {
    rule: 'verifying again is fine',
    description: 'a second identity verification with a number that matches',
    states: [['a user with an identity verified']],
    ...identityRequest('10000000001'),
    status: 200,
    response: { success: true, data: { verified: true, verifiedAt: isoDateTime(), provider: string('sandbox') } },
  },
  {
    rule: 'a later failed check is 422 and does not undo the verification',
    description: 'a later identity verification with a number that does not match',
    states: [['a user with an identity verified']],
    ...identityRequest('30000000001'),
    status: 422,
    response: errorBody('identity.not_verified', [{ field: 'identificationNumber', issue: 'dob_mismatch' }]),
  },
]);

// The acting context (persona-rules, centre-staff, admin-creates-centre).
const contextRequest = (
  description: string,
  rule: string,
  states: State[],
  headers: StepInteraction['headers'],
  status: number,
  response: unknown,
): Rule => get('/v1/cap/context', { rule, description, states, headers, status, response });
stepTests(test, capPact, 'cap', [
  {
    ...contextRequest(
      'a context request without a token',
      'without a bearer token the context is 401',
      [],
      undefined,
      401,
      errorBody('auth.unauthenticated'),
    ),
    signedIn: false,
  },
  contextRequest(
    'a context request naming a persona outside the vocabulary',
    'a persona outside the vocabulary is 422 on the header',
    [verified],
    { 'X-CAP-PERSONA': 'wizard' },
    422,
    withDetails('validation.failed', 'header.x-cap-persona'),
  ),
  contextRequest(
    'a context request as a candidate from a user holding no persona',
    'the header selects, it does not grant (403 persona_not_held)',
    [verified],
    { 'X-CAP-PERSONA': 'candidate' },
    403,
    errorBody('auth.persona_not_held'),
  ),
  contextRequest(
    'a context request as a candidate from a candidate',
    'naming the held persona resolves to it',
    [holding('candidate')],
    { 'X-CAP-PERSONA': 'candidate' },
    200,
    context({ persona: 'candidate' }),
  ),
  contextRequest(
    'a context request as an assessor from a candidate',
    'naming assessor, not held, is 403 persona_not_held',
    [holding('candidate')],
    { 'X-CAP-PERSONA': 'assessor' },
    403,
    errorBody('auth.persona_not_held'),
  ),
  contextRequest(
    'a context request with only a centre header from a candidate',
    'a centre header alone with a candidate default is 400 centre_header_not_allowed',
    [holding('candidate')],
    { 'X-CAP-CENTRE-ID': otherCentre },
    400,
    errorBody('auth.centre_header_not_allowed'),
  ),
  contextRequest(
    'a context request as a candidate from a candidate who is also an assessor',
    'the header picks the candidate hat',
    [holding('candidate', 'assessor')],
    { 'X-CAP-PERSONA': 'candidate' },
    200,
    context({ persona: 'candidate' }),
  ),
  contextRequest(
    'a context request as an assessor from a candidate who is also an assessor',
    'the header picks the assessor hat',
    [holding('candidate', 'assessor')],
    { 'X-CAP-PERSONA': 'assessor' },
    200,
    context({ persona: 'assessor' }),
  ),
  contextRequest(
    'a context request as a centre from a candidate who is also an assessor',
    'neither hat is centre (403 persona_not_held)',
    [holding('candidate', 'assessor')],
    { 'X-CAP-PERSONA': 'centre' },
    403,
    errorBody('auth.persona_not_held'),
  ),
  contextRequest(
    'a context request without headers from a centre super admin',
    'with no headers the only persona and centre are used',
    [superAdmin],
    undefined,
    200,
    context({ persona: 'centre', centreId: ulid(), role: 'super_admin' }),
  ),
  contextRequest(
    "a context request naming the super admin's centre",
    'naming the persona and centre resolves to the same context',
    [superAdmin],
    asCentre,
    200,
    context({ persona: 'centre', centreId: ulid(), role: 'super_admin' }),
  ),
  contextRequest(
    'a context request naming a centre the super admin does not hold',
    'a centre where the caller is not staff is 403 centre_not_held',
    [superAdmin],
    { 'X-CAP-PERSONA': 'centre', 'X-CAP-CENTRE-ID': otherCentre },
    403,
    errorBody('auth.centre_not_held'),
  ),
  contextRequest(
    'a context request naming a malformed centre id',
    'a centre id that is not a ULID is 422 on the header',
    [superAdmin],
    { 'X-CAP-PERSONA': 'centre', 'X-CAP-CENTRE-ID': 'centre-1' },
    422,
    withDetails('validation.failed', 'header.x-cap-centre-id'),
  ),
  contextRequest(
    'a context request as a centre from a centre staff member',
    'a staff member acts for their centre with the staff role',
    [member()],
    { 'X-CAP-PERSONA': 'centre' },
    200,
    context({ persona: 'centre', centreId: ulid(), role: 'staff' }),
  ),
  contextRequest(
    'a context request as a centre from a deactivated staff member',
    'an inactive member no longer holds the centre persona (403)',
    [member({ status: 'inactive' })],
    { 'X-CAP-PERSONA': 'centre' },
    403,
    errorBody('auth.persona_not_held'),
  ),
  contextRequest(
    'a context request without headers from a staff member of two centres',
    'two centres and no centre header is 400 centre_ambiguous',
    [member({ centres: 2 })],
    undefined,
    400,
    errorBody('auth.centre_ambiguous'),
  ),
  contextRequest(
    'a context request as a centre from a staff member of two centres',
    'naming the persona does not settle which centre (400 centre_ambiguous)',
    [member({ centres: 2 })],
    { 'X-CAP-PERSONA': 'centre' },
    400,
    errorBody('auth.centre_ambiguous'),
  ),
  contextRequest(
    'a context request naming one centre of a staff member of two',
    'the centre header picks the centre, with the role held there',
    [member({ centres: 2, role: 'regular_admin' })],
    asCentre,
    200,
    context({ persona: 'centre', centreId: ulid(), role: 'regular_admin' }),
  ),
  contextRequest(
    'a context request with only a centre header from a staff member of two centres',
    'the centre header alone is enough when centre is the only persona',
    [member({ centres: 2 })],
    { 'X-CAP-CENTRE-ID': centreId },
    200,
    context({ persona: 'centre', centreId: ulid(), role: 'staff' }),
  ),
]);

// Centre staff (centre-staff, persona-rules, admin-creates-centre).
const staffPath = '/v1/cap/centre/staff';
stepTests(test, capPact, 'cap', [
  get(staffPath, {
    rule: 'the staff list of a new centre holds its super admin',
    description: 'a read of the staff list of a new centre',
    states: [superAdmin],
    headers: asCentre,
    status: 200,
    response: { success: true, data: eachLike(staffItem('super_admin', 'active')), meta: pagination },
  }),
  get(staffPath, {
    rule: 'every role may read the staff list',
    description: 'a read of the staff list by a staff member',
    states: [member()],
    headers: { 'X-CAP-PERSONA': 'centre' },
    status: 200,
    response: { success: true, data: eachLike(staffItem('super_admin', 'active'), 2), meta: pagination },
  }),
  {
    rule: 'a super admin adds a person with no account yet, who is pending',
    description: 'an addition of a new address as staff',
    states: [superAdmin],
    method: 'POST',
    path: staffPath,
    headers: asCentre,
    body: { name: 'Bola Ade', email: fromProviderState('${newStaffEmail}', 'bola@example.test'), role: 'staff' },
    status: 201,
    response: { success: true, data: staffMember('staff', 'pending') },
  },
  {
    rule: 'a CAP user added as staff is invited, pending like anyone added',
    description: 'an addition of a CAP user as a regular admin',
    states: [['a centre with a super admin and another CAP user']],
    method: 'POST',
    path: staffPath,
    headers: asCentre,
    body: {
      name: 'New Comer',
      email: fromProviderState('${otherEmail}', 'newcomer@example.test'),
      role: 'regular_admin',
    },
    status: 201,
    response: { success: true, data: staffMember('regular_admin', 'pending') },
  },
  {
    rule: 'adding the same email again is 409 centre.staff_exists',
    description: 'an addition of someone who is already staff',
    states: [withStaff('pending')],
    method: 'POST',
    path: staffPath,
    headers: asCentre,
    body: { name: 'Bola Ade', email: fromProviderState('${staffEmail}', 'bola@example.test'), role: 'staff' },
    status: 409,
    response: errorBody('centre.staff_exists'),
  },
  {
    rule: 'the staff role cannot add staff (403 centre.role_forbidden)',
    description: 'an addition of staff by a staff member',
    states: [member()],
    method: 'POST',
    path: staffPath,
    headers: { 'X-CAP-PERSONA': 'centre' },
    body: { name: 'Someone Else', email: 'someone-else@example.test', role: 'staff' },
    status: 403,
    response: errorBody('centre.role_forbidden'),
  },
  get(
    fromProviderState(`${staffPath}/\${staffId}`, `${staffPath}/01J9Z8X7W6V5T4S3R2Q1P0STAF`) as StepInteraction['path'],
    {
      rule: 'the staff detail shows the member with their workload',
      description: 'a read of a staff member',
      states: [withStaff('active')],
      headers: asCentre,
      status: 200,
      response: {
        success: true,
        data: {
          ...staffMember('staff', 'active'),
          workload: { assigned: integer(0), ongoing: integer(0), completed: integer(0) },
        },
      },
    },
  ),
  get(`${staffPath}/summary`, {
    rule: 'the summary counts the members by status',
    description: 'a read of the staff summary',
    states: [withStaff('pending')],
    headers: asCentre,
    status: 200,
    response: { success: true, data: { total: 2, active: 1, pending: 1, inactive: 0 } },
  }),
  {
    rule: 'the super admin deactivates a member',
    description: 'a deactivation of a staff member',
    states: [withStaff('active')],
    method: 'PATCH',
    path: staffPath,
    headers: asCentre,
    body: { ids: [fromProviderState('${staffId}', '01J9Z8X7W6V5T4S3R2Q1P0STAF')], status: 'inactive' },
    status: 200,
    response: { success: true, data: eachLike(staffItem('staff', 'inactive')) },
  },
  {
    rule: 'the super admin activates a member again',
    description: 'an activation of a deactivated staff member',
    states: [withStaff('inactive')],
    method: 'PATCH',
    path: staffPath,
    headers: asCentre,
    body: { ids: [fromProviderState('${staffId}', '01J9Z8X7W6V5T4S3R2Q1P0STAF')], status: 'active' },
    status: 200,
    response: { success: true, data: eachLike(staffItem('staff', 'active')) },
  },
  {
    rule: 'a super admin cannot deactivate themselves (409 centre.self_deactivation)',
    description: 'a deactivation of the super admin by themselves',
    states: [superAdmin],
    method: 'PATCH',
    path: staffPath,
    headers: asCentre,
    body: { ids: [fromProviderState('${superAdminStaffId}', '01J9Z8X7W6V5T4S3R2Q1P0SPAD')], status: 'inactive' },
    status: 409,
    response: errorBody('centre.self_deactivation'),
  },
]);

// Platform admins (admin-creates-centre).
const adminCentres = '/v1/cap/admin/centres';
const admin: State = ['a platform admin'];
stepTests(test, capPact, 'cap', [
  get(adminCentres, {
    rule: 'the admins find no centre with an unused registration number',
    description: "a search of the admins' centre list with no match",
    states: [admin],
    query: { q: 'RC-01J9Z8X7W6V5T4S3R2Q1P0NONE' },
    status: 200,
    response: { success: true, data: [], meta: pagination },
  }),
  get(adminCentres, {
    rule: 'the admins find a centre by its registration number',
    description: "a search of the admins' centre list by registration number",
    states: [['a centre created by a platform admin']],
    query: { q: fromProviderState('${registrationNo}', 'RC-104233') },
    status: 200,
    response: { success: true, data: eachLike(adminCentre), meta: pagination },
  }),
  {
    rule: 'a centre without its super admin is 422',
    description: 'a creation of a centre without its super admin',
    states: [admin],
    method: 'POST',
    path: adminCentres,
    body: {
      name: 'Port Harcourt Skills Academy',
      registrationNo: fromProviderState('${unusedRegistrationNo}', 'RC-104233'),
    },
    status: 422,
    response: withDetails('validation.failed', 'superAdmin'),
  },
  {
    rule: 'a platform admin creates an approved centre and invites its super admin',
    description: 'a creation of a centre with its super admin',
    states: [admin],
    method: 'POST',
    path: adminCentres,
    body: {
      name: 'Port Harcourt Skills Academy',
      registrationNo: fromProviderState('${unusedRegistrationNo}', 'RC-104233'),
      address: { country: 'Nigeria', state: 'Rivers', lga: 'Obio-Akpor', address: '40 Aba Road' },
      superAdmin: { name: 'Tari Briggs', email: fromProviderState('${unusedEmail}', 'tari@example.test') },
    },
    status: 201,
    response: { success: true, data: adminCentre },
  },
  get(adminCentres, {
    rule: 'running a centre does not make one a platform admin (403)',
    description: "a read of the admins' centre list by a centre super admin",
    states: [superAdmin],
    status: 403,
    response: errorBody('auth.permission_denied'),
  }),
  {
    rule: 'nor can a centre super admin create centres (403)',
    description: 'a creation of a centre by a centre super admin',
    states: [superAdmin],
    method: 'POST',
    path: adminCentres,
    body: {
      name: 'Another Centre',
      registrationNo: 'X-RC-104233',
      superAdmin: { name: 'Someone', email: 'someone@example.test' },
    },
    status: 403,
    response: errorBody('auth.permission_denied'),
  },
]);

// The catalogue (capctl seed, catalogue.yaml): the admin calls seeding makes, and the public reads.
const catalogue: State = ['a platform admin with a catalogue trade'];
const sectorId = fromProviderState('${sectorId}', '01J9Z8X7W6V5T4S3R2Q1P0SECT');
const tradeId = fromProviderState('${tradeId}', '01J9Z8X7W6V5T4S3R2Q1P0TRAD');
const tradePath = (suffix = '') =>
  fromProviderState(`/v1/cap/trades/\${tradeId}${suffix}`, `/v1/cap/trades/01J9Z8X7W6V5T4S3R2Q1P0TRAD${suffix}`);
const adminTradePath = (suffix = '') =>
  fromProviderState(
    `/v1/cap/admin/trades/\${tradeId}${suffix}`,
    `/v1/cap/admin/trades/01J9Z8X7W6V5T4S3R2Q1P0TRAD${suffix}`,
  );
const outcome = {
  id: ulid(),
  reference: string('LO1'),
  description: string('Identify hazards'),
  performanceCriteria: eachLike({ reference: string('PC1.1'), description: string('Name the hazards') }),
};
const unit = {
  id: ulid(),
  referenceNumber: string('CAT/L1/01'),
  title: string('Work safely'),
  isMandatory: boolean(true),
  assessmentMethods: [],
  structure: { learningOutcomes: eachLike(outcome) },
  level: integer(1),
};
const adminTrade = {
  id: ulid(),
  sectorId: ulid(),
  slug: string('masonry'),
  name: string('Masonry'),
  sectorName: string('Building and Construction'),
  status: 'active',
  evidenceTypes: eachLike(string('Photographs of completed work')),
  createdAt: isoDateTime(),
  updatedAt: isoDateTime(),
};
const nosDocument = {
  title: 'Masonry (NOS)',
  levels: [
    {
      level: 1,
      purpose: 'Works safely under supervision.',
      units: [
        {
          referenceNumber: 'MAS/L1/01',
          title: 'Work safely on site',
          isMandatory: true,
          learningOutcomes: [
            {
              reference: 'LO1',
              description: 'Identify hazards',
              performanceCriteria: [{ reference: 'PC1.1', description: 'Name the hazards' }],
            },
          ],
        },
      ],
    },
  ],
};
const csvHeader =
  'level,level_purpose,unit_reference,unit_title,unit_mandatory,unit_credit_value,unit_guided_learning_hours,unit_purpose,unit_assessment_methods,outcome_reference,outcome_description,criterion_reference,criterion_description';
stepTests(test, capPact, 'cap', [
  get('/v1/cap/admin/sectors', {
    rule: 'seeding finds no sector with an unused slug',
    description: 'a search of the admin sector list by an unused slug',
    states: [catalogue],
    query: { slug: fromProviderState('${unusedSlug}', 'unused-slug') },
    status: 200,
    response: { success: true, data: [], meta: pagination },
  }),
  {
    rule: 'a platform admin creates a sector with the slug given',
    description: 'a creation of a sector',
    states: [catalogue],
    method: 'POST',
    path: '/v1/cap/admin/sectors',
    body: {
      slug: fromProviderState('${unusedSlug}', 'unused-slug'),
      name: 'Renewable Energy',
      description: 'Solar and wind trades.',
    },
    status: 201,
    response: {
      success: true,
      data: {
        id: ulid(),
        slug: string('unused-slug'),
        name: 'Renewable Energy',
        description: 'Solar and wind trades.',
        tradeCount: 0,
        archivedTradeCount: 0,
        createdAt: isoDateTime(),
        updatedAt: isoDateTime(),
      },
    },
  },
  get('/v1/cap/admin/trades', {
    rule: 'seeding finds a trade by its slug',
    description: 'a search of the admin trade list by slug',
    states: [catalogue],
    query: { slug: fromProviderState('${tradeSlug}', 'masonry') },
    status: 200,
    response: { success: true, data: eachLike(adminTrade), meta: pagination },
  }),
  {
    rule: 'a new trade gets a stub NOS with levels 1 to 5',
    description: 'a creation of a trade',
    states: [catalogue],
    method: 'POST',
    path: '/v1/cap/admin/trades',
    body: { sectorId, slug: fromProviderState('${unusedSlug}', 'unused-slug'), name: 'Tiling', description: null },
    status: 201,
    response: {
      success: true,
      data: {
        ...adminTrade,
        activeNosDocument: { id: ulid(), version: 1, title: string('Tiling (NOS)'), levelCount: 5, unitCount: 0 },
      },
    },
  },
  get(adminTradePath(), {
    rule: 'the admin trade detail holds the active NOS in the import shape',
    description: 'a read of a trade with its NOS',
    states: [catalogue],
    status: 200,
    response: {
      success: true,
      data: {
        ...adminTrade,
        nos: like({
          id: ulid(),
          version: integer(2),
          title: string('Masonry (NOS)'),
          levels: eachLike({ level: integer(1), purpose: string('Works safely'), units: [] }),
        }),
        nosVersions: eachLike({
          id: ulid(),
          version: integer(2),
          title: string('Masonry (NOS)'),
          status: string('active'),
          createdAt: isoDateTime(),
        }),
      },
    },
  }),
  {
    rule: 'a NOS import makes the next version and supersedes the active one',
    description: 'an import of a NOS document',
    states: [catalogue],
    method: 'POST',
    path: adminTradePath('/nos'),
    body: nosDocument,
    status: 201,
    response: {
      success: true,
      data: {
        dryRun: false,
        tradeId: ulid(),
        id: ulid(),
        version: 3,
        supersedes: 2,
        title: 'Masonry (NOS)',
        counts: { levels: 1, units: 1, learningOutcomes: 1, performanceCriteria: 1 },
      },
    },
  },
  {
    rule: 'a CSV import with bad rows reports each row and writes nothing',
    description: 'an import of a NOS document from CSV with a bad row',
    states: [catalogue],
    method: 'POST',
    path: adminTradePath('/nos'),
    body: { csv: `${csvHeader}\nx,Not a level,MAS/L1/01,Title,yes,1,1,,,LO1,Outcome,PC1.1,Criterion\n` },
    status: 422,
    response: errorBody('catalogue.nos_invalid', [
      { field: 'body.csv.row[2].level', issue: 'must be a whole number from 1 to 8' },
    ]),
  },
  {
    rule: 'a sector with trades is not deleted (409)',
    description: 'a deletion of a sector that has a trade',
    states: [catalogue],
    method: 'DELETE',
    path: fromProviderState('/v1/cap/admin/sectors/${sectorId}', '/v1/cap/admin/sectors/01J9Z8X7W6V5T4S3R2Q1P0SECT'),
    status: 409,
    response: errorBody('catalogue.sector_not_empty'),
  },
  get('/v1/cap/sectors', {
    rule: 'anyone reads the sectors with their counts of active trades',
    description: 'a read of the public sector list',
    states: [catalogue],
    signedIn: false,
    status: 200,
    response: {
      success: true,
      data: eachLike({
        id: ulid(),
        slug: string('ict'),
        name: string('ICT'),
        description: string('Information and communication technology.'),
        tradeCount: integer(1),
      }),
    },
  }),
  get(tradePath(), {
    rule: 'anyone reads a trade with its active NOS',
    description: 'a read of a public trade',
    states: [catalogue],
    signedIn: false,
    status: 200,
    response: {
      success: true,
      data: {
        id: ulid(),
        sectorId: ulid(),
        slug: string('masonry'),
        name: string('Masonry'),
        description: null,
        activeNosDocument: {
          id: ulid(),
          tradeId: ulid(),
          version: integer(2),
          title: string('Masonry (NOS)'),
          status: 'active',
          qualificationLevels: eachLike({
            id: ulid(),
            level: integer(1),
            slug: string('masonry-level-1'),
            purpose: string('Works safely'),
            units: eachLike(unit),
          }),
        },
      },
    },
  }),
  get(tradePath('/units'), {
    rule: 'anyone reads the units of one level of a trade',
    description: 'a read of the units of level 1 of a trade',
    states: [catalogue],
    signedIn: false,
    query: { level: '1' },
    status: 200,
    response: { success: true, data: eachLike(unit) },
  }),
]);

// Applications and their payment (pay.yaml).
const withApplication = (stage: 'draft' | 'complete' | 'payment'): State => [
  'a candidate with an application',
  { stage },
];
const applicationId = fromProviderState('${applicationId}', '01J9Z8X7W6V5T4S3R2Q1P0APPL');
const applicationPath = (suffix = '') =>
  fromProviderState(
    `/v1/cap/applications/\${applicationId}${suffix}`,
    `/v1/cap/applications/01J9Z8X7W6V5T4S3R2Q1P0APPL${suffix}`,
  );
const asCandidate = { 'X-CAP-PERSONA': 'candidate' };
const named = { id: ulid(), name: string('Masonry'), slug: string('masonry') };
const application = (status: string, stage: string) => ({
  id: ulid(),
  candidateId: ulid(),
  centreId: ulid(),
  type: 'RPL',
  status,
  currentStageKey: stage,
  createdAt: isoDateTime(),
  updatedAt: isoDateTime(),
  ...(status === 'draft' ? {} : { submittedAt: isoDateTime() }),
  sectorId: ulid(),
  tradeId: ulid(),
  candidate: { id: ulid(), firstName: string('Ada'), lastName: string('Obi'), name: string('Ada Obi') },
  centre: { id: ulid(), name: string('Lagos Skills Centre') },
});
const applicationForm = {
  personalInformation: {
    personalDetails: {
      firstName: 'Ada',
      lastName: 'Obi',
      dob: '1990-04-12',
      gender: 'Female',
      nationality: 'Nigerian',
    },
    contactInformation: {
      emailAddress: 'ada@example.test',
      phoneNumber: { countryCode: '+NG', number: '+2348031234567' },
    },
    residentialAddress: { country: 'Nigeria', state: 'Lagos', address: '12 Allen Avenue' },
  },
  experienceAndTrade: {
    unitIds: [],
    currentOccupation: { occupation: 'Mason', yearsOfExperience: 6, employmentHistory: [] },
    reasonForSeekingRPL: 'Certification',
  },
  assessmentDeclaration: {
    infoProvidedIsAccurate: true,
    understandsDoesNotGuaranteeCertification: true,
    understandsThatNeedsToProvideSufficientEvidenceToDemonstrateCompetence: true,
    agreesToTermsAndPrivacyPolicy: true,
  },
};
stepTests(test, capPact, 'cap', [
  {
    rule: 'a candidate makes an RPL draft for a trade at an approved centre',
    description: 'a creation of an RPL application',
    states: [withApplication('payment')],
    method: 'POST',
    path: '/v1/cap/applications',
    headers: asCandidate,
    body: {
      type: 'RPL',
      sectorId: fromProviderState('${sectorId}', '01J9Z8X7W6V5T4S3R2Q1P0SECT'),
      tradeId: fromProviderState('${tradeId}', '01J9Z8X7W6V5T4S3R2Q1P0TRAD'),
      unitIds: [],
      centreId: fromProviderState('${centreId}', '01J9Z8X7W6V5T4S3R2Q1P0CENT'),
    },
    status: 201,
    response: { success: true, data: application('draft', 'application_form') },
  },
  {
    rule: 'a second draft at the same centre is 409 application.draft_exists (the client resumes)',
    description: 'a second creation of an RPL draft at the same centre',
    states: [withApplication('draft')],
    method: 'POST',
    path: '/v1/cap/applications',
    headers: asCandidate,
    body: {
      type: 'RPL',
      sectorId: fromProviderState('${sectorId}', '01J9Z8X7W6V5T4S3R2Q1P0SECT'),
      tradeId: fromProviderState('${tradeId}', '01J9Z8X7W6V5T4S3R2Q1P0TRAD'),
      unitIds: [],
      centreId: fromProviderState('${centreId}', '01J9Z8X7W6V5T4S3R2Q1P0CENT'),
    },
    status: 409,
    response: errorBody('application.draft_exists'),
  },
  get('/v1/cap/applications', {
    rule: 'a candidate lists their own applications',
    description: "a read of the candidate's applications",
    states: [withApplication('draft')],
    headers: asCandidate,
    status: 200,
    response: { success: true, data: eachLike(application('draft', 'application_form')), meta: pagination },
  }),
  get(applicationPath(), {
    rule: 'the application detail is flat',
    description: 'a read of an application',
    states: [withApplication('draft')],
    headers: asCandidate,
    status: 200,
    response: {
      success: true,
      data: {
        ...application('draft', 'application_form'),
        unitIds: [],
        identityVerified: boolean(false),
        identityFieldsLocked: false,
        reasonForSeekingRPL: null,
        evidenceCandidateCanProvide: null,
        assessmentDeclaration: null,
        personalInformation: like({}),
        currentOccupation: null,
        frozenProfile: null,
        internalVerifier: null,
        facilitator: null,
      },
    },
  }),
  {
    rule: 'the client sends all three sections together; they merge into the draft',
    description: 'a save of the whole application form',
    states: [withApplication('draft')],
    method: 'PATCH',
    path: applicationPath(),
    headers: asCandidate,
    body: applicationForm,
    status: 200,
    response: { success: true, data: application('draft', 'application_form') },
  },
  {
    rule: 'submitting an unfilled draft is 422 application.incomplete',
    description: 'a submit of an unfilled application',
    states: [withApplication('draft')],
    method: 'POST',
    path: applicationPath('/submit'),
    headers: asCandidate,
    status: 422,
    response: withDetails('application.incomplete', 'experienceAndTrade.currentOccupation.occupation'),
  },
  {
    rule: 'a complete form submits and waits for payment',
    description: 'a submit of a complete application',
    states: [withApplication('complete')],
    method: 'POST',
    path: applicationPath('/submit'),
    headers: asCandidate,
    status: 200,
    response: { success: true, data: application('in_progress', 'payment') },
  },
  get(applicationPath('/payment-quote'), {
    rule: 'the quote says whose price it is',
    description: 'a read of the payment quote of an application',
    states: [withApplication('payment')],
    headers: asCandidate,
    status: 200,
    response: {
      success: true,
      data: { amountMinorUnits: string('2500000'), currency: 'NGN', source: string('platform_floor') },
    },
  }),
  {
    rule: 'pay answers the payment and its checkout URL',
    description: 'a payment of an application',
    states: [withApplication('payment')],
    method: 'POST',
    path: applicationPath('/pay'),
    headers: asCandidate,
    status: 200,
    response: {
      success: true,
      data: {
        paymentId: ulid(),
        checkoutUrl: string('http://127.0.0.1:4000/v1/ol/payments/sandbox/checkout/PAY-01J9Z8X7W6V5T4S3R2Q1P0PAYM'),
      },
    },
  },
  {
    rule: 'an unpaid application is withdrawn without a refund',
    description: 'a withdrawal of an unpaid application',
    states: [withApplication('payment')],
    method: 'POST',
    path: applicationPath('/withdraw'),
    headers: asCandidate,
    body: { reason: 'Moving abroad' },
    status: 200,
    response: { success: true, data: { id: ulid(), status: 'withdrawn', currentStageKey: 'payment', refund: null } },
  },
  get(applicationPath('/stages'), {
    rule: 'the stages list the payment stage awaiting payment',
    description: 'a read of the stages of a submitted application',
    states: [withApplication('payment')],
    headers: asCandidate,
    status: 200,
    response: {
      success: true,
      data: [
        {
          stageKey: 'application_form',
          label: string('Application form'),
          status: 'successful',
          enteredAt: isoDateTime(),
          deadline: null,
          receipt: null,
        },
        {
          stageKey: 'payment',
          label: string('Payment'),
          status: 'awaiting_payment',
          enteredAt: isoDateTime(),
          deadline: null,
          receipt: null,
        },
        ...['folder_arrangement', 'interview', 'internal_verification', 'external_verification', 'certification'].map(
          (stageKey) => ({
            stageKey,
            label: string('A stage'),
            status: 'not_started',
            enteredAt: null,
            deadline: null,
            receipt: null,
          }),
        ),
      ],
    },
  }),
]);

// The rest of what the web client reads and writes around an application and the centre's money.
const ngnLike = (minor: string) => ({ amountMinorUnits: string(minor), currency: 'NGN' });
stepTests(test, capPact, 'cap', [
  get(applicationPath('/history'), {
    rule: 'a submitted form is kept as version 1',
    description: 'a read of the history of a submitted application',
    states: [withApplication('payment')],
    headers: asCandidate,
    status: 200,
    response: {
      success: true,
      data: eachLike({ versionNo: integer(1), data: like({}), submittedBy: ulid(), createdAt: isoDateTime() }),
    },
  }),
  get(applicationPath('/events'), {
    rule: 'the timeline has an event for the submit',
    description: 'a read of the timeline of a submitted application',
    states: [withApplication('payment')],
    headers: asCandidate,
    status: 200,
    response: {
      success: true,
      data: eachLike({
        id: ulid(),
        applicationId: ulid(),
        title: string('Application submitted'),
        description: string('The application was submitted.'),
        eventType: string('submit'),
        actorRole: string('candidate'),
        occurredAt: isoDateTime(),
        metadata: like({ fromStage: 'application_form', toStage: 'payment' }),
      }),
      meta: pagination,
    },
  }),
  get('/v1/cap/candidate/profile', {
    rule: "the candidate profile carries the onboarding's name",
    description: 'a read of the candidate profile',
    states: [withApplication('draft')],
    headers: asCandidate,
    status: 200,
    response: {
      success: true,
      data: { name: string('Ada Obi'), identityVerified: boolean(false), createdAt: isoDateTime() },
    },
  }),
  get('/v1/cap/candidate/events', {
    rule: "the candidate's timeline spans their applications",
    description: "a read of the candidate's timeline",
    states: [withApplication('payment')],
    headers: asCandidate,
    status: 200,
    response: {
      success: true,
      data: eachLike({
        id: ulid(),
        applicationId: ulid(),
        title: string('Application submitted'),
        description: string('The application was submitted.'),
        eventType: string('submit'),
        actorRole: string('candidate'),
        occurredAt: isoDateTime(),
        metadata: like({ fromStage: 'application_form', toStage: 'payment' }),
      }),
      meta: pagination,
    },
  }),
  get('/v1/cap/centre/pricing', {
    rule: 'a centre without prices lists none (the floors apply)',
    description: 'a read of the prices of a new centre',
    states: [superAdmin],
    headers: asCentre,
    status: 200,
    response: { success: true, data: [] },
  }),
  {
    rule: 'a price at or above the floor is set from now on',
    description: 'a setting of the RPL price',
    states: [superAdmin],
    method: 'POST',
    path: '/v1/cap/centre/pricing',
    headers: asCentre,
    body: { applicationType: 'RPL', price: { amountMinorUnits: '3000000', currency: 'NGN' } },
    status: 201,
    response: {
      success: true,
      data: { applicationType: 'RPL', price: ngnLike('3000000'), effectiveFrom: isoDateTime() },
    },
  },
  {
    rule: 'a price below the platform floor is 422 pricing.below_floor',
    description: 'a setting of a price below the floor',
    states: [superAdmin],
    method: 'POST',
    path: '/v1/cap/centre/pricing',
    headers: asCentre,
    body: { applicationType: 'RPL', price: { amountMinorUnits: '100', currency: 'NGN' } },
    status: 422,
    response: withDetails('pricing.below_floor', 'items[0].price.amountMinorUnits'),
  },
  get('/v1/cap/centre/wallet', {
    rule: 'a new centre has an empty wallet',
    description: 'a read of the wallet of a new centre',
    states: [superAdmin],
    headers: asCentre,
    status: 200,
    response: { success: true, data: { balance: ngnLike('0') } },
  }),
  get('/v1/cap/centre/payments/summary', {
    rule: 'a new centre has no payments',
    description: 'a read of the payments summary of a new centre',
    states: [superAdmin],
    headers: asCentre,
    status: 200,
    response: { success: true, data: { totalRevenue: ngnLike('0'), completedCount: 0, pendingCount: 0 } },
  }),
  get('/v1/cap/centre/payments', {
    rule: "a new centre's payment list is empty",
    description: 'a read of the payments of a new centre',
    states: [superAdmin],
    headers: asCentre,
    status: 200,
    response: { success: true, data: [], meta: pagination },
  }),
]);

// The admin office: moderation as `capctl admin centres|assessors` makes it, the dashboard, templates,
// and what a staff member handles.
const moderation: State = ['a platform admin with a centre and an assessor to moderate'];
const pendingCentre = (suffix = '') =>
  fromProviderState(
    `/v1/cap/admin/centres/\${pendingCentreId}${suffix}`,
    `/v1/cap/admin/centres/01J9Z8X7W6V5T4S3R2Q1P0CENT${suffix}`,
  );
const pendingAssessor = (suffix = '') =>
  fromProviderState(
    `/v1/cap/admin/assessors/\${pendingAssessorId}${suffix}`,
    `/v1/cap/admin/assessors/01J9Z8X7W6V5T4S3R2Q1P0ASSR${suffix}`,
  );
const moderatedCentre = (status: string) => ({
  id: ulid(),
  name: string('Lagos Skills Centre'),
  registrationNo: string('RC-104233'),
  status,
  createdAt: isoDateTime(),
});
const moderatedAssessor = (status: string) => ({
  id: ulid(),
  userId: ulid(),
  name: string('Ada Obi'),
  email: email(),
  status,
  createdAt: isoDateTime(),
});
const countOf = (stageKey: string) => ({ stageKey, label: string('A stage'), count: integer(0) });
/** An error envelope whose details name fields exactly and issues by example. */
const errorNaming = (code: string, details: Array<{ field: string; issue: string }>) => ({
  ...errorBody(code),
  error: { ...errorBody(code).error, details: details.map(({ field, issue }) => ({ field, issue: string(issue) })) },
});
const rplStageKeys = [
  'application_form',
  'payment',
  'folder_arrangement',
  'interview',
  'internal_verification',
  'external_verification',
  'certification',
];
stepTests(test, capPact, 'cap', [
  get('/v1/cap/admin/centres', {
    rule: 'capctl admin centres list --status pending lists the pending centres',
    description: "a read of the admins' pending centres",
    states: [moderation],
    query: { limit: '100', status: 'pending' },
    status: 200,
    response: { success: true, data: eachLike(moderatedCentre('pending')), meta: pagination },
  }),
  {
    rule: 'capctl admin centres approve approves a pending centre',
    description: 'an approval of a pending centre',
    states: [moderation],
    method: 'POST',
    path: pendingCentre('/approve'),
    status: 200,
    response: { success: true, data: moderatedCentre('approved') },
  },
  {
    rule: 'capctl admin centres reject rejects a pending centre',
    description: 'a rejection of a pending centre',
    states: [moderation],
    method: 'POST',
    path: pendingCentre('/reject'),
    status: 200,
    response: { success: true, data: moderatedCentre('rejected') },
  },
  {
    rule: 'a pending centre cannot be suspended (409 centre.transition_not_allowed)',
    description: 'a suspension of a pending centre',
    states: [moderation],
    method: 'POST',
    path: pendingCentre('/suspend'),
    status: 409,
    response: errorBody('centre.transition_not_allowed'),
  },
  {
    rule: 'capctl admin centres approve with several ids is all or nothing: an unknown one stops them all, named',
    description: 'a bulk approval of a pending centre and an unknown id',
    states: [moderation],
    method: 'PATCH',
    path: '/v1/cap/admin/centres/bulk',
    body: {
      ids: [
        fromProviderState('${pendingCentreId}', '01J9Z8X7W6V5T4S3R2Q1P0CENT'),
        fromProviderState('${unknownId}', '01J9Z8X7W6V5T4S3R2Q1P0NONE'),
      ],
      action: 'approve',
    },
    status: 409,
    response: errorNaming('admin.bulk_refused', [
      { field: 'ids[1]', issue: 'no centre has the id 01J9Z8X7W6V5T4S3R2Q1P0NONE' },
    ]),
  },
  get('/v1/cap/admin/assessors', {
    rule: 'capctl admin assessors list --status pending lists the pending assessors',
    description: "a read of the admins' pending assessors",
    states: [moderation],
    query: { limit: '100', status: 'pending' },
    status: 200,
    response: { success: true, data: eachLike(moderatedAssessor('pending')), meta: pagination },
  }),
  {
    rule: 'capctl admin assessors approve approves a pending assessor',
    description: 'an approval of a pending assessor',
    states: [moderation],
    method: 'POST',
    path: pendingAssessor('/approve'),
    status: 200,
    response: { success: true, data: moderatedAssessor('approved') },
  },
  {
    rule: 'capctl admin assessors reject rejects a pending assessor',
    description: 'a rejection of a pending assessor',
    states: [moderation],
    method: 'POST',
    path: pendingAssessor('/reject'),
    status: 200,
    response: { success: true, data: moderatedAssessor('rejected') },
  },
  {
    rule: 'a pending assessor cannot be suspended (409 assessor.transition_not_allowed)',
    description: 'a suspension of a pending assessor',
    states: [moderation],
    method: 'POST',
    path: pendingAssessor('/suspend'),
    status: 409,
    response: errorBody('assessor.transition_not_allowed'),
  },
  get('/v1/cap/admin/dashboard', {
    rule: "the admin dashboard gives a year's KPIs, twelve months and the pipeline (2001: no applications)",
    description: 'a read of the admin dashboard of a year without applications',
    states: [admin],
    query: { year: '2001' },
    status: 200,
    response: {
      success: true,
      data: {
        year: 2001,
        tradeId: null,
        kpis: {
          applications: integer(0),
          candidates: integer(0),
          certified: integer(0),
          centres: integer(1),
          assessors: integer(0),
          revenue: { amountMinorUnits: string('0'), currency: 'NGN' },
          platformFees: { amountMinorUnits: string('0'), currency: 'NGN' },
        },
        applicationsByMonth: eachLike({ month: integer(1), count: integer(0) }, 12),
        revenueByMonth: eachLike({ month: integer(1), amount: { amountMinorUnits: string('0'), currency: 'NGN' } }, 12),
        applicationsByTrade: [],
        applicationsByType: [
          { type: 'RPL', count: integer(0) },
          { type: 'NSQ', count: integer(0) },
        ],
        pipeline: { atStage: eachLike(countOf('payment')), reached: eachLike(countOf('payment')) },
      },
    },
  }),
  get('/v1/cap/admin/dashboard', {
    rule: 'the admin dashboard needs platform.dashboard.read (403)',
    description: 'a read of the admin dashboard by a centre super admin',
    states: [superAdmin],
    status: 403,
    response: errorBody('auth.permission_denied'),
  }),
  {
    rule: 'a downloadable template must be a file the admin uploaded (422, naming it)',
    description: "a setting of a downloadable template to a file that is not the admin's",
    states: [admin],
    method: 'PUT',
    path: '/v1/cap/admin/templates',
    body: { templates: [{ key: 'third_party_report', assetId: '01J9Z8X7W6V5T4S3R2Q1P0NONE' }] },
    status: 422,
    response: errorBody('validation.failed', [{ field: 'templates[0].assetId', issue: 'is not a file you uploaded' }]),
  },
  get('/v1/cap/admin/workflow-templates/NSQ/versions', {
    rule: 'no NSQ workflow template has been published',
    description: 'a read of the NSQ workflow template versions',
    states: [admin],
    status: 200,
    response: { success: true, data: [] },
  }),
  {
    rule: "a workflow template lists the type's stages in order and becomes the next version",
    description: 'a publication of an RPL workflow template',
    states: [admin],
    method: 'POST',
    path: '/v1/cap/admin/workflow-templates/RPL/versions',
    body: { stages: rplStageKeys.map((stageKey) => ({ stageKey })) },
    status: 201,
    response: {
      success: true,
      data: {
        applicationType: 'RPL',
        version: integer(1),
        publishedAt: isoDateTime(),
        stages: rplStageKeys.map((stageKey) => ({
          stageKey,
          label: string('A stage'),
          durationDays: null,
          guidance: null,
        })),
      },
    },
  },
  {
    rule: 'stages out of the lifecycle order are 422, each named',
    description: 'a publication of an RPL workflow template with two stages swapped',
    states: [admin],
    method: 'POST',
    path: '/v1/cap/admin/workflow-templates/RPL/versions',
    body: {
      stages: [
        'application_form',
        'payment',
        'interview',
        'folder_arrangement',
        'internal_verification',
        'external_verification',
        'certification',
      ].map((stageKey) => ({ stageKey })),
    },
    status: 422,
    response: errorNaming('validation.failed', [
      { field: 'stages[2].stageKey', issue: 'is interview; stage 3 of RPL is folder_arrangement' },
      { field: 'stages[3].stageKey', issue: 'is folder_arrangement; stage 4 of RPL is interview' },
    ]),
  },
  get(
    fromProviderState(
      '/v1/cap/centre/staff/${staffId}/applications',
      '/v1/cap/centre/staff/01J9Z8X7W6V5T4S3R2Q1P0STAF/applications',
    ),
    {
      rule: 'a new staff member handles no applications yet',
      description: 'a read of the applications a new staff member handles',
      states: [withStaff('active')],
      headers: asCentre,
      query: { queue: 'pending' },
      status: 200,
      response: { success: true, data: [], meta: pagination },
    },
  ),
]);

// Awarding bodies: the list anyone signed in reads, and the body's admin inviting staff.
const bodyAdmin: State = ['an awarding body admin'];
stepTests(test, capPact, 'cap', [
  get('/v1/cap/admin/awarding-bodies', {
    rule: 'anyone signed in lists the awarding bodies, without persona headers',
    description: 'a read of the awarding bodies',
    states: [bodyAdmin],
    status: 200,
    response: {
      success: true,
      data: eachLike({ id: ulid(), name: string('Pact Awarding Body'), registrationNo: string('AB-104233') }),
    },
  }),
  {
    rule: "the body's admin invites a new address as staff, pending until their first call",
    description: 'an invitation of a new address as awarding body staff',
    states: [bodyAdmin],
    method: 'POST',
    path: '/v1/cap/awarding-body/staff',
    headers: { 'X-CAP-PERSONA': 'awarding_body' },
    body: {
      email: fromProviderState('${newStaffEmail}', 'ev@example.test'),
      awardingBodyId: fromProviderState('${awardingBodyId}', '01J9Z8X7W6V5T4S3R2Q1P0AWBD'),
    },
    status: 201,
    response: {
      success: true,
      data: {
        id: ulid(),
        awardingBodyId: ulid(),
        email: email(),
        role: 'staff',
        status: 'pending',
        createdAt: isoDateTime(),
      },
    },
  },
  {
    rule: 'a centre super admin cannot invite awarding body staff (403)',
    description: 'an invitation of awarding body staff by a centre super admin',
    states: [superAdmin],
    method: 'POST',
    path: '/v1/cap/awarding-body/staff',
    headers: { 'X-CAP-PERSONA': 'awarding_body' },
    body: { email: 'ev@example.test', awardingBodyId: '01J9Z8X7W6V5T4S3R2Q1P0AWBD' },
    status: 403,
    response: errorBody('auth.persona_not_held'),
  },
]);

// The public third-party report template.
stepTests(test, capPact, 'cap', [
  get('/v1/cap/evidence/third-party-report-template', {
    rule: 'anyone downloads the third-party report template an admin set',
    description: 'a read of the third-party report template',
    states: [['a published third-party report template']],
    signedIn: false,
    status: 200,
    response: {
      success: true,
      data: {
        assetId: ulid(),
        url: string('http://127.0.0.1:4000/v1/ol/storage/files/01J9Z8X7W6V5T4S3R2Q1P0ASST?expires=1&signature=x'),
      },
    },
  }),
]);

// The assessor market (assessor-retained.yaml, job-marketplace.yaml, capctl assessor): the assessor's
// side, then the centre's.
const asAssessor = { 'X-CAP-PERSONA': 'assessor' };
const marketAssessor = (params: { requested?: boolean; applied?: boolean } = {}): State => [
  'an approved assessor with an open job posting',
  params,
];
const centreWithRequest = (approved: boolean): State => ["a centre with an assessor's retained request", { approved }];
const idName = (name: string) => ({ id: ulid(), name: string(name) });
const assessorCard = {
  id: ulid(),
  name: string('Ada Obi'),
  email: email(),
  qualifications: [],
  sectors: eachLike(idName('Electrical')),
  certificates: [],
};
const retainedRequest = (status: string, responded: boolean) => ({
  id: ulid(),
  assessorId: ulid(),
  centreId: ulid(),
  centre: idName('Lagos Skills Centre'),
  preferredRole: 'assessor',
  status,
  requestedAt: isoDateTime(),
  ...(responded ? { respondedAt: isoDateTime(), respondedBy: ulid() } : {}),
});
const jobPosting = (fields: Record<string, unknown> = {}) => ({
  id: ulid(),
  centreId: ulid(),
  centre: idName('Lagos Skills Centre'),
  title: string('Electrical installation assessor'),
  tradeId: ulid(),
  trade: idName('Electrical Installation'),
  sectorId: ulid(),
  slot: integer(2),
  deadline: isoDateTime(),
  description: string('Assess RPL candidates.'),
  requirements: eachLike(string('QAA certificate')),
  duration: string('3 Months'),
  status: 'open',
  applicantCount: integer(0),
  slotsOccupied: integer(0),
  createdAt: isoDateTime(),
  ...fields,
});
const ownJobApplication = (status: string) => ({
  id: ulid(),
  jobPostingId: ulid(),
  status,
  createdAt: isoDateTime(),
  jobPosting: jobPosting({ applicantCount: integer(1) }),
});
const jobPostingId = fromProviderState('${jobPostingId}', '01J9Z8X7W6V5T4S3R2Q1P0JOBP');
const applyPath = fromProviderState(
  '/v1/cap/assessor/job-postings/${jobPostingId}/apply',
  '/v1/cap/assessor/job-postings/01J9Z8X7W6V5T4S3R2Q1P0JOBP/apply',
);
stepTests(test, capPact, 'cap', [
  {
    rule: 'an approved assessor asks a centre to retain them, saying what for',
    description: 'a request to be retained by a centre',
    states: [marketAssessor()],
    method: 'POST',
    path: '/v1/cap/assessor/retained-requests',
    headers: asAssessor,
    body: { centreId, preferredRole: 'assessor' },
    status: 201,
    response: { success: true, data: retainedRequest('pending', false) },
  },
  {
    rule: 'a preferredRole outside assessor, internal_verifier and any is 422',
    description: 'a request to be retained for a role that does not exist',
    states: [marketAssessor()],
    method: 'POST',
    path: '/v1/cap/assessor/retained-requests',
    headers: asAssessor,
    body: { centreId, preferredRole: 'chief' },
    status: 422,
    response: errorBody('validation.failed'),
  },
  get('/v1/cap/assessor/retained-requests', {
    rule: "the assessor lists their requests with each centre's name",
    description: "a read of the assessor's retained requests",
    states: [marketAssessor({ requested: true })],
    headers: asAssessor,
    status: 200,
    response: { success: true, data: eachLike(retainedRequest('pending', false)), meta: pagination },
  }),
  get('/v1/cap/assessor/marketplace', {
    rule: "the marketplace shows open postings in the assessor's sectors",
    description: 'a read of the marketplace',
    states: [marketAssessor()],
    headers: asAssessor,
    status: 200,
    response: { success: true, data: eachLike(jobPosting()), meta: pagination },
  }),
  {
    rule: 'an assessor in the sector applies to an open posting (no body)',
    description: 'an application to a job posting',
    states: [marketAssessor()],
    method: 'POST',
    path: applyPath,
    headers: asAssessor,
    status: 201,
    response: { success: true, data: ownJobApplication('applied') },
  },
  {
    rule: 'applying twice is 409 job_posting.already_applied',
    description: 'a second application to a job posting',
    states: [marketAssessor({ applied: true })],
    method: 'POST',
    path: applyPath,
    headers: asAssessor,
    status: 409,
    response: errorBody('job_posting.already_applied'),
  },
  get('/v1/cap/assessor/job-postings', {
    rule: 'the assessor lists their own applications to postings',
    description: "a read of the assessor's job applications",
    states: [marketAssessor({ applied: true })],
    headers: asAssessor,
    status: 200,
    response: { success: true, data: eachLike(ownJobApplication('applied')), meta: pagination },
  }),
  {
    rule: 'the assessor replaces their sectors with catalogue sectors',
    description: "a replacement of the assessor's sectors",
    states: [marketAssessor()],
    method: 'PUT',
    path: '/v1/cap/assessor/profile/sectors',
    headers: asAssessor,
    body: { sectorIds: [fromProviderState('${sectorId}', '01J9Z8X7W6V5T4S3R2Q1P0SECT')] },
    status: 200,
    response: {
      success: true,
      data: eachLike({
        id: ulid(),
        slug: string('electrical'),
        name: string('Electrical'),
        description: string('Installation and maintenance of electrical systems.'),
      }),
    },
  },
  get('/v1/cap/assessor/profile/sectors', {
    rule: 'the assessor reads their sectors',
    description: "a read of the assessor's sectors",
    states: [marketAssessor()],
    headers: asAssessor,
    status: 200,
    response: {
      success: true,
      data: eachLike({
        id: ulid(),
        slug: string('electrical'),
        name: string('Electrical'),
        description: string('Installation and maintenance of electrical systems.'),
      }),
    },
  }),
  get('/v1/cap/assessor/profile', {
    rule: 'the assessor profile nests the assessor onboarding',
    description: "a read of the assessor's profile",
    states: [marketAssessor()],
    headers: asAssessor,
    status: 200,
    response: {
      success: true,
      data: {
        ...assessorCard,
        userId: ulid(),
        status: 'approved',
        createdAt: isoDateTime(),
        onboarding: like({ assessorDetails: { assessorNo: 'ASR-0042' } }),
      },
    },
  }),
]);

const retainedPath = (suffix: string) =>
  fromProviderState(
    `/v1/cap/centre/retained-requests/\${retainedRequestId}${suffix}`,
    `/v1/cap/centre/retained-requests/01J9Z8X7W6V5T4S3R2Q1P0RETR${suffix}`,
  );
const rosterItem = (status: string) => ({
  ...assessorCard,
  retainedRequestId: ulid(),
  status,
  assignedCount: integer(0),
});
const postingApplicationsPath = (suffix = '') =>
  fromProviderState(
    `/v1/cap/centre/job-postings/\${jobPostingId}/applications${suffix}`,
    `/v1/cap/centre/job-postings/01J9Z8X7W6V5T4S3R2Q1P0JOBP/applications${suffix}`,
  );
const centreJobApplication = (status: string, decided: boolean) => ({
  id: ulid(),
  jobPostingId: ulid(),
  status,
  createdAt: isoDateTime(),
  ...(decided ? { decidedAt: isoDateTime() } : {}),
  trade: idName('Electrical Installation'),
});
stepTests(test, capPact, 'cap', [
  get('/v1/cap/centre/retained-requests', {
    rule: 'the centre lists the pending requests made to it',
    description: "a read of the centre's pending retained requests",
    states: [centreWithRequest(false)],
    headers: asCentre,
    query: { status: 'pending' },
    status: 200,
    response: { success: true, data: eachLike(retainedRequest('pending', false)), meta: pagination },
  }),
  {
    rule: 'the centre approves a pending request',
    description: 'an approval of a retained request',
    states: [centreWithRequest(false)],
    method: 'PATCH',
    path: retainedPath('/approve'),
    headers: asCentre,
    status: 200,
    response: { success: true, data: retainedRequest('approved', true) },
  },
  {
    rule: 'revoking an approved request deactivates the assessor',
    description: 'a revoke of a retained request',
    states: [centreWithRequest(true)],
    method: 'PATCH',
    path: retainedPath('/revoke'),
    headers: asCentre,
    status: 200,
    response: { success: true, data: retainedRequest('revoked', true) },
  },
  {
    rule: 'a pending request cannot be revoked (409)',
    description: 'a revoke of a pending retained request',
    states: [centreWithRequest(false)],
    method: 'PATCH',
    path: retainedPath('/revoke'),
    headers: asCentre,
    status: 409,
    response: errorBody('retained_request.transition_not_allowed'),
  },
  get('/v1/cap/centre/assessors', {
    rule: 'the roster lists the retained assessor',
    description: "a read of the centre's assessor roster",
    states: [centreWithRequest(true)],
    headers: asCentre,
    query: { status: 'all' },
    status: 200,
    response: { success: true, data: eachLike(rosterItem('approved')), meta: pagination },
  }),
  get('/v1/cap/centre/assessors/summary', {
    rule: 'the roster summary counts assessors by status',
    description: "a read of the centre's assessor summary",
    states: [centreWithRequest(true)],
    headers: asCentre,
    status: 200,
    response: {
      success: true,
      data: { total: integer(1), active: integer(1), pending: integer(0), inactive: integer(0) },
    },
  }),
  get(
    fromProviderState(
      '/v1/cap/centre/assessors/${assessorId}',
      '/v1/cap/centre/assessors/01J9Z8X7W6V5T4S3R2Q1P0ASSR',
    ) as StepInteraction['path'],
    {
      rule: 'the roster detail shows the assessor with their workload',
      description: 'a read of an assessor of the roster',
      states: [centreWithRequest(true)],
      headers: asCentre,
      status: 200,
      response: {
        success: true,
        data: {
          ...rosterItem('approved'),
          workload: { assigned: integer(0), ongoing: integer(0), completed: integer(0) },
        },
      },
    },
  ),
  {
    rule: 'a centre admin posts a job for an active trade',
    description: 'a creation of a job posting',
    states: [centreWithRequest(false)],
    method: 'POST',
    path: '/v1/cap/centre/job-postings',
    headers: asCentre,
    body: {
      title: 'Electrical installation assessor',
      tradeId: fromProviderState('${tradeId}', '01J9Z8X7W6V5T4S3R2Q1P0TRAD'),
      slot: 2,
      deadline: '2099-12-31T23:59:59Z',
      description: 'Assess RPL candidates.',
      requirements: ['QAA certificate'],
      duration: '3 Months',
    },
    status: 201,
    response: { success: true, data: jobPosting() },
  },
  get('/v1/cap/centre/job-postings', {
    rule: 'the centre lists its postings',
    description: "a read of the centre's job postings",
    states: [centreWithRequest(false)],
    headers: asCentre,
    status: 200,
    response: { success: true, data: eachLike(jobPosting({ applicantCount: integer(1) })), meta: pagination },
  }),
  get(postingApplicationsPath(), {
    rule: 'the centre lists the applicants to a posting',
    description: 'a read of the applications to a job posting',
    states: [centreWithRequest(false)],
    headers: asCentre,
    status: 200,
    response: { success: true, data: eachLike(centreJobApplication('applied', false)), meta: pagination },
  }),
  {
    rule: 'shortlisting an applicant accepts them',
    description: 'a shortlisting of an applicant',
    states: [centreWithRequest(false)],
    method: 'PATCH',
    path: fromProviderState(
      '/v1/cap/centre/job-postings/${jobPostingId}/applications/${jobApplicationId}',
      '/v1/cap/centre/job-postings/01J9Z8X7W6V5T4S3R2Q1P0JOBP/applications/01J9Z8X7W6V5T4S3R2Q1P0JOBA',
    ),
    headers: asCentre,
    body: { decision: 'shortlist' },
    status: 200,
    response: { success: true, data: centreJobApplication('accepted', true) },
  },
]);

// Interviews (interview-refusals.yaml): the facilitator, then the steps of the scenario. Each interaction's
// state builds a whole interview (a centre, three retained assessors, a paid application), so only what
// the scenario and the client send is pinned; the rest is in test/cap/interviews.test.ts.
const interview = (
  actor: 'centre' | 'lead' | 'voter' | 'candidate',
  stage: 'folder_arrangement' | 'interview' = 'folder_arrangement',
): State => ['an RPL application with an interview panel', { actor, stage }];
const fromState = (name: string, example: string) => fromProviderState(`\${${name}}`, example);
const [leadId, voterId, otherVoterId] = [
  fromState('leadId', '01J9Z8X7W6V5T4S3R2Q1P0LEAD'),
  fromState('voterId', '01J9Z8X7W6V5T4S3R2Q1P0VOTE'),
  fromState('otherVoterId', '01J9Z8X7W6V5T4S3R2Q1P0OTHR'),
];
const seats = [
  { assessorId: leadId, isLead: true },
  { assessorId: voterId, isObserver: true },
  { assessorId: otherVoterId },
];
const panelMember = {
  assessorId: ulid(),
  isLead: boolean(true),
  isObserver: boolean(false),
  name: string('Ada Obi'),
  sectors: [],
};
const sitting = { scheduledAt: '2099-01-10T09:00:00.000Z', mode: 'online', link: 'https://meet.example.test/pact' };
const schedule = {
  scheduledAt: isoDateTime(),
  status: 'scheduled',
  mode: 'online',
  location: null,
  link: string('https://meet.example.test/pact'),
  useCentreAddress: false,
};
const { location: _location, ...booked } = schedule;
const booking = {
  ...booked,
  templateId: ulid(),
  id: ulid(),
  applicationId: ulid(),
  candidate: like({ id: ulid(), name: string('Ada Obi') }),
  currentStageKey: string('folder_arrangement'),
  members: eachLike(panelMember),
};
const templatePath = (suffix: string) =>
  fromProviderState(
    `/v1/cap/centre/interviews/\${templateId}${suffix}`,
    `/v1/cap/centre/interviews/01J9Z8X7W6V5T4S3R2Q1P0TMPL${suffix}`,
  );
stepTests(test, capPact, 'cap', [
  {
    rule: 'the centre assigns a retained assessor as facilitator',
    description: 'an assignment of the facilitator',
    states: [interview('centre')],
    method: 'POST',
    path: applicationPath('/facilitator'),
    headers: asCentre,
    body: { assessorId: leadId },
    status: 200,
    response: { success: true, data: application('in_progress', 'folder_arrangement') },
  },
  {
    rule: 'a fourth voter is 422 interview.panel_invalid',
    description: 'a panel of four voters',
    states: [interview('centre')],
    method: 'POST',
    path: applicationPath('/interview/panel'),
    headers: asCentre,
    body: {
      members: [
        ...seats.map(({ assessorId, isLead }) => ({ assessorId, isLead: isLead ?? false })),
        { assessorId: '01J9Z8X7W6V5T4S3R2Q1P0FOUR' },
      ],
    },
    status: 422,
    response: withDetails('interview.panel_invalid', 'members'),
  },
  {
    rule: 'the centre keeps a reusable panel',
    description: 'a creation of a centre panel',
    states: [interview('centre')],
    method: 'POST',
    path: '/v1/cap/centre/panels',
    headers: asCentre,
    body: { name: 'Morning panel', members: seats },
    status: 201,
    response: {
      success: true,
      data: { id: ulid(), name: 'Morning panel', members: eachLike(panelMember), createdAt: isoDateTime() },
    },
  },
  {
    rule: 'the centre makes an interview template with a clock',
    description: 'a creation of an interview template',
    states: [interview('centre')],
    method: 'POST',
    path: '/v1/cap/centre/interviews',
    headers: asCentre,
    body: { title: 'Morning sitting', panelId: fromState('panelId', '01J9Z8X7W6V5T4S3R2Q1P0PANL'), ...sitting },
    status: 201,
    response: {
      success: true,
      data: {
        id: ulid(),
        title: 'Morning sitting',
        panelId: ulid(),
        scheduledAt: isoDateTime(),
        mode: 'online',
        location: null,
        link: string('https://meet.example.test/pact'),
        useCentreAddress: false,
        createdAt: isoDateTime(),
      },
    },
  },
  {
    rule: 'a sitting before the template clock is 422 interview.before_template_clock',
    description: 'a scheduling from a template before its clock',
    states: [interview('centre')],
    method: 'POST',
    path: templatePath('/schedule'),
    headers: asCentre,
    body: { applicationIds: [applicationId], scheduledAt: '2099-01-09T09:00:00.000Z' },
    status: 422,
    response: withDetails('interview.before_template_clock', 'scheduledAt'),
  },
  {
    rule: 'a template copies its panel and sitting onto the application',
    description: 'a scheduling from a template at its clock',
    states: [interview('centre')],
    method: 'POST',
    path: templatePath('/schedule'),
    headers: asCentre,
    body: { applicationIds: [applicationId] },
    status: 200,
    response: { success: true, data: eachLike(booking) },
  },
  {
    rule: 'a voter who does not lead is refused the decision and outcome (403 interview.lead_only)',
    description: 'an evaluation with an outcome by a voter who does not lead',
    states: [interview('voter', 'interview')],
    method: 'POST',
    path: applicationPath('/interview/evaluate'),
    headers: asAssessor,
    body: {
      feedback: 'Neat work.',
      signatureAssetId: fromState('signatureAssetId', '01J9Z8X7W6V5T4S3R2Q1P0SIGN'),
      decision: 'competent',
      outcome: 'approve',
    },
    status: 403,
    response: errorBody('interview.lead_only'),
  },
  {
    rule: "a voter's own evaluation is taken: feedback and their signature",
    description: 'the evaluation of a voter who does not lead',
    states: [interview('voter', 'interview')],
    method: 'POST',
    path: applicationPath('/interview/evaluate'),
    headers: asAssessor,
    body: { feedback: 'Neat work.', signatureAssetId: fromState('signatureAssetId', '01J9Z8X7W6V5T4S3R2Q1P0SIGN') },
    status: 200,
    response: {
      success: true,
      data: {
        applicationId: ulid(),
        round: 1,
        evaluations: 1,
        decision: null,
        status: 'in_progress',
        currentStageKey: 'interview',
      },
    },
  },
]);

// The evidence vault, verification and the certificate (evidence.yaml, verification.yaml).
const withEvidence: State = ['a candidate with evidence to give'];
const atStep = (step: 'assign_iv' | 'forward' | 'assign_ev' | 'review_ev' | 'certify'): State => [
  'an application at a verification step',
  { step },
];
const evidenceId = fromProviderState('${evidenceId}', '01J9Z8X7W6V5T4S3R2Q1P0EVID');
const evidencePath = (suffix = '') => applicationPath(`/evidence${suffix}`);
const generalEvidence = {
  id: ulid(),
  applicationId: ulid(),
  documentName: string('Work logbook'),
  evidenceType: string('Work logbook or diary'),
  assetId: null,
  url: null,
  formData: null,
  textValue: string('Week 1: block walls'),
  createdAt: isoDateTime(),
  updatedAt: isoDateTime(),
};
const selfAssessment = (submitted: boolean) => ({
  applicationId: ulid(),
  personalInformation: like({ personalDetails: { firstName: 'Ada', lastName: 'Obi' } }),
  frozenPersonalInformation: submitted ? like({ personalDetails: { firstName: 'Ada' } }) : null,
  competencies: eachLike({ unitId: ulid() }),
  reflection: null,
  declaration: submitted ? like({ isTrueAndMine: true }) : null,
  submittedAt: submitted ? isoDateTime() : null,
});
const asAssessorBody = { 'X-CAP-PERSONA': 'awarding_body' };
const asStaff = { 'X-CAP-PERSONA': 'centre' };
const assessorId = fromProviderState('${assessorId}', '01J9Z8X7W6V5T4S3R2Q1P0ASSR');
const forwardedApplication = (stage: string) => ({ ...application('in_progress', stage), awardingBodyId: ulid() });
stepTests(test, capPact, 'cap', [
  get(evidencePath(), {
    rule: 'the vault lists every kind of evidence, newest first',
    description: 'a read of the evidence vault',
    states: [withEvidence],
    headers: asCandidate,
    status: 200,
    response: {
      success: true,
      data: eachLike({
        id: ulid(),
        kind: string('general'),
        documentName: string('Work logbook'),
        evidenceType: string('Work logbook or diary'),
        createdAt: isoDateTime(),
      }),
      meta: pagination,
    },
  }),
  {
    rule: "general evidence of one of the trade's types is kept",
    description: 'a creation of general evidence',
    states: [withEvidence],
    method: 'POST',
    path: evidencePath(),
    headers: asCandidate,
    body: {
      documentName: 'Reference letter',
      evidenceType: fromProviderState('${evidenceType}', 'Photographs of completed work'),
      textValue: 'Ada builds straight walls.',
    },
    status: 201,
    response: { success: true, data: generalEvidence },
  },
  {
    rule: 'evidence of a type the trade does not have is 422 evidence.invalid',
    description: 'a creation of evidence of an unknown type',
    states: [withEvidence],
    method: 'POST',
    path: evidencePath(),
    headers: asCandidate,
    body: { documentName: 'Horoscope', evidenceType: 'Horoscope', textValue: 'x' },
    status: 422,
    response: errorBody('evidence.invalid'),
  },
  get(
    fromProviderState(
      `/v1/cap/applications/\${applicationId}/evidence/\${evidenceId}`,
      '/v1/cap/applications/01J9Z8X7W6V5T4S3R2Q1P0APPL/evidence/01J9Z8X7W6V5T4S3R2Q1P0EVID',
    ),
    {
      rule: 'a piece of evidence is read by its id',
      description: 'a read of a piece of evidence',
      states: [withEvidence],
      headers: asCandidate,
      status: 200,
      response: { success: true, data: generalEvidence },
    },
  ),
  {
    rule: 'the candidate removes a piece of evidence',
    description: 'a removal of a piece of evidence',
    states: [withEvidence],
    method: 'DELETE',
    path: fromProviderState(
      `/v1/cap/applications/\${applicationId}/evidence/\${evidenceId}`,
      '/v1/cap/applications/01J9Z8X7W6V5T4S3R2Q1P0APPL/evidence/01J9Z8X7W6V5T4S3R2Q1P0EVID',
    ),
    headers: asCandidate,
    status: 200,
    response: { success: true, data: { id: evidenceId, deleted: true } },
  },
  get(evidencePath('/self-assessment'), {
    rule: 'before it is saved the self-assessment lists the units of the trade',
    description: 'a read of a new self-assessment',
    states: [withEvidence],
    headers: asCandidate,
    status: 200,
    response: { success: true, data: selfAssessment(false) },
  }),
  {
    rule: 'submitting a self-assessment without a declaration is 422 evidence.self_assessment_incomplete',
    description: 'a submit of a self-assessment without a declaration',
    states: [withEvidence],
    method: 'PUT',
    path: evidencePath('/self-assessment'),
    headers: asCandidate,
    body: { submit: true },
    status: 422,
    response: errorBody('evidence.self_assessment_incomplete'),
  },
  {
    rule: 'a submitted self-assessment freezes the personal information',
    description: 'a submit of a self-assessment',
    states: [withEvidence],
    method: 'PUT',
    path: evidencePath('/self-assessment'),
    headers: asCandidate,
    body: {
      competencies: [{ unitId: fromProviderState('${unitId}', '01J9Z8X7W6V5T4S3R2Q1P0UNIT'), rating: 'competent' }],
      declaration: { isTrueAndMine: true },
      submit: true,
    },
    status: 200,
    response: { success: true, data: selfAssessment(true) },
  },
  get(evidencePath('/third-party-report'), {
    rule: 'no third-party report reads as nulls',
    description: 'a read of a missing third-party report',
    states: [withEvidence],
    headers: asCandidate,
    status: 200,
    response: { success: true, data: { applicationId: ulid(), assetId: null, url: null, submittedAt: null } },
  }),
  {
    rule: "the third-party report is the candidate's own upload",
    description: 'a submission of the third-party report',
    states: [withEvidence],
    method: 'POST',
    path: evidencePath('/third-party-report'),
    headers: asCandidate,
    body: { assetId: fromProviderState('${assetId}', '01J9Z8X7W6V5T4S3R2Q1P0ASST') },
    status: 201,
    response: {
      success: true,
      data: {
        applicationId: ulid(),
        assetId: ulid(),
        url: string('http://127.0.0.1:4000/v1/ol/storage/files/x'),
        submittedAt: isoDateTime(),
      },
    },
  },
  {
    rule: 'the centre assigns an approved assessor it retains as internal verifier',
    description: 'an assignment of the internal verifier',
    states: [atStep('assign_iv')],
    method: 'POST',
    path: applicationPath('/iv'),
    headers: asStaff,
    body: { assessorId },
    status: 200,
    response: { success: true, data: application('in_progress', 'internal_verification') },
  },
  {
    rule: 'the centre forwards an IV-approved application to the awarding body of its trade',
    description: 'a forwarding to the awarding body',
    states: [atStep('forward')],
    method: 'POST',
    path: applicationPath('/forward-to-awarding-body'),
    headers: asStaff,
    status: 200,
    response: { success: true, data: forwardedApplication('external_verification') },
  },
  get('/v1/cap/awarding-body/applications', {
    rule: 'the awarding body lists what was forwarded to it',
    description: "a read of the awarding body's applications",
    states: [atStep('assign_ev')],
    headers: asAssessorBody,
    status: 200,
    response: { success: true, data: eachLike(forwardedApplication('external_verification')), meta: pagination },
  }),
  {
    rule: 'the awarding body assigns an approved assessor as external verifier',
    description: 'an assignment of the external verifier',
    states: [atStep('assign_ev')],
    method: 'POST',
    path: applicationPath('/ev'),
    headers: asAssessorBody,
    body: { assessorId },
    status: 200,
    response: { success: true, data: forwardedApplication('external_verification') },
  },
  {
    rule: 'an approved EV review moves the application to certification',
    description: 'an approving EV review',
    states: [atStep('review_ev')],
    method: 'POST',
    path: applicationPath('/ev/review'),
    headers: asAssessorBody,
    body: { decision: 'approve', feedback: 'Meets the standard' },
    status: 200,
    response: { success: true, data: forwardedApplication('certification') },
  },
  {
    rule: 'the awarding body issues the certificate (rendered by CAP) and the application is certified',
    description: 'an issue of the certificate',
    states: [atStep('certify')],
    method: 'POST',
    path: applicationPath('/certificate'),
    headers: asAssessorBody,
    body: {},
    status: 201,
    response: {
      success: true,
      data: {
        id: ulid(),
        applicationId: ulid(),
        issuedBy: ulid(),
        issuedAt: isoDateTime(),
        certificateAssetId: ulid(),
        url: string('http://127.0.0.1:4000/v1/ol/storage/files/x'),
        verificationCode: string('CAP-7K3M-Q9XD-2F4H'),
        verifyUrl: string('http://127.0.0.1:4000/v1/cap/certificates/verify/CAP-7K3M-Q9XD-2F4H'),
      },
    },
  },
]);

// Lists matched by eachLike may hold items the state did not make: what the document lets be null is
// matched as "this or null" there.
for (const description of [
  'a read of the public sector list',
  "a read of the assessor's sectors",
  "a replacement of the assessor's sectors",
])
  mayBeNull(description, '$.data[*].description');
for (const description of ['a read of the marketplace', "a read of the centre's job postings"])
  mayBeNull(description, '$.data[*].duration');
mayBeNull("a read of the assessor's job applications", '$.data[*].jobPosting.duration');
mayBeNull('a search of the admin trade list by slug', '$.data[*].sectorName');
mayBeNull("a read of the candidate's applications", '$.data[*].sectorId', '$.data[*].tradeId');
mayBeNull(
  "a read of the awarding body's applications",
  '$.data[*].sectorId',
  '$.data[*].tradeId',
  '$.data[*].awardingBodyId',
  '$.data[*].submittedAt',
);
mayBeNull("a read of the admins' pending assessors", '$.data[*].name');
mayBeNull("a read of the centre's assessor roster", '$.data[*].email');
mayBeNull('a read of the evidence vault', '$.data[*].documentName', '$.data[*].evidenceType');
mayBeNull('a scheduling from a template at its clock', '$.data[*].link', '$.data[*].mode', '$.data[*].templateId');

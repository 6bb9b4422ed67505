import test, { type ExecutionContext } from 'ava';
import { MatchersV3 } from '@pact-foundation/pact';
import { loadDrafts } from '../../fixtures/states/definitions.ts';
import { bearer, capctl, configDir, email, errorBody, exampleAccessToken, isoDateTime, mockGateway, pactFiles, runScenario, ulid } from './support.ts';

// capctl -> CAP: `capctl me --service cap` and the onboarding and acting-context steps of the bundled
// scenarios, run by capctl's scenario runner against Pact's mock server. Writes pacts/capctl-cap.json.

const { boolean, eachLike, like } = MatchersV3;
const pact = pactFiles(test);
const capPact = () => pact('capctl', 'cap');

const candidateDraft = loadDrafts('cap').candidate!;
const started = { persona: 'candidate', stage: 'started' };

const summary = (status: 'draft' | 'completed') => ({
  onboardingId: ulid(),
  persona: 'candidate',
  status,
  createdAt: isoDateTime(),
  lastUpdatedAt: isoDateTime(),
  completedAt: status === 'completed' ? isoDateTime() : null,
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
        data: { userId: ulid(), email: email(), identityVerified: boolean(false), candidate: null, centres: [], assessor: null, awardingBody: null },
      }),
    )
    .executeTest(async (mock) => {
      cli.signedIn(mock.url);
      const run = await capctl(t, cli.dir, 'me', '--service', 'cap', '--json');
      t.is(run.code, 0, run.stderr);
      t.like(JSON.parse(run.stdout), { identityVerified: false, candidate: null });
    });
});

test.serial('capctl run starts, lists, reads, saves and submits the candidate onboarding', async (t) => {
  const cap = capPact();
  cap.addInteraction()
    .given('a verified user')
    .uponReceiving('a start of the candidate onboarding')
    .withRequest('POST', '/v1/cap/onboarding/start', (b) => b.headers({ Authorization: bearer() }).jsonBody({ persona: 'candidate' }))
    .willRespondWith(201, (b) => b.jsonBody({ success: true, data: summary('draft') }));
  cap.addInteraction()
    .given('a user with an onboarding', started)
    .uponReceiving("a list of the caller's onboardings")
    .withRequest('GET', '/v1/cap/onboarding/mine', (b) => b.headers({ Authorization: bearer() }))
    .willRespondWith(200, (b) => b.jsonBody({ success: true, data: { onboardings: eachLike(summary('draft')) } }));
  cap.addInteraction()
    .given('a user with an onboarding', started)
    .uponReceiving('a read of the candidate onboarding')
    .withRequest('GET', '/v1/cap/onboarding/candidate', (b) => b.headers({ Authorization: bearer() }))
    .willRespondWith(200, (b) => b.jsonBody({ success: true, data: { ...summary('draft'), data: {} } }));
  cap.addInteraction()
    .given('a user with an onboarding', started)
    .uponReceiving('a save of the complete candidate draft')
    .withRequest('PATCH', '/v1/cap/onboarding/candidate/save', (b) => b.headers({ Authorization: bearer() }).jsonBody(candidateDraft))
    .willRespondWith(200, (b) => b.jsonBody({ success: true, data: { ...summary('draft'), data: like(candidateDraft) } }));
  await cap
    .addInteraction()
    .given('a user with an onboarding', { persona: 'candidate', stage: 'saved' })
    .uponReceiving('a submit of the candidate onboarding')
    .withRequest('POST', '/v1/cap/onboarding/candidate/submit', (b) => b.headers({ Authorization: bearer() }))
    .willRespondWith(200, (b) => b.jsonBody({ success: true, data: summary('completed') }))
    .executeTest(async (mock) => {
      await runScenario(t, await mockGateway(t, { cap: mock.url }), `
name: candidate onboarding
steps:${step('start', 'method: POST, path: /v1/cap/onboarding/start, body: { persona: candidate }', '{ status: 201 }')}
${step('mine', 'method: GET, path: /v1/cap/onboarding/mine')}
${step('read', 'method: GET, path: /v1/cap/onboarding/candidate')}
${step('save', `method: PATCH, path: /v1/cap/onboarding/candidate/save, body: ${JSON.stringify(candidateDraft)}`)}
${step('submit', 'method: POST, path: /v1/cap/onboarding/candidate/submit', '{ body: { data.status: completed } }')}
`);
    });
});

/** One acting-context rule: GET /v1/cap/context with these persona headers, as capctl run sends it. */
async function contextRule(
  t: ExecutionContext,
  rule: { description: string; state: string; params?: { personas: string[] }; headers: Record<string, string>; status: number; body: unknown },
) {
  await capPact()
    .addInteraction()
    .given(rule.state, rule.params)
    .uponReceiving(rule.description)
    .withRequest('GET', '/v1/cap/context', (b) => b.headers({ Authorization: bearer(), ...rule.headers }))
    .willRespondWith(rule.status, (b) => b.jsonBody(rule.body))
    .executeTest(async (mock) => {
      const headers = Object.entries(rule.headers).map(([name, value]) => `, ${name}: "${value}"`).join('');
      await runScenario(t, await mockGateway(t, { cap: mock.url }), `
name: ${rule.description}
steps:
  - id: context
    http: { method: GET, path: /v1/cap/context, headers: { Authorization: "Bearer ${exampleAccessToken}"${headers} } }
    expect: { status: ${rule.status} }
`);
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
  }));

test.serial('a caller holding no persona is 403 auth.persona_required', (t) =>
  contextRule(t, {
    description: 'a context request without persona headers from a user holding no persona',
    state: 'a verified user',
    headers: {},
    status: 403,
    body: errorBody('auth.persona_required'),
  }));

test.serial('a persona the caller does not hold is 403 auth.persona_not_held', (t) =>
  contextRule(t, {
    description: 'a context request as a centre from a candidate',
    state: 'a user holding personas',
    params: { personas: ['candidate'] },
    headers: { 'X-CAP-PERSONA': 'centre' },
    status: 403,
    body: errorBody('auth.persona_not_held'),
  }));

test.serial('no persona header with two personas held is 400 auth.persona_ambiguous', (t) =>
  contextRule(t, {
    description: 'a context request without persona headers from a candidate who is also an assessor',
    state: 'a user holding personas',
    params: { personas: ['candidate', 'assessor'] },
    headers: {},
    status: 400,
    body: errorBody('auth.persona_ambiguous'),
  }));

test.serial('a centre header with another persona is 400 auth.centre_header_not_allowed', (t) =>
  contextRule(t, {
    description: 'a context request as a candidate naming a centre',
    state: 'a user holding personas',
    params: { personas: ['candidate'] },
    headers: { 'X-CAP-PERSONA': 'candidate', 'X-CAP-CENTRE-ID': '01J9Z8X7W6V5T4S3R2Q1P0CENT' },
    status: 400,
    body: errorBody('auth.centre_header_not_allowed'),
  }));

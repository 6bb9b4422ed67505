import test from 'ava';
import { MatchersV3 } from '@pact-foundation/pact';
import { bearer, capctl, configDir, exampleAccessToken, isoDateTime, mockGateway, pactFiles, runScenario, ulid } from './support.ts';

// capctl -> LMS: `capctl me --service lms` and the learner onboarding steps of the bundled scenarios,
// run by capctl's scenario runner against Pact's mock server. Writes pacts/capctl-lms.json.

const { eachLike } = MatchersV3;
const pact = pactFiles(test);
const lmsPact = () => pact('capctl', 'lms');

const learnerDraft = {
  onboardingId: ulid(),
  persona: 'learner',
  status: 'draft',
  createdAt: isoDateTime(),
  lastUpdatedAt: isoDateTime(),
  completedAt: null,
};

test.serial('capctl me --service lms reads the signed-in user on the LMS', async (t) => {
  const cli = configDir(t);
  await lmsPact()
    .addInteraction()
    .given('a verified user')
    .uponReceiving("a read of the caller's LMS account")
    .withRequest('GET', '/v1/lms/me', (b) => b.headers({ Authorization: bearer() }))
    .willRespondWith(200, (b) =>
      b.jsonBody({ success: true, data: { lmsUserId: ulid(), userId: ulid(), personas: [], capabilities: [], instructorStatus: null } }),
    )
    .executeTest(async (mock) => {
      cli.signedIn(mock.url);
      const run = await capctl(t, cli.dir, 'me', '--service', 'lms', '--json');
      t.is(run.code, 0, run.stderr);
      t.like(JSON.parse(run.stdout), { personas: [], capabilities: [] });
    });
});

test.serial('capctl run starts the learner onboarding and lists it', async (t) => {
  const lms = lmsPact();
  lms.addInteraction()
    .given('a verified user')
    .uponReceiving('a start of the learner onboarding')
    .withRequest('POST', '/v1/lms/onboarding/start', (b) => b.headers({ Authorization: bearer() }).jsonBody({ persona: 'learner' }))
    .willRespondWith(201, (b) => b.jsonBody({ success: true, data: learnerDraft }));
  await lms
    .addInteraction()
    .given('a user with an onboarding', { persona: 'learner', stage: 'started' })
    .uponReceiving("a list of the caller's onboardings")
    .withRequest('GET', '/v1/lms/onboarding/mine', (b) => b.headers({ Authorization: bearer() }))
    .willRespondWith(200, (b) => b.jsonBody({ success: true, data: eachLike(learnerDraft) }))
    .executeTest(async (mock) => {
      await runScenario(t, await mockGateway(t, { lms: mock.url }), `
name: learner onboarding
steps:
  - id: start
    http: { method: POST, path: /v1/lms/onboarding/start, body: { persona: learner }, headers: { Authorization: "Bearer ${exampleAccessToken}" } }
    expect: { status: 201 }
  - id: mine
    http: { method: GET, path: /v1/lms/onboarding/mine, headers: { Authorization: "Bearer ${exampleAccessToken}" } }
    expect: { body: { "data[0].persona": learner } }
`);
    });
});

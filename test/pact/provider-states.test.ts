import test from 'ava';
import fs from 'node:fs';
import { loadStateDefinitions } from '../../server/platform/dev/provider-states.ts';
import { call, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';

// The dev-only provider-state endpoints (fixtures/states.md) over real HTTP.

let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform();
});
test.after.always(() => platform?.stop());

const changeState = (service: 'ol' | 'cap' | 'lms', body: unknown) =>
  call('POST', platform.url(`/v1/${service}/dev/provider-states`), { json: body });

test('a state answers exactly its documented values, bare, and a CAP state builds on the Orchestrator account', async (t) => {
  const res = await changeState('cap', {
    state: 'a user with an onboarding',
    params: { persona: 'assessor', stage: 'submitted' },
    action: 'setup',
  });
  t.is(res.status, 200);
  const documented = Object.keys(loadStateDefinitions('cap').get('a user with an onboarding')!.returns);
  t.deepEqual(Object.keys(res.body).sort(), documented.sort());

  const me = await call('GET', platform.url('/v1/cap/me'), { token: res.body.accessToken });
  t.is(me.body.data.email, res.body.email);
  t.deepEqual(me.body.data.assessor, { status: 'operable' });
  const mine = await call('GET', platform.url('/v1/cap/onboarding/mine'), { token: res.body.accessToken });
  t.is(mine.body.data.onboardings[0].onboardingId, res.body.onboardingId);
});

test('a platform admin may use the admin operations; a centre staff member acts for the centre', async (t) => {
  const admin = await changeState('cap', { state: 'a platform admin' });
  t.is(admin.status, 200);
  const list = await call('GET', platform.url('/v1/cap/admin/centres'), { token: admin.body.accessToken });
  t.is(list.status, 200);

  const member = await changeState('cap', { state: 'a centre staff member', params: { role: 'regular_admin' } });
  t.is(member.status, 200);
  const context = await call('GET', platform.url('/v1/cap/context'), { token: member.body.accessToken });
  t.deepEqual(context.body.data, { persona: 'centre', centreId: member.body.centreId, role: 'regular_admin' });
});

test('{states: [...]} sets each state up and merges their values; teardown answers {}', async (t) => {
  const res = await changeState('ol', {
    states: [
      'an address with no account',
      { name: 'a Google ID token for a new address', params: { email: 'grace@example.test' } },
    ],
  });
  t.is(res.status, 200);
  t.is(res.body.email, 'grace@example.test');
  t.regex(res.body.idToken, /^[\w-]+\.[\w-]+\.[\w-]+$/);

  const teardown = await changeState('ol', { state: 'a verified user', action: 'teardown' });
  t.is(teardown.status, 200);
  t.deepEqual(teardown.body, {});
});

test('the event states answer the event as the bus delivers it', async (t) => {
  const res = await changeState('ol', { state: 'a user.deleted event was published', params: { intents: ['lms'] } });
  t.is(res.status, 200);
  t.like(res.body.event, {
    type: 'user.deleted',
    source: 'ol',
    data: { userId: res.body.userId, email: res.body.email },
  });
  t.regex(res.body.event.id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
  t.is(new Date(res.body.event.occurredAt).toISOString(), res.body.event.occurredAt);
});

test('a state change naming no state (Pact sends one for an interaction without a state) answers {} on every service', async (t) => {
  for (const service of ['ol', 'cap', 'lms'] as const) {
    for (const body of [{ state: '', params: {}, action: 'setup' }, { action: 'setup' }, { states: [] }]) {
      const res = await changeState(service, body);
      t.is(res.status, 200, `${service} ${JSON.stringify(body)}: ${res.text}`);
      t.deepEqual(res.body, {});
    }
  }
});

test("the gateway's / answers a message verifier with the event its provider states publish", async (t) => {
  const res = await call('POST', platform.url('/'), {
    json: {
      description: 'a user.created event',
      providerStates: [{ name: 'a user.created event was published', params: { intents: ['lms'] } }],
    },
  });
  t.is(res.status, 200, res.text);
  t.like(res.body, { type: 'user.created', source: 'ol' });
  t.regex(res.body.id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
  t.regex(res.body.data.userId, /^[0-9A-HJKMNP-TV-Z]{26}$/);

  const lms = await call('POST', platform.url('/'), {
    json: {
      description: 'an lms.course.completed event',
      providerStates: [{ name: 'an lms.course.completed event was published' }],
    },
  });
  t.is(lms.status, 200, lms.text);
  t.like(lms.body, { type: 'lms.course.completed', source: 'lms' });

  const noState = await call('POST', platform.url('/'), { json: { description: 'a message', providerStates: [] } });
  t.is(noState.status, 400);
  t.is(noState.body.error.code, 'dev.provider_state_invalid');
  const noEvent = await call('POST', platform.url('/'), {
    json: { description: 'a message', providerStates: [{ name: 'a verified user' }] },
  });
  t.is(noEvent.status, 400);
  t.regex(noEvent.body.error.message, /publish an event/);
});

test('an unknown state or parameter is 400 dev.provider_state_invalid', async (t) => {
  const unknownState = await changeState('lms', { state: 'a course with lessons' });
  t.is(unknownState.status, 400);
  t.is(unknownState.body.error.code, 'dev.provider_state_invalid');
  t.regex(
    unknownState.body.error.message,
    /Unknown provider state "a course with lessons" \(known: "a verified user", /,
  );

  const unknownParam = await changeState('cap', { state: 'a verified user', params: { persona: 'centre' } });
  t.is(unknownParam.status, 400);
  t.regex(unknownParam.body.error.message, /takes no parameter persona/);
});

test('a state the platform cannot build is 500 dev.provider_state_failed with the reason', async (t) => {
  const res = await changeState('cap', { state: 'a user with an onboarding', params: { persona: 'awarding_body' } });
  t.is(res.status, 500);
  t.is(res.body.error.code, 'dev.provider_state_failed');
  t.regex(res.body.error.message, /POST \/onboarding\/start answered 403 onboarding\.invite_required/);
});

test('outside development mode the state endpoints answer 404', async (t) => {
  const live = await startTestPlatform({
    devMode: false,
    mailUrl: 'smtp://127.0.0.1:9',
    serviceApiKey: 'a-production-grade-service-key',
    googleClientId: 'test-google-client',
    identityHmacKey: 'test-identity-hmac-key',
    paymentSecretKey: 'test-payment-secret-key',
  });
  t.teardown(() => live.stop());
  for (const service of ['ol', 'cap', 'lms']) {
    const res = await call('POST', live.url(`/v1/${service}/dev/provider-states`), {
      json: { state: 'a verified user' },
    });
    t.is(res.status, 404, service);
    t.is(res.body.error.code, 'http.not_found');
  }
  const message = await call('POST', live.url('/'), {
    json: { description: 'a user.created event', providerStates: [{ name: 'a user.created event was published' }] },
  });
  t.is(message.status, 404);
  t.is(message.body.error.code, 'http.not_found');
});

test('the assessor market states: the assessor sees the posting and their request; the centre sees the assessor on its roster', async (t) => {
  const assessor = await changeState('cap', {
    state: 'an approved assessor with an open job posting',
    params: { requested: true, applied: true },
  });
  t.is(assessor.status, 200, assessor.text);
  t.deepEqual(
    Object.keys(assessor.body).sort(),
    Object.keys(loadStateDefinitions('cap').get('an approved assessor with an open job posting')!.returns).sort(),
  );
  const asAssessor = { token: assessor.body.accessToken, headers: { 'X-CAP-PERSONA': 'assessor' } };
  t.is(
    (await call('GET', platform.url('/v1/cap/assessor/job-postings'), asAssessor)).body.data[0].jobPostingId,
    assessor.body.jobPostingId,
  );
  t.is(
    (await call('GET', platform.url('/v1/cap/assessor/retained-requests'), asAssessor)).body.data[0].centreId,
    assessor.body.centreId,
  );

  const centre = await changeState('cap', {
    state: "a centre with an assessor's retained request",
    params: { approved: true },
  });
  t.is(centre.status, 200, centre.text);
  const roster = await call('GET', platform.url(`/v1/cap/centre/assessors/${centre.body.assessorId}`), {
    token: centre.body.accessToken,
    headers: { 'X-CAP-PERSONA': 'centre' },
  });
  t.like(roster.body.data, { status: 'approved', retainedRequestId: centre.body.retainedRequestId });
});

test("the README's table of provider states lists every state of every provider with exactly the values it answers", (t) => {
  const readme = fs.readFileSync('README.md', 'utf8');
  const rows = [...readme.matchAll(/^\| `(ol|cap|lms)` \| `([^`]+)` \| [^|]+ \| ([^|]+) \|$/gm)];
  const user = ['email', 'password', 'userId', 'accessToken', 'refreshToken'];
  const listed = new Map<string, string[]>();
  let previous: string[] = [];
  for (const [, provider, state, cell] of rows) {
    const values = cell!
      .trim()
      .split(', ')
      .flatMap((item) => (item === 'user' ? user : item === 'as above' ? previous : [item.replaceAll('`', '')]));
    listed.set(`${provider} | ${state}`, values.sort());
    previous = values;
  }
  const defined = new Map(
    (['ol', 'cap', 'lms'] as const).flatMap((provider) =>
      [...loadStateDefinitions(provider).values()].map(
        (d) => [`${provider} | ${d.name}`, Object.keys(d.returns).sort()] as const,
      ),
    ),
  );
  t.deepEqual([...listed.keys()].sort(), [...defined.keys()].sort());
  for (const [key, values] of defined) t.deepEqual(listed.get(key), values, key);
});

test('the people the interview states share outlive their access tokens: a later state signs them in again', async (t) => {
  t.timeout(300_000);
  const short = await startTestPlatform({ accessTokenTtlSeconds: 20 });
  try {
    const state = {
      state: 'an RPL application with an interview panel',
      params: { actor: 'voter', stage: 'folder_arrangement' },
    };
    const first = await call('POST', short.url('/v1/cap/dev/provider-states'), { json: state });
    t.is(first.status, 200, first.text);
    await new Promise((resolve) => setTimeout(resolve, 21_000)); // every token the first state made has expired
    const second = await call('POST', short.url('/v1/cap/dev/provider-states'), { json: state });
    t.is(second.status, 200, second.text);
    t.is(second.body.centreId, first.body.centreId, 'the shared centre');
  } finally {
    await short.stop();
  }
});

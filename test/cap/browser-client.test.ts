import test from 'ava';
import { loadDrafts } from '../../server/platform/dev/provider-states.ts';
import { browserTest, browserUnavailable, launchChromium, serveSite } from '../helpers/browser.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { testPassword, uniqueEmail } from '../helpers/users.ts';

// What the real web clients do, from a real browser on another origin than the API: every call is a
// cross-origin fetch with a bearer token and JSON, so every one is preflighted. The page below signs
// up, reads the code from the dev mailbox, verifies, saves a candidate onboarding with the client's
// phone shape, verifies a NIN, submits, and reads /me with X-CAP-PERSONA. If CORS or any of these
// calls regresses, a step's status is wrong or fetch throws ("Failed to fetch").
const it = browserTest(test);

// The page's own script: runs the flow against the API base it is given and reports every step.
const flow = `
async function run(api, email, password, draft) {
  const steps = [];
  let token;
  async function step(name, method, path, body, headers) {
    const res = await fetch(api + path, {
      method,
      headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: 'Bearer ' + token } : {}), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json();
    steps.push({ name, status: res.status, requestId: res.headers.get('X-Request-Id'), code: json.error && json.error.code });
    return json;
  }
  await step('register', 'POST', '/v1/ol/auth/register', { email, password, intents: ['cap'] });
  let otp;
  for (let i = 0; i < 100 && !otp; i++) {
    const mail = await step('mailbox', 'GET', '/v1/ol/dev/mailbox?to=' + encodeURIComponent(email));
    otp = mail.data[0] && mail.data[0].otp;
    if (!otp) await new Promise((r) => setTimeout(r, 100));
  }
  const verified = await step('verify-account', 'POST', '/v1/ol/auth/verify-account', { email, otp, purpose: 'account_verify' });
  token = verified.data.accessToken;
  await step('start', 'POST', '/v1/cap/onboarding/start', { persona: 'candidate' });
  const saved = await step('save', 'PATCH', '/v1/cap/onboarding/candidate/save', draft);
  await step('nin-mismatch', 'POST', '/v1/cap/identity-verification', { type: 'nin', identificationNumber: '20000000001' });
  await step('nin', 'POST', '/v1/cap/identity-verification', { type: 'nin', identificationNumber: '10000000001' });
  await step('submit', 'POST', '/v1/cap/onboarding/candidate/submit');
  const me = await step('me', 'GET', '/v1/cap/me', undefined, { 'X-CAP-PERSONA': 'candidate' });
  return { steps, phone: saved.data.data.contactInformation.phoneNumber, me: me.data };
}
`;

let platform: TestPlatform;
test.before(async () => {
  if (!browserUnavailable()) platform = await startTestPlatform();
});
test.after.always(() => platform?.stop());

it('a web client on another origin signs up, verifies, onboards with its phone shape, verifies a NIN and reads /me, all through fetch', async (t) => {
  const site = await serveSite({
    '/': { type: 'text/html', body: '<!doctype html><title>client</title><script src="/flow.js"></script>' },
    '/flow.js': { type: 'text/javascript', body: flow },
  });
  t.teardown(() => site.close());
  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const page = await browser.newPage();
  await page.goto(`${site.origin}/`);
  t.not(
    new URL(site.origin).origin,
    new URL(platform.urls.gateway!).origin,
    'the page and the API are different origins',
  );

  const phone = { countryCode: '+NG', number: '+2348031234567' };
  const draft = {
    ...loadDrafts('cap').candidate,
    contactInformation: { emailAddress: 'ada@example.test', phoneNumber: phone },
  };
  const result = (await page.evaluate(
    ([api, email, password, body]) => (window as unknown as { run: Function }).run(api, email, password, body),
    [platform.urls.gateway!, uniqueEmail('browser'), testPassword, draft] as const,
  )) as {
    steps: Array<{ name: string; status: number; requestId: string | null; code?: string }>;
    phone: unknown;
    me: any;
  };

  const status = Object.fromEntries(result.steps.filter((s) => s.name !== 'mailbox').map((s) => [s.name, s.status]));
  t.deepEqual(status, {
    register: 201,
    'verify-account': 200,
    start: 201,
    save: 200,
    'nin-mismatch': 422,
    nin: 200,
    submit: 200,
    me: 200,
  });
  t.is(result.steps.find((s) => s.name === 'nin-mismatch')!.code, 'identity.not_verified');
  t.deepEqual(result.phone, phone, 'the phone reads back as the client sent it');
  t.true(result.me.identityVerified);
  t.deepEqual(result.me.candidate, { status: 'operable' });
  t.true(
    result.steps.every((s) => typeof s.requestId === 'string' && s.requestId.length > 0),
    'X-Request-Id is exposed to the page',
  );
});

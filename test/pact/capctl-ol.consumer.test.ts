import test from 'ava';
import { MatchersV3 } from '@pact-foundation/pact';
import { capctlMessagingPacts } from './capctl-ol-messaging.ts';
import { capctlPaymentPacts } from './capctl-ol-payments.ts';
import {
  bearer,
  capctl,
  configDir,
  email,
  errorBody,
  isoDateTime,
  jwt,
  mockGateway,
  pactFiles,
  runScenario,
  stepTests,
  ulid,
} from './support.ts';

// capctl -> Orchestrator: the calls capctl's account commands and its scenario runner make, driven
// through the real client code against Pact's mock server. Writes pacts/capctl-ol.json; the payment
// interactions (capctl pay, the sandbox-payment scenario) are in capctl-ol-payments.ts.

const { eachLike, fromProviderState, like, regex, string } = MatchersV3;
const pact = pactFiles(test);
const olPact = () => pact('capctl', 'ol');
capctlPaymentPacts(test, olPact);
capctlMessagingPacts(test, (options) => pact('capctl', 'ol', options));

const authUser = (authProvider: 'password' | 'google', mustChangePassword = false) => ({
  userId: ulid(),
  id: ulid(),
  email: email(),
  phone: null,
  authProvider,
  status: 'active',
  intents: eachLike('cap'),
  mustChangePassword,
  createdAt: isoDateTime(),
});
const authResult = (authProvider: 'password' | 'google', mustChangePassword = false) => ({
  accessToken: jwt(),
  refreshToken: string('example-refresh-token'),
  user: authUser(authProvider, mustChangePassword),
});

const stateEmail = fromProviderState('${email}', 'ada@example.test');
const statePassword = fromProviderState('${password}', 'Pact-pass-2024');

test.serial('capctl register sends the address, password and intents and reads the new pending account', async (t) => {
  const cli = configDir(t);
  await olPact()
    .addInteraction()
    .given('an address with no account')
    .uponReceiving('a registration')
    .withRequest('POST', '/v1/ol/auth/register', (b) =>
      b.jsonBody({ email: stateEmail, password: like('Pact-pass-2024'), intents: ['cap'] }),
    )
    .willRespondWith(201, (b) =>
      b.jsonBody({ success: true, data: { userId: ulid(), email: email(), status: 'pending_verification' } }),
    )
    .executeTest(async (mock) => {
      const run = await capctl(
        t,
        cli.dir,
        'register',
        '--email',
        'ada@example.test',
        '--password',
        'Pact-pass-2024',
        '--base-url',
        mock.url,
        '--json',
      );
      t.is(run.code, 0, run.stderr);
      t.like(JSON.parse(run.stdout), { email: 'ada@example.test', status: 'pending_verification' });
    });
});

test.serial(
  'capctl verify reads the code from the dev mailbox, verifies the account and keeps the session',
  async (t) => {
    const cli = configDir(t);
    const ol = olPact();
    ol.addInteraction()
      .given('an account waiting for verification')
      .uponReceiving('a read of the dev mailbox')
      .withRequest('GET', '/v1/ol/dev/mailbox', (b) => b.query({ to: stateEmail }))
      .willRespondWith(200, (b) =>
        b.jsonBody({
          success: true,
          // A new address's mailbox: exactly the mail the state sent.
          data: [
            {
              id: ulid(),
              to: email(),
              template: 'account_verify',
              subject: string('Your verification code'),
              text: string('Your code is 1234.'),
              sentAt: isoDateTime(),
              otp: regex('^[0-9]{4}$', '1234'),
            },
          ],
        }),
      );
    await ol
      .addInteraction()
      .given('an account waiting for verification')
      .uponReceiving('an account verification with the mailed code')
      .withRequest('POST', '/v1/ol/auth/verify-account', (b) =>
        b.jsonBody({ email: stateEmail, otp: fromProviderState('${otp}', '1234'), purpose: 'account_verify' }),
      )
      .willRespondWith(200, (b) => b.jsonBody({ success: true, data: authResult('password') }))
      .executeTest(async (mock) => {
        const run = await capctl(t, cli.dir, 'verify', '--email', 'ada@example.test', '--base-url', mock.url, '--json');
        t.is(run.code, 0, run.stderr);
        t.like(JSON.parse(run.stdout), { profile: 'default', user: { status: 'active' } });
      });
  },
);

test.serial('capctl login signs in with email and password', async (t) => {
  const cli = configDir(t);
  await olPact()
    .addInteraction()
    .given('a verified user')
    .uponReceiving('a login with email and password')
    .withRequest('POST', '/v1/ol/auth/login', (b) => b.jsonBody({ email: stateEmail, password: statePassword }))
    .willRespondWith(200, (b) => b.jsonBody({ success: true, data: authResult('password') }))
    .executeTest(async (mock) => {
      const run = await capctl(
        t,
        cli.dir,
        'login',
        '--email',
        'ada@example.test',
        '--password',
        'Pact-pass-2024',
        '--base-url',
        mock.url,
        '--json',
      );
      t.is(run.code, 0, run.stderr);
    });
});

test.serial('capctl logout renews an expired access token first, then ends the session', async (t) => {
  const cli = configDir(t);
  const expired = `${Buffer.from('{"alg":"RS256"}').toString('base64url')}.${Buffer.from('{"exp":1}').toString('base64url')}.c2ln`;
  const ol = olPact();
  ol.addInteraction()
    .given('a verified user')
    .uponReceiving('a session refresh')
    .withRequest('POST', '/v1/ol/auth/refresh', (b) =>
      b.jsonBody({ refreshToken: fromProviderState('${refreshToken}', 'example-refresh-token') }),
    )
    .willRespondWith(200, (b) =>
      b.jsonBody({ success: true, data: { accessToken: jwt(), refreshToken: string('example-refresh-token') } }),
    );
  await ol
    .addInteraction()
    .given('a verified user')
    .uponReceiving('a logout')
    .withRequest('POST', '/v1/ol/auth/logout', (b) =>
      b
        .headers({ Authorization: bearer() })
        .jsonBody({ refreshToken: fromProviderState('${refreshToken}', 'example-refresh-token') }),
    )
    .willRespondWith(200, (b) => b.jsonBody({ success: true, data: { loggedOut: true } }))
    .executeTest(async (mock) => {
      cli.signedIn(mock.url, expired);
      const run = await capctl(t, cli.dir, 'logout', '--json');
      t.is(run.code, 0, run.stderr);
      t.like(JSON.parse(run.stdout), { alreadyEnded: false });
    });
});

const googleTokenRequest = (ol: ReturnType<typeof olPact>) =>
  ol
    .addInteraction()
    .given('an address with no account')
    .uponReceiving('a request for a sandbox Google ID token')
    .withRequest('POST', '/v1/ol/dev/google/id-token', (b) => b.jsonBody({ email: stateEmail }))
    .willRespondWith(200, (b) => b.jsonBody({ success: true, data: { idToken: jwt() } }));

test.serial('capctl google-token mints an ID token from the sandbox issuer', async (t) => {
  const cli = configDir(t);
  await googleTokenRequest(olPact()).executeTest(async (mock) => {
    const run = await capctl(
      t,
      cli.dir,
      'google-token',
      '--email',
      'ada@example.test',
      '--base-url',
      mock.url,
      '--json',
    );
    t.is(run.code, 0, run.stderr);
    t.truthy(JSON.parse(run.stdout).idToken);
  });
});

test.serial('capctl run checks the platform is up, then signs in with a sandbox Google ID token', async (t) => {
  const ol = olPact();
  googleTokenRequest(ol);
  ol.addInteraction()
    .uponReceiving('a health check')
    .withRequest('GET', '/v1/ol/healthz')
    .willRespondWith(200, (b) => b.jsonBody({ success: true, data: { status: 'ok', service: 'ol' } }));
  await ol
    .addInteraction()
    .given('a Google ID token for a new address')
    .uponReceiving('a Google sign-in')
    .withRequest('POST', '/v1/ol/auth/google', (b) =>
      b.jsonBody({
        idToken: fromProviderState('${idToken}', 'eyJhbGciOiJSUzI1NiJ9.eyJlbWFpbCI6ImFkYUBleGFtcGxlLnRlc3QifQ.c2ln'),
        provider: 'google',
        intents: ['cap'],
      }),
    )
    .willRespondWith(200, (b) => b.jsonBody({ success: true, data: { ...authResult('google'), isNewUser: true } }))
    .executeTest(async (mock) => {
      await runScenario(
        t,
        mock.url,
        `
name: Google sign-in
steps:
  - id: token
    http: { method: POST, path: /v1/ol/dev/google/id-token, body: { email: ada@example.test } }
  - id: google
    http:
      method: POST
      path: /v1/ol/auth/google
      body: { idToken: "\${steps.token.body.data.idToken}", provider: google, intents: [cap] }
    expect: { body: { data.isNewUser: true, data.user.authProvider: google } }
`,
      );
    });
});

// --- The other Orchestrator steps of the bundled scenarios, as capctl run makes them ----------------

const generatedPassword = fromProviderState('${password}', 'bCcY5QiGXCSt8Y69bDig');

stepTests(test, olPact, 'ol', [
  {
    rule: 'signing in before verification is 403 auth.account_not_verified',
    description: 'a login to an account waiting for verification',
    states: [['an account waiting for verification']],
    method: 'POST',
    path: '/v1/ol/auth/login',
    signedIn: false,
    body: { email: stateEmail, password: statePassword },
    status: 403,
    response: errorBody('auth.account_not_verified'),
  },
  {
    rule: 'a wrong password is 401 auth.invalid_credentials',
    description: 'a login with a wrong password',
    states: [['a verified user']],
    method: 'POST',
    path: '/v1/ol/auth/login',
    signedIn: false,
    body: { email: stateEmail, password: 'Not-the-password-1' },
    status: 401,
    response: errorBody('auth.invalid_credentials'),
  },
  {
    rule: 'signing in with a generated password says the password must be changed',
    description: 'a login with a generated password',
    states: [['an account with a generated password']],
    method: 'POST',
    path: '/v1/ol/auth/login',
    signedIn: false,
    body: { email: stateEmail, password: generatedPassword },
    status: 200,
    response: { success: true, data: authResult('password', true) },
  },
  {
    rule: 'change-password replaces the generated password and answers a fresh pair',
    description: 'a change of a generated password',
    states: [['an account with a generated password']],
    method: 'PATCH',
    path: '/v1/ol/auth/change-password',
    body: { currentPassword: generatedPassword, newPassword: like('Staff-chosen-2024') },
    status: 200,
    response: { success: true, data: { accessToken: jwt(), refreshToken: string('example-refresh-token') } },
  },
  {
    rule: 'presenting a used refresh token again is 401 auth.refresh_invalid',
    description: 'a session refresh with a used refresh token',
    states: [['a user whose refresh token was used']],
    method: 'POST',
    path: '/v1/ol/auth/refresh',
    signedIn: false,
    body: { refreshToken: fromProviderState('${usedRefreshToken}', 'used-refresh-token') },
    status: 401,
    response: errorBody('auth.refresh_invalid'),
  },
]);

test.serial('capctl run reads a generated password from the dev mailbox', async (t) => {
  await olPact()
    .addInteraction()
    .given('an account with a generated password')
    .uponReceiving('a read of the dev mailbox of a provisioned account')
    .withRequest('GET', '/v1/ol/dev/mailbox', (b) => b.query({ to: stateEmail }))
    .willRespondWith(200, (b) =>
      b.jsonBody({
        success: true,
        // A new address's mailbox: exactly the mail the state sent.
        data: [
          {
            id: ulid(),
            to: email(),
            template: 'provisioned_account',
            subject: string('Your CAP account is ready'),
            text: string('Sign in with this temporary password: bCcY5QiGXCSt8Y69bDig'),
            sentAt: isoDateTime(),
            password: string('bCcY5QiGXCSt8Y69bDig'),
          },
        ],
      }),
    )
    .executeTest(async (mock) => {
      await runScenario(
        t,
        await mockGateway(t, { ol: mock.url }),
        `
name: provisioned password
steps:
  - id: password-mail
    mail: { to: ada@example.test }
    expect:
      body:
        password: { type: string, minLength: 8 }
`,
      );
    });
});

// Reference data (catalogue.yaml): public lists, no state needed beyond a running Orchestrator.
stepTests(test, olPact, 'ol', [
  {
    rule: 'anyone lists the Nigerian banks with their codes',
    description: 'a read of the Nigerian banks',
    states: [['a verified user']],
    method: 'GET',
    path: '/v1/ol/banks',
    query: { country: 'NG' },
    signedIn: false,
    status: 200,
    response: {
      success: true,
      data: eachLike({
        id: string('NG-044'),
        name: string('Access Bank'),
        slug: string('access-bank'),
        code: string('044'),
        type: string('commercial'),
        currency: 'NGN',
        country: 'NG',
      }),
    },
  },
  {
    rule: "anyone lists Nigeria's states by name",
    description: "a read of Nigeria's states",
    states: [['a verified user']],
    method: 'GET',
    path: '/v1/ol/address/countries/NG/states',
    signedIn: false,
    status: 200,
    response: { success: true, data: eachLike({ name: string('Lagos') }, 37) },
  },
]);

// Storage resolve and delete (storage-and-messages.yaml): only the caller's own assets.
const assetId = fromProviderState('${assetId}', '01J9Z8X7W6V5T4S3R2Q1P0ASST');
stepTests(test, olPact, 'ol', [
  {
    rule: "resolve answers a short-lived URL of the caller's own asset",
    description: "a resolve of the caller's asset",
    states: [['a confirmed asset']],
    method: 'POST',
    path: '/v1/ol/storage/resolve',
    body: { assetIds: [assetId] },
    status: 200,
    response: {
      success: true,
      data: eachLike({
        assetId: string('01J9Z8X7W6V5T4S3R2Q1P0ASST'),
        url: string('http://127.0.0.1:4000/v1/ol/storage/assets/01J9Z8X7W6V5T4S3R2Q1P0ASST?expires=1&signature=s'),
        expiresAt: string('2026-01-01T00:00:00.000Z'),
        mimeType: 'image/png',
        fileName: string('passport.png'),
      }),
    },
  },
  {
    rule: 'an asset id the caller does not own resolves to nothing, never to a URL',
    description: 'a resolve of an asset that is not the caller',
    states: [['a verified user']],
    method: 'POST',
    path: '/v1/ol/storage/resolve',
    body: { assetIds: ['01J9Z8X7W6V5T4S3R2Q1P0NQNE'] },
    status: 200,
    response: { success: true, data: [] },
  },
  {
    rule: 'the owner deletes their asset',
    description: "a deletion of the caller's asset",
    states: [['a confirmed asset']],
    method: 'DELETE',
    path: fromProviderState('/v1/ol/storage/${assetId}', '/v1/ol/storage/01J9Z8X7W6V5T4S3R2Q1P0ASST'),
    status: 200,
    response: { success: true, data: { assetId: string('01J9Z8X7W6V5T4S3R2Q1P0ASST'), deleted: true } },
  },
]);

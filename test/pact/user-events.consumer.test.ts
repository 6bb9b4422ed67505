import test from 'ava';
import { MatchersV3 } from '@pact-foundation/pact';
import { importJWK, SignJWT, type JWK } from 'jose';
import { createBearerAuth } from '../../server/platform/auth/bearer.ts';
import type { PlatformEvent } from '../../server/platform/events/types.ts';
import type { Call } from '../../server/platform/http/operations.ts';
import { eventually, sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { capOrchestratorHttpPacts } from './cap-ol-http.ts';
import { paymentCompletedPacts, paymentRefundedPacts } from './payment-events.ts';
import { email, isoDateTime, pactFiles, ulid } from './support.ts';

// CAP and the LMS consume the Orchestrator's user.created and user.deleted. Each message is put in
// OL's outbox of a real platform, so the real bus delivers it to the real consumer (cap.provision-user,
// lms.deactivate-user, ...), and the test checks the consumer's effect. CAP also fetches OL's JWKS
// over HTTP to check access tokens (server/platform/auth/bearer.ts). Writes pacts/cap-ol.json (the
// HTTP interaction and the messages in one V4 pact) and pacts/lms-ol.json. The payment.completed
// messages of the same pacts are in payment-events.ts.

const { eachLike, regex, string } = MatchersV3;
const pact = pactFiles(test);
paymentCompletedPacts(test, pact);
paymentRefundedPacts(test, pact);
capOrchestratorHttpPacts(test, pact);

let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform();
});
test.after.always(() => platform?.stop());

/** Publishes the message as OL's outbox holds an event and waits until the consumer has processed it. */
async function deliver(message: unknown, consumer: string) {
  const event = message as PlatformEvent;
  await sql(platform, 'INSERT INTO ol.outbox (id, type, occurred_at, source, data) VALUES ($1, $2, $3, $4, $5)', [
    event.id,
    event.type,
    event.occurredAt,
    event.source,
    JSON.stringify(event.data),
  ]);
  const schema = consumer.split('.')[0];
  await eventually(
    `${consumer} processes ${event.type} ${event.id}`,
    async () =>
      (await sql(platform, `SELECT 1 FROM ${schema}.inbox WHERE consumer = $1 AND event_id = $2`, [consumer, event.id]))
        .length === 1,
  );
}

const envelope = (type: string, eventId: string, data: Record<string, unknown>) => ({
  id: ulid(eventId),
  type,
  occurredAt: isoDateTime(),
  source: 'ol',
  data,
});

test.serial('CAP provisions a CAP user from user.created', async (t) => {
  const userId = '01J9Z8X7W6V5T4S3R2Q1P0CAP1';
  await pact('cap', 'ol')
    .addAsynchronousInteraction()
    .given('a user.created event was published', { intents: ['cap'] })
    .expectsToReceive('a user.created event', (m) =>
      m.withJSONContent(
        envelope('user.created', '01J9Z8X7W6V5T4S3R2Q1P0EV01', {
          userId: ulid(userId),
          email: email(),
          intents: eachLike('cap'),
        }),
      ),
    )
    .executeTest(async (message) => {
      await deliver(message.contents.content, 'cap.provision-user');
      t.deepEqual(await sql(platform, 'SELECT status, email FROM cap.users WHERE user_id = $1', [userId]), [
        { status: 'active', email: 'ada@example.test' },
      ]);
    });
});

test.serial('CAP deactivates the CAP user on user.deleted', async (t) => {
  const userId = '01J9Z8X7W6V5T4S3R2Q1P0CAP1';
  await pact('cap', 'ol')
    .addAsynchronousInteraction()
    .given('a user.deleted event was published')
    .expectsToReceive('a user.deleted event', (m) =>
      m.withJSONContent(
        envelope('user.deleted', '01J9Z8X7W6V5T4S3R2Q1P0EV02', { userId: ulid(userId), email: email() }),
      ),
    )
    .executeTest(async (message) => {
      await deliver(message.contents.content, 'cap.deactivate-user');
      t.deepEqual(await sql(platform, 'SELECT status FROM cap.users WHERE user_id = $1', [userId]), [
        { status: 'deactivated' },
      ]);
    });
});

test.serial('the LMS provisions an LMS user from user.created', async (t) => {
  const userId = '01J9Z8X7W6V5T4S3R2Q1P0LMS1';
  await pact('lms', 'ol')
    .addAsynchronousInteraction()
    .given('a user.created event was published', { intents: ['lms'] })
    .expectsToReceive('a user.created event', (m) =>
      m.withJSONContent(
        envelope('user.created', '01J9Z8X7W6V5T4S3R2Q1P0EV03', { userId: ulid(userId), email: email() }),
      ),
    )
    .executeTest(async (message) => {
      await deliver(message.contents.content, 'lms.provision-user');
      t.deepEqual(await sql(platform, 'SELECT status, email FROM lms.lms_users WHERE user_id = $1', [userId]), [
        { status: 'active', email: 'ada@example.test' },
      ]);
    });
});

test.serial('the LMS deactivates the LMS user on user.deleted', async (t) => {
  const userId = '01J9Z8X7W6V5T4S3R2Q1P0LMS1';
  await pact('lms', 'ol')
    .addAsynchronousInteraction()
    .given('a user.deleted event was published')
    .expectsToReceive('a user.deleted event', (m) =>
      m.withJSONContent(envelope('user.deleted', '01J9Z8X7W6V5T4S3R2Q1P0EV04', { userId: ulid(userId) })),
    )
    .executeTest(async (message) => {
      await deliver(message.contents.content, 'lms.deactivate-user');
      t.deepEqual(await sql(platform, 'SELECT status FROM lms.lms_users WHERE user_id = $1', [userId]), [
        { status: 'deactivated' },
      ]);
    });
});

/**
 * A fixed RSA key of the test's own (an example, trusted by nothing): the pact's example key set is its
 * public half, so the token it signs checks out against what the mock serves, and the pact file stays
 * the same from run to run.
 */
const exampleKey: JWK = {
  kty: 'RSA',
  n: 'lFttfAvdvQXk93SnNHMylUurHRI1LIjdmQDersme44n-oKjmKvxQyXLjtjkW3PH4sca1U5QY8FkYkyLJ3X5tKc2_hkkXQlGjpzs_pFbXGrugwFuKyzhBhI3faFBcqgf8mwBhhdRH-8nm3eOBKTFXSYKPRWpgMt3nWEOSPMJ7lU1PJsot-GiEbGl3OtlPvh1wElqlhps2EV6pLcUFDkEpqnwrOkIt7aAxJ3Y320vHi_XyDDIINOAcd0RBVQDVPEOBMpr4ws9WeM-PxZG3Sy2jjP8OizBBWolx10k3oD7EZCan9T2CFKxDPbwj3fUpBKBr-Vren03gXH1KMrswfQjNxQ',
  e: 'AQAB',
  d: 'F9HDFxTHpfrti26DDwiE4VQMFeePuoYCADgTyL_t3w4PoAdmJxYqOWHVHjN10IUYHyDuiYwAYgyIBc2i2AldqQXT_5E6Jwd5DVdVrULVGAFyepfoBZ9TY58stLCcZB9SpydNQSG3af19b_hAS1cU8uQ_sQ82gUxAAdudfdxi37JSiYm4vCEfnBw-xtxDhSWTy4Kkaa288_IUuYwUpqmkExxMFjiz_Rv54OrlQ3z815peS-NnbOjpdGnltJ8AXbrMqpSdHDwOEJeJ7WHd8DrvlH-heHPCe68BjdCBzjDNgHE2NbanymvK3HLIggI8oNlmX7T4jmYzP8M2OTj7GViC2Q',
  p: 'ygK9Uicwmtx69r9DlZivU7AQfIxpMwr4d_K14a-0NDy9_1kryFSU8xo3c7yzqPyamguoXNTpR-kPfa-5MafCLVGEIFEEGImgwbUkTaUQPXxK5vjtvvHx2-OvdkO6HtBabFTM-WbvCanJc4HRgTNvx1ambGx-ekf26Szg9yZiIek',
  q: 'vAHLUh9hSnRW7SjbnDLrHFO65fXUpQFyhF-QZTqreWKdgq4UdrGcg3XDgLxps_h_TIll3f8nxzu6GsyVxF7ZR-ydU-ImLY0MNUPrY3qhDLeWCqdg0b-D51A9SE5AnfsIzadQ4AsuJiav76n7N3x5b_QoSkoM933nDus4DG49530',
  dp: 'T7UjBH5oJEKo1iGDxkw3qdrHto0kmTpT7eg7sfBFN3NcOJvztZkCKKYIiUdE0IHTcsL0zKRJ49DnBt3GQfyClqUacDHnXtM3NheGWoitzsTzPQ2tqXEH0I6XVh_FGZF2jFYthp8B5Js03Lm1c7ha-5mKEy__-7nXiAvoPDzN7bk',
  dq: 'WQrEgBWKn5ewH8yNDlJzVcw2JXmjh67CzPzxx2_dDLVvAhhuarS9-ukIee1CZtFXgSlFzLlu3oZkIxMoD4QYhl8DOFpQWJyH3qZXUpsesYY1ksApM83vq9st2xPsuKXPSo9m12WUKs-B3hF0gJf8b9CEUIL31zOS_lbbCdAgk4U',
  qi: 'KvAfocRE7rxCJvVGgZCICFYYfrANAIEzFxeDi6Rvxvf_ZrKfUO3noAAXqizqhC1hHTvFZEqIZMj9LbdvryAooKBe6ZMELVeZhCljM30DZPYMhbp4HIG1v6sdN8P-Ztn39ROMiXz2PKx-SW9dhsJkWThx2Yygh53Ar9b2VRZ_xow',
};

test.serial("CAP checks an access token against the Orchestrator's published keys", async (t) => {
  const kid = 'pact-example-key';
  const privateKey = await importJWK(exampleKey, 'RS256');
  const jwk = { n: exampleKey.n!, e: exampleKey.e! };
  const issuer = 'cap-platform-ol';
  const audience = 'cap-platform';
  const userId = '01J9Z8X7W6V5T4S3R2Q1P0N9M8';
  const token = await new SignJWT({ email: 'ada@example.test', intents: ['cap'] })
    .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
    .setSubject(userId)
    .setIssuer(issuer)
    .setAudience(audience)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(privateKey);

  await pact('cap', 'ol')
    .addInteraction()
    .uponReceiving('a read of the access-token key set')
    .withRequest('GET', '/v1/ol/.well-known/jwks.json')
    .willRespondWith(200, (b) =>
      b.headers({ 'Content-Type': regex('^application/json(;.*)?$', 'application/json') }).jsonBody({
        keys: eachLike({
          kty: 'RSA',
          kid: string(kid),
          alg: 'RS256',
          use: 'sig',
          n: regex('^[A-Za-z0-9_-]+$', jwk.n),
          e: regex('^[A-Za-z0-9_-]+$', jwk.e),
        }),
      }),
    )
    .executeTest(async (mock) => {
      const authenticate = createBearerAuth({
        jwksUrl: () => `${mock.url}/v1/ol/.well-known/jwks.json`,
        issuer,
        audience,
        allowedBeforePasswordChange: [],
      });
      const call = { req: { headers: { authorization: `Bearer ${token}` } } } as unknown as Call;
      await authenticate(call);
      t.like(call.principal, { kind: 'user', userId, email: 'ada@example.test', intents: ['cap'] });
      // The mock records the request in the background after answering.
      await new Promise((resolve) => setTimeout(resolve, 100));
    });
});

/**
 * CAP -> Orchestrator over HTTP with the service key: resolving asset ids to URLs (logos, photos,
 * signatures), checking that an asset is the caller's own (with the caller's token), and broadcasting.
 * The consumer side is CAP's own client (server/contracts/orchestrator-client.ts), pointed at the mock. Registered
 * into user-events.consumer.test.ts, which writes pacts/cap-ol.json.
 */
import type { TestFn } from 'ava';
import { MatchersV3, type PactV4 } from '@pact-foundation/pact';
import { createOrchestratorHttp } from '../../server/contracts/orchestrator-client.ts';
import { createLogger } from '../../server/platform/logger.ts';
import { bearer, serviceKey as serviceKeyValue, ulid } from './support.ts';

const { eachLike, fromProviderState, integer, regex, string } = MatchersV3;

const exampleAsset = '01J9Z8X7W6V5T4S3R2Q1P0AS01';
const exampleSender = '01J9Z8X7W6V5T4S3R2Q1P0N9M8';
const exampleRecipient = '01J9Z8X7W6V5T4S3R2Q1P0RCP1';
const serviceKey = { 'x-platform-service-key': serviceKeyValue() };
const serviceState = 'a platform service calling with its key';

export function capOrchestratorHttpPacts(test: TestFn, pact: (consumer: string, provider: string) => PactV4): void {
  const client = (mockUrl: string) =>
    createOrchestratorHttp(() => `${mockUrl}/v1/ol`, 'example-service-key', createLogger('silent'));

  test.serial("CAP resolves a user's asset to a short-lived URL with the service key", async (t) => {
    await pact('cap', 'ol')
      .addInteraction()
      .given('a confirmed asset')
      .given(serviceState)
      .uponReceiving('a resolve of an asset by a platform service')
      .withRequest('POST', '/v1/ol/storage/resolve', (b) =>
        b.headers(serviceKey).jsonBody({ assetIds: [fromProviderState('${assetId}', exampleAsset)] }),
      )
      .willRespondWith(200, (b) =>
        b.jsonBody({
          success: true,
          data: eachLike({
            assetId: ulid(exampleAsset),
            url: regex(
              '^https?://\\S+$',
              `http://127.0.0.1:4000/v1/ol/storage/assets/${exampleAsset}?expires=1&signature=s`,
            ),
          }),
        }),
      )
      .executeTest(async (mock) => {
        const orchestrator = client(mock.url);
        const urlOf = await orchestrator.assetUrls([exampleAsset]);
        await orchestrator.close();
        t.regex(urlOf(exampleAsset) ?? '', /^http:\/\/127\.0\.0\.1:4000\/v1\/ol\/storage\/assets\//);
      });
  });

  test.serial("CAP checks that an asset is the caller's own by resolving it with the caller's token", async (t) => {
    await pact('cap', 'ol')
      .addInteraction()
      .given('a confirmed asset')
      .uponReceiving("a resolve of the caller's asset with the caller's token")
      .withRequest('POST', '/v1/ol/storage/resolve', (b) =>
        b.headers({ authorization: bearer() }).jsonBody({ assetIds: [fromProviderState('${assetId}', exampleAsset)] }),
      )
      .willRespondWith(200, (b) =>
        b.jsonBody({
          success: true,
          data: eachLike({ assetId: ulid(exampleAsset), url: string('http://127.0.0.1:4000/a') }),
        }),
      )
      .executeTest(async (mock) => {
        const orchestrator = client(mock.url);
        const owned = await orchestrator.ownsAsset('example.access.token', exampleAsset);
        await orchestrator.close();
        t.true(owned);
      });
  });

  test.serial('CAP broadcasts on behalf of a sender with the service key, one thread per recipient', async (t) => {
    await pact('cap', 'ol')
      .addInteraction()
      .given('a user with someone to write to')
      .given(serviceState)
      .uponReceiving('a broadcast by a platform service on behalf of a user')
      .withRequest('POST', '/v1/ol/conversations/broadcast', (b) =>
        b.headers(serviceKey).jsonBody({
          senderId: fromProviderState('${userId}', exampleSender),
          recipientIds: [fromProviderState('${recipientId}', exampleRecipient)],
          message: 'The centre closes early on Friday.',
          subject: 'Friday hours',
        }),
      )
      .willRespondWith(200, (b) =>
        b.jsonBody({
          success: true,
          data: { message: string('Broadcast sent to 1 recipient.'), recipientCount: integer(1) },
        }),
      )
      .executeTest(async (mock) => {
        const orchestrator = client(mock.url);
        const sent = await orchestrator.broadcast({
          senderId: exampleSender,
          recipientIds: [exampleRecipient],
          message: 'The centre closes early on Friday.',
          subject: 'Friday hours',
        });
        await orchestrator.close();
        t.is(sent.recipientCount, 1);
      });
  });
}

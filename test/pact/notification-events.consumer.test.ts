import test from 'ava';
import { MatchersV3 } from '@pact-foundation/pact';
import type { PlatformEvent } from '../../server/platform/events/types.ts';
import { eventually, sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { isoDateTime, pactFiles, ulid } from './support.ts';

// The Orchestrator's notification consumer (ol.notifications) takes notification.requested from
// whoever publishes it. The message is put in an outbox of a real platform, the real bus delivers it,
// and the test checks the effect: the inbox row. Writes pacts/ol-notifications-ol.json.

const { eachLike, like, string } = MatchersV3;
const pact = pactFiles(test);

let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform();
});
test.after.always(() => platform?.stop());

test.serial(
  'the notification consumer puts a conversation notice from notification.requested in the inbox',
  async (t) => {
    const notificationId = '01J9Z8X7W6V5T4S3R2Q1P0NT02';
    const userId = '01J9Z8X7W6V5T4S3R2Q1P0USR2';
    await pact('ol-notifications', 'ol')
      .addAsynchronousInteraction()
      .given('a notification.requested event was published')
      .expectsToReceive('a notification.requested event for the inbox', (m) =>
        m.withJSONContent({
          id: ulid('01J9Z8X7W6V5T4S3R2Q1P0EV05'),
          type: 'notification.requested',
          occurredAt: isoDateTime(),
          source: 'ol',
          data: {
            notificationId: ulid(notificationId),
            userId: ulid(userId),
            to: null,
            template: string('conversation.message'),
            category: 'system',
            title: string('New message: Interview slot'),
            description: string('Does Monday suit you?'),
            link: string('/messages?conversationId=01J9Z8X7W6V5T4S3R2Q1P0CV01'),
            metadata: like({ conversationId: ulid(), messageId: ulid(), senderId: ulid() }),
            channels: eachLike('in_app'),
          },
        }),
      )
      .executeTest(async (message) => {
        const event = message.contents.content as unknown as PlatformEvent;
        await sql(platform, 'INSERT INTO ol.outbox (id, type, occurred_at, source, data) VALUES ($1, $2, $3, $4, $5)', [
          event.id,
          event.type,
          event.occurredAt,
          event.source,
          JSON.stringify(event.data),
        ]);
        await eventually(
          'ol.notifications processes the event',
          async () =>
            (
              await sql(platform, `SELECT 1 FROM ol.inbox WHERE consumer = 'ol.notifications' AND event_id = $1`, [
                event.id,
              ])
            ).length === 1,
        );
        t.deepEqual(
          await sql(platform, 'SELECT user_id, category, type, title FROM ol.inbox_notifications WHERE id = $1', [
            notificationId,
          ]),
          [{ user_id: userId, category: 'system', type: 'conversation.message', title: 'New message: Interview slot' }],
        );
      });
  },
);

import test from 'ava';
import { MatchersV3 } from '@pact-foundation/pact';
import type { PlatformEvent } from '../../server/platform/events/types.ts';
import { eventually, sql } from '../helpers/cap.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { email, isoDateTime, pactFiles, ulid } from './support.ts';

// CAP and the LMS consume the Orchestrator's user.created and user.deleted. Each message is put in
// OL's outbox of a real platform, so the real bus delivers it to the real consumer (cap.provision-user,
// lms.deactivate-user, ...), and the test checks the consumer's effect. Writes pacts/cap-ol.json and
// pacts/lms-ol.json.

const { eachLike } = MatchersV3;
const pact = pactFiles(test);

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
  await eventually(`${consumer} processes ${event.type} ${event.id}`, async () =>
    (await sql(platform, `SELECT 1 FROM ${schema}.inbox WHERE consumer = $1 AND event_id = $2`, [consumer, event.id])).length === 1,
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
      m.withJSONContent(envelope('user.created', '01J9Z8X7W6V5T4S3R2Q1P0EV01', { userId: ulid(userId), email: email(), intents: eachLike('cap') })),
    )
    .executeTest(async (message) => {
      await deliver(message.contents.content, 'cap.provision-user');
      t.deepEqual(await sql(platform, 'SELECT status, email FROM cap.users WHERE user_id = $1', [userId]), [{ status: 'active', email: 'ada@example.test' }]);
    });
});

test.serial('CAP deactivates the CAP user on user.deleted', async (t) => {
  const userId = '01J9Z8X7W6V5T4S3R2Q1P0CAP1';
  await pact('cap', 'ol')
    .addAsynchronousInteraction()
    .given('a user.deleted event was published')
    .expectsToReceive('a user.deleted event', (m) =>
      m.withJSONContent(envelope('user.deleted', '01J9Z8X7W6V5T4S3R2Q1P0EV02', { userId: ulid(userId), email: email() })),
    )
    .executeTest(async (message) => {
      await deliver(message.contents.content, 'cap.deactivate-user');
      t.deepEqual(await sql(platform, 'SELECT status FROM cap.users WHERE user_id = $1', [userId]), [{ status: 'deactivated' }]);
    });
});

test.serial('the LMS provisions an LMS user from user.created', async (t) => {
  const userId = '01J9Z8X7W6V5T4S3R2Q1P0LMS1';
  await pact('lms', 'ol')
    .addAsynchronousInteraction()
    .given('a user.created event was published', { intents: ['lms'] })
    .expectsToReceive('a user.created event', (m) =>
      m.withJSONContent(envelope('user.created', '01J9Z8X7W6V5T4S3R2Q1P0EV03', { userId: ulid(userId), email: email() })),
    )
    .executeTest(async (message) => {
      await deliver(message.contents.content, 'lms.provision-user');
      t.deepEqual(await sql(platform, 'SELECT status, email FROM lms.lms_users WHERE user_id = $1', [userId]), [{ status: 'active', email: 'ada@example.test' }]);
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
      t.deepEqual(await sql(platform, 'SELECT status FROM lms.lms_users WHERE user_id = $1', [userId]), [{ status: 'deactivated' }]);
    });
});

import test, { type ExecutionContext } from 'ava';
import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import type { Sequelize } from 'sequelize';
import { ConfigError, resolveConfig } from '../../server/platform/config.ts';
import { createDatabase, createSequelize, dropDatabase } from '../../server/platform/db/database.ts';
import { createDatabaseWatch } from '../../server/platform/db/watch.ts';
import {
  bossDatabase,
  createEventRuntime,
  type EventRuntime,
  type EventRuntimeOptions,
} from '../../server/platform/events/runtime.ts';
import { createEventTables, eventWorkersMigration } from '../../server/platform/events/tables.ts';
import type { EventHandler, PlatformEvent, ServiceEvents } from '../../server/platform/events/types.ts';
import { newId } from '../../server/platform/ids.ts';

// The bus over the real database, without the services' domains: each test gets a fresh database
// with the event tables of the `ol`, `cap` and `lms` schemas, plus an `effects` table per schema that
// the test consumers write to inside their delivery transaction.

const schemas = ['ol', 'cap', 'lms'] as const;
type Schema = (typeof schemas)[number];
const testSettings: EventRuntimeOptions = {
  retryLimit: 5,
  retryDelaySeconds: 0,
  retryBackoff: false,
  deadLetterPollingSeconds: 0.5,
};
const fixture = (name: string) => path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', name);
const crashProducer = fixture('events-crash-producer.ts');

interface EventDatabase {
  url: string;
  db: Record<Schema, Sequelize>;
}

interface Bus extends EventDatabase {
  runtime: EventRuntime;
  events: Record<Schema, ServiceEvents>;
  logs: Array<Record<string, unknown>>;
}

async function createEventDatabase(t: ExecutionContext): Promise<EventDatabase> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_DATABASE_URL is not set: run the tests with `npm test`');
  const name = `test_${newId().toLowerCase()}`;
  const url = await createDatabase(adminUrl, name);
  const db = Object.fromEntries(schemas.map((schema) => [schema, createSequelize(url, schema, 3)])) as Record<
    Schema,
    Sequelize
  >;
  t.teardown(async () => {
    for (const sequelize of Object.values(db)) await sequelize.close();
    await dropDatabase(adminUrl, name);
  });
  for (const schema of schemas) {
    await db[schema].query(`CREATE SCHEMA "${schema}"`);
    await createEventTables(db[schema].getQueryInterface(), schema);
    await eventWorkersMigration(schema).up({ context: db[schema].getQueryInterface() });
    await db[schema].query(`CREATE TABLE "${schema}".effects (consumer text NOT NULL, event_id text NOT NULL)`);
  }
  return { url, db };
}

/** Starts a runtime on the database after `register` has subscribed its consumers. */
async function startBus(
  t: ExecutionContext,
  database: EventDatabase,
  register: (bus: Bus) => void,
  settings = testSettings,
): Promise<Bus> {
  const logs: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  const runtime = createEventRuntime(database.url, logger, settings);
  const events = Object.fromEntries(
    schemas.map((schema) => [schema, runtime.forService(schema, schema, database.db[schema])]),
  ) as Record<Schema, ServiceEvents>;
  const bus: Bus = { ...database, runtime, events, logs };
  register(bus);
  // Registered before the database teardown, so it runs first: the runtime stops before the pools close.
  t.teardown(() => runtime.stop());
  await runtime.start();
  return bus;
}

/** A consumer handler that records its effect in `<schema>.effects`, in the delivery transaction. */
function recordEffect(bus: Bus, schema: Schema, consumer: string): EventHandler {
  return async (event, transaction) => {
    await bus.db[schema].query(`INSERT INTO "${schema}".effects (consumer, event_id) VALUES ($1, $2)`, {
      bind: [consumer, event.id],
      transaction,
    });
  };
}

async function effects(bus: EventDatabase, schema: Schema, eventId: string): Promise<number> {
  const [rows] = await bus.db[schema].query(`SELECT count(*)::int AS n FROM "${schema}".effects WHERE event_id = $1`, {
    bind: [eventId],
  });
  return (rows as Array<{ n: number }>)[0]!.n;
}

async function eventually(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function publishCommitted(bus: Bus, data: Record<string, unknown>): Promise<PlatformEvent> {
  return bus.db.ol.transaction((transaction) => bus.events.ol.publish(transaction, 'user.created', data));
}

function subscribeCapAndLms(bus: Bus): void {
  bus.events.cap.subscribe('user.created', 'cap.provision-user', recordEffect(bus, 'cap', 'cap.provision-user'));
  bus.events.lms.subscribe('user.created', 'lms.provision-user', recordEffect(bus, 'lms', 'lms.provision-user'));
}

test('an event published in a committed transaction reaches every subscribed consumer once', async (t) => {
  const bus = await startBus(t, await createEventDatabase(t), subscribeCapAndLms);
  const started = Date.now();
  const event = await publishCommitted(bus, { userId: 'u-1' });

  await eventually(
    'CAP and LMS both processed the event',
    async () => (await effects(bus, 'cap', event.id)) === 1 && (await effects(bus, 'lms', event.id)) === 1,
  );
  t.log(`delivered to both consumers ${Date.now() - started} ms after commit`);
  t.like(event, { type: 'user.created', source: 'ol', data: { userId: 'u-1' } });

  // Later passes of the relay and the workers add nothing.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  t.is(await effects(bus, 'cap', event.id), 1);
  t.is(await effects(bus, 'lms', event.id), 1);
  const [pending] = await bus.db.ol.query('SELECT count(*)::int AS n FROM ol.outbox WHERE dispatched_at IS NULL');
  t.is((pending as Array<{ n: number }>)[0]!.n, 0);
});

test('each delivery is logged once with type, id and consumer, never the data', async (t) => {
  const bus = await startBus(t, await createEventDatabase(t), subscribeCapAndLms);
  const event = await publishCommitted(bus, { userId: 'u-2', email: 'private@example.test' });

  await eventually(
    'both deliveries are logged',
    () => bus.logs.filter((l) => l.msg === 'event delivered').length === 2,
  );
  const delivered = bus.logs.filter((l) => l.msg === 'event delivered');
  t.deepEqual(delivered.map((l) => l.consumer).sort(), ['cap.provision-user', 'lms.provision-user']);
  for (const line of delivered) t.like(line, { level: 30, type: 'user.created', id: event.id });
  t.false(bus.logs.some((line) => JSON.stringify(line).includes('private@example.test')));
});

test('an event published in a rolled-back transaction is never delivered', async (t) => {
  const bus = await startBus(t, await createEventDatabase(t), subscribeCapAndLms);
  let rolledBack: PlatformEvent | undefined;
  await t.throwsAsync(
    bus.db.ol.transaction(async (transaction) => {
      rolledBack = await bus.events.ol.publish(transaction, 'user.created', { userId: 'never' });
      throw new Error('the change fails after publishing');
    }),
    { message: 'the change fails after publishing' },
  );
  // Outbox rows are relayed in id order, so once a later event arrives the earlier one had its chance.
  const later = await publishCommitted(bus, { userId: 'later' });
  await eventually(
    'the later event reached both consumers',
    async () => (await effects(bus, 'cap', later.id)) === 1 && (await effects(bus, 'lms', later.id)) === 1,
  );

  t.is(await effects(bus, 'cap', rolledBack!.id), 0);
  t.is(await effects(bus, 'lms', rolledBack!.id), 0);
  const [rows] = await bus.db.ol.query('SELECT id FROM ol.outbox WHERE id = $1', { bind: [rolledBack!.id] });
  t.deepEqual(rows, []);
});

test('a redelivered event has exactly one effect per consumer', async (t) => {
  let capCalls = 0;
  const bus = await startBus(t, await createEventDatabase(t), (bus) => {
    const record = recordEffect(bus, 'cap', 'cap.provision-user');
    bus.events.cap.subscribe('user.created', 'cap.provision-user', async (event, transaction) => {
      capCalls += 1;
      await record(event, transaction);
    });
    bus.events.lms.subscribe('user.created', 'lms.provision-user', recordEffect(bus, 'lms', 'lms.provision-user'));
  });
  const event = await publishCommitted(bus, { userId: 'u-3' });
  await eventually(
    'the first delivery is processed',
    async () => (await effects(bus, 'cap', event.id)) === 1 && (await effects(bus, 'lms', event.id)) === 1,
  );

  // As if the relay had crashed before marking the row: it is relayed, and delivered, a second time.
  await bus.db.ol.query('UPDATE ol.outbox SET dispatched_at = NULL WHERE id = $1', { bind: [event.id] });
  await eventually(
    'both consumers saw the duplicate',
    () => bus.logs.filter((l) => l.msg === 'event already processed; skipped' && l.id === event.id).length === 2,
  );

  t.is(capCalls, 1);
  t.is(await effects(bus, 'cap', event.id), 1);
  t.is(await effects(bus, 'lms', event.id), 1);
});

test('a failing handler is retried and its effect happens once, rolled-back attempts leaving nothing', async (t) => {
  let attempts = 0;
  const bus = await startBus(t, await createEventDatabase(t), (bus) => {
    const record = recordEffect(bus, 'cap', 'cap.flaky');
    bus.events.cap.subscribe('user.created', 'cap.flaky', async (event, transaction) => {
      attempts += 1;
      await record(event, transaction);
      if (attempts <= 2) throw new Error(`attempt ${attempts} fails`);
    });
  });
  const event = await publishCommitted(bus, { userId: 'u-4' });

  await eventually('the third attempt succeeds', async () => (await effects(bus, 'cap', event.id)) === 1);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  t.is(attempts, 3);
  t.is(await effects(bus, 'cap', event.id), 1);
  t.deepEqual(await bus.runtime.deadLetters(), []);
});

test('a handler that always fails ends dead-lettered after its retries, with no effect', async (t) => {
  let attempts = 0;
  const bus = await startBus(t, await createEventDatabase(t), (bus) => {
    bus.events.cap.subscribe('user.created', 'cap.broken', async (event, transaction) => {
      attempts += 1;
      await recordEffect(bus, 'cap', 'cap.broken')(event, transaction);
      throw new Error('the handler is broken');
    });
    bus.events.lms.subscribe('user.created', 'lms.provision-user', recordEffect(bus, 'lms', 'lms.provision-user'));
  });
  const event = await publishCommitted(bus, { userId: 'u-5' });

  await eventually('the event is dead-lettered', async () => (await bus.runtime.deadLetters()).length === 1, 20_000);
  const [letter] = await bus.runtime.deadLetters();
  t.like(letter, {
    consumer: 'cap.broken',
    event: { id: event.id, type: 'user.created', source: 'ol', data: { userId: 'u-5' } },
    error: 'the handler is broken',
  });
  t.is(attempts, 1 + testSettings.retryLimit!);
  t.is(await effects(bus, 'cap', event.id), 0);
  t.truthy(
    bus.logs.find((l) => l.msg === 'event dead-lettered after its retries' && l.level === 50 && l.id === event.id),
  );
  // The other consumer is not held back by the broken one.
  t.is(await effects(bus, 'lms', event.id), 1);
});

test('an event committed by a process killed before its relay ran is delivered after the next start', async (t) => {
  const database = await createEventDatabase(t);
  const { stdout, signal } = await new Promise<{ stdout: string; signal: NodeJS.Signals | null }>((resolve) => {
    execFile(process.execPath, ['--import=tsx', crashProducer, database.url], (error, stdout) => {
      resolve({ stdout, signal: (error as { signal?: NodeJS.Signals } | null)?.signal ?? null });
    });
  });
  t.is(signal, 'SIGKILL');
  const eventId = stdout.trim();
  const [waiting] = await database.db.ol.query('SELECT id FROM ol.outbox WHERE dispatched_at IS NULL');
  t.deepEqual(waiting, [{ id: eventId }]);

  const bus = await startBus(t, database, subscribeCapAndLms);
  await eventually(
    'CAP and LMS processed the event',
    async () => (await effects(bus, 'cap', eventId)) === 1 && (await effects(bus, 'lms', eventId)) === 1,
  );
});

test("a process that starts leaves a live peer's deliveries alone, and takes over those of a peer killed mid-delivery within seconds, not at the 30 s expiry", async (t) => {
  const database = await createEventDatabase(t);
  const peer = spawn(process.execPath, ['--import=tsx', fixture('events-slow-consumer.ts'), database.url], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  t.teardown(() => peer.kill('SIGKILL'));
  const eventId = await new Promise<string>((resolve, reject) => {
    let out = '';
    peer.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /delivering (\S+)\n/.exec(out);
      if (match) resolve(match[1]!);
    });
    peer.once('exit', (code) => reject(new Error(`the peer exited with ${code}`)));
  });
  const job = async () =>
    (
      (
        await database.db.ol.query(
          `SELECT state, started_on FROM pgboss.job WHERE name = 'cap.slow' AND data->'event'->>'id' = $1`,
          { bind: [eventId] },
        )
      )[0] as Array<{ state: string; started_on: Date }>
    )[0]!;
  const fetchedByPeer = await job();

  // This process starts while the peer is alive and delivering: it must not take the delivery over.
  let deliveries = 0;
  const bus = await startBus(t, database, (bus) => {
    const record = recordEffect(bus, 'cap', 'cap.slow');
    bus.events.cap.subscribe('user.created', 'cap.slow', async (event, transaction) => {
      deliveries += 1;
      await record(event, transaction);
    });
  });
  await new Promise((resolve) => setTimeout(resolve, 5000));
  t.is(deliveries, 0, "a live peer's delivery is left alone");
  t.deepEqual(await job(), fetchedByPeer, "still the peer's: not put back, not fetched again");

  peer.kill('SIGKILL');
  const killedAt = Date.now();
  await eventually('the delivery is taken over', async () => (await effects(bus, 'cap', eventId)) === 1, 25_000);
  const tookMs = Date.now() - killedAt;
  t.log(`delivered by the live process ${tookMs} ms after the peer was killed`);
  t.true(tookMs < 10_000, `${tookMs} ms`);
  t.is(deliveries, 1);
});

test("jobs another process queued wake this process's workers at once, not at their next poll", async (t) => {
  const database = await createEventDatabase(t);
  const slowPolling = { ...testSettings, pollingIntervalSeconds: 30, relayIntervalMs: 30_000 };
  const consumer = await startBus(t, database, (bus) => subscribeCapAndLms(bus), slowPolling);
  const producer = await startBus(t, database, () => undefined, slowPolling);
  const started = Date.now();
  const event = await publishCommitted(producer, { userId: 'u-wake' });
  await eventually(
    'the other process delivered it',
    async () => (await effects(consumer, 'cap', event.id)) === 1 && (await effects(consumer, 'lms', event.id)) === 1,
    25_000,
  );
  const tookMs = Date.now() - started;
  t.log(`delivered by the other process ${tookMs} ms after commit`);
  t.true(tookMs < 20_000, `${tookMs} ms`);
});

test('after its listening connection is lost, a process looks at every queue once it listens again: what was queued meanwhile is not left to the next poll', async (t) => {
  const database = await createEventDatabase(t);
  const slowPolling = { ...testSettings, pollingIntervalSeconds: 30, relayIntervalMs: 30_000 };
  const consumer = await startBus(t, database, (bus) => subscribeCapAndLms(bus), slowPolling);
  const producer = await startBus(t, database, () => undefined, slowPolling);
  const listening = async () =>
    (
      (
        await database.db.ol.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'capctl-events-wake' AND datname = current_database()`,
        )
      )[0] as Array<{ n: number }>
    )[0]!.n;
  await database.db.ol.query(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'capctl-events-wake' AND datname = current_database()`,
  );
  await eventually('nobody listens', async () => (await listening()) === 0);
  const event = await publishCommitted(producer, { userId: 'u-relisten' });
  const published = Date.now();
  await eventually(
    'the event is delivered',
    async () => (await effects(consumer, 'cap', event.id)) === 1 && (await effects(consumer, 'lms', event.id)) === 1,
    25_000,
  );
  const tookMs = Date.now() - published;
  t.log(`delivered ${tookMs} ms after it was published while nobody listened`);
  t.true(tookMs < 20_000, `${tookMs} ms`);
});

test('a retry wakes a worker when it is due, not at its next poll', async (t) => {
  const attempts: number[] = [];
  const bus = await startBus(
    t,
    await createEventDatabase(t),
    (bus) => {
      const record = recordEffect(bus, 'cap', 'cap.flaky');
      bus.events.cap.subscribe('user.created', 'cap.flaky', async (event, transaction) => {
        attempts.push(Date.now());
        await record(event, transaction);
        if (attempts.length === 1) throw new Error('the first attempt fails');
      });
    },
    { ...testSettings, retryDelaySeconds: 1, pollingIntervalSeconds: 30, relayIntervalMs: 30_000 },
  );
  const event = await publishCommitted(bus, { userId: 'u-retry' });
  await eventually('the retry succeeds', async () => (await effects(bus, 'cap', event.id)) === 1, 25_000);
  const apartMs = attempts[1]! - attempts[0]!;
  t.log(`retried ${apartMs} ms after the first attempt (retry delay 1 s)`);
  t.true(apartMs >= 900 && apartMs < 20_000, `${apartMs} ms`);
});

test('processes starting on one database at the same moment all start: queue declarations do not deadlock', async (t) => {
  const database = await createEventDatabase(t);
  const buses = await Promise.all(
    [1, 2, 3].map(() =>
      startBus(t, database, (bus) =>
        bus.events.cap.subscribe('user.created', 'cap.users', recordEffect(bus, 'cap', 'cap.users')),
      ),
    ),
  );
  const event = await database.db.ol.transaction((tx) =>
    buses[0]!.events.ol.publish(tx, 'user.created', { userId: 'u1' }),
  );
  await eventually('the event is delivered once', async () => (await effects(database, 'cap', event.id)) === 1);
  t.is(await effects(database, 'cap', event.id), 1);
});

test('a start changes only the queues whose settings differ from what is stored: a new retry limit is taken, an unchanged queue is left alone', async (t) => {
  const database = await createEventDatabase(t);
  const queues = async () =>
    Object.fromEntries(
      (
        (
          await database.db.ol.query(`SELECT name, retry_limit, updated_on FROM pgboss.queue WHERE name LIKE 'cap.%'`)
        )[0] as Array<{ name: string; retry_limit: number; updated_on: Date }>
      ).map((q) => [q.name, { retryLimit: q.retry_limit, updatedOn: q.updated_on.getTime() }]),
    );
  const register = (bus: Bus) => subscribeCapAndLms(bus);
  const first = await startBus(t, database, register);
  await first.runtime.stop();
  const before = await queues();
  t.is(before['cap.provision-user']!.retryLimit, 5);

  const again = await startBus(t, database, register);
  await again.runtime.stop();
  t.deepEqual(await queues(), before, 'the same settings: nothing written');

  const changed = await startBus(t, database, register, { ...testSettings, retryLimit: 2 });
  const after = await queues();
  t.is(after['cap.provision-user']!.retryLimit, 2);
  const event = await publishCommitted(changed, { userId: 'u1' });
  await eventually(
    'the event is delivered with the new settings',
    async () => (await effects(changed, 'cap', event.id)) === 1,
  );
});

test('a start stores only the subscriptions that are missing: a restart writes none, a new one is stored and delivered to', async (t) => {
  const database = await createEventDatabase(t);
  const subscriptions = async () =>
    Object.fromEntries(
      (
        (await database.db.ol.query(`SELECT event, name, updated_on FROM pgboss.subscription`))[0] as Array<{
          event: string;
          name: string;
          updated_on: Date;
        }>
      ).map((s) => [`${s.event} ${s.name}`, s.updated_on.getTime()]),
    );
  const first = await startBus(t, database, subscribeCapAndLms);
  await first.runtime.stop();
  const before = await subscriptions();
  t.deepEqual(Object.keys(before).sort(), ['user.created cap.provision-user', 'user.created lms.provision-user']);

  const again = await startBus(t, database, subscribeCapAndLms);
  await again.runtime.stop();
  t.deepEqual(await subscriptions(), before, 'the same subscriptions: nothing written');

  const widened = await startBus(t, database, (bus) => {
    subscribeCapAndLms(bus);
    bus.events.cap.subscribe('user.deleted', 'cap.provision-user', recordEffect(bus, 'cap', 'cap.provision-user'));
  });
  const after = await subscriptions();
  t.is(
    after['user.created cap.provision-user'],
    before['user.created cap.provision-user'],
    'a stored one is left alone',
  );
  t.truthy(after['user.deleted cap.provision-user'], 'the new one is stored');
  const event = await widened.db.ol.transaction((transaction) =>
    widened.events.ol.publish(transaction, 'user.deleted', { userId: 'u2' }),
  );
  await eventually(
    'the event of the new subscription is delivered',
    async () => (await effects(widened, 'cap', event.id)) === 1,
  );
});

test('a process whose event delivery stops right after it started exits by itself: no fetch of a stopped worker is left waiting', async (t) => {
  const database = await createEventDatabase(t);
  const started = Date.now();
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    const child = execFile(
      process.execPath,
      ['--import=tsx', fixture('events-stop-at-once.ts'), database.url],
      { timeout: 20_000 },
      () => undefined,
    );
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  t.deepEqual(exit, { code: 0, signal: null }, 'it exited by itself, not killed at the time limit');
  t.log(`exited after ${Date.now() - started} ms`);
});

test("recording a delivery's outcome never rejects: a failing statement or a closed bus answers that nothing was recorded", async (t) => {
  // pg-boss 10 does not await these statements, so a rejection would be handled by nothing and end the process.
  const database = await createEventDatabase(t);
  const { default: PgBoss } = await import('pg-boss');
  const logger = pino({ level: 'silent' });
  const watch = createDatabaseWatch(database.url, logger);
  t.teardown(() => watch.stop());
  const db = bossDatabase(database.url, logger, watch);
  const boss = new PgBoss({ db, schema: 'pgboss_outcome', schedule: false, supervise: false });
  await boss.start();
  await boss.createQueue('outcomes');
  const id = (await boss.send('outcomes', {}))!;
  // PostgreSQL refuses the statement (not a uuid): the outcome is not recorded, and that is the answer.
  await t.notThrowsAsync(boss.complete('outcomes', 'not-a-uuid'));
  await t.notThrowsAsync(boss.fail('outcomes', 'not-a-uuid'));
  await boss.stop({ graceful: false, wait: true });
  await db.close();
  await t.notThrowsAsync(boss.complete('outcomes', id));
  await t.notThrowsAsync(boss.fail('outcomes', id));
});

test('EVENT_POLLING_SECONDS is how often an idle worker looks for jobs: 5 s unless set, never less than 0.5', (t) => {
  t.is(resolveConfig({}, {}).eventPollingSeconds, 5);
  t.is(resolveConfig({}, { EVENT_POLLING_SECONDS: '2' }).eventPollingSeconds, 2);
  t.throws(() => resolveConfig({}, { EVENT_POLLING_SECONDS: '0.1' }), {
    instanceOf: ConfigError,
    message: /eventPollingSeconds/,
  });
});

import { setMaxListeners } from 'node:events';
import PgBoss from 'pg-boss';
import pg from 'pg';
import { QueryTypes, type Sequelize } from 'sequelize';
import { newId } from '../ids.ts';
import { guardedClient } from '../db/database.ts';
import { createListener, type Listener } from '../db/listen.ts';
import { preparedIn } from '../db/prepared.ts';
import { createDatabaseWatch, type DatabaseWatch } from '../db/watch.ts';
import type { Logger } from '../logger.ts';
import { DeliveryLeases } from './leases.ts';
import { parseWake, Relay, wakePayload, type DeliveryJob } from './relay.ts';
import type { EventHandler, EventType, PlatformEvent, ServiceEvents } from './types.ts';

export interface EventRuntimeOptions {
  /** Retries after the first failed attempt before the event is dead-lettered. */
  retryLimit?: number;
  /** Whole seconds before a retry; with `retryBackoff`, doubled (with jitter) on each attempt. */
  retryDelaySeconds?: number;
  retryBackoff?: boolean;
  /**
   * How often an idle worker looks for jobs (pg-boss allows 0.5 at least). Jobs queued by any process
   * on the database wake the workers of their queues at once (a NOTIFY on the events channel), and a
   * retry this process scheduled wakes a worker when it is due, so this only bounds what those miss:
   * deliveries failed by pg-boss's expiry, and notifications sent while the listening connection was
   * down (a full look is made when it is back).
   */
  pollingIntervalSeconds?: number;
  /**
   * How often the relay looks at every outbox; a commit that published in this process, or in one
   * whose relay is not running, wakes it at once. Half the workers' polling interval unless given.
   */
  relayIntervalMs?: number;
  /** The dead-letter workers' polling (a delivery dead-lettered here wakes them); the workers' unless given. */
  deadLetterPollingSeconds?: number;
  /**
   * Workers per consumer: deliveries of one consumer run this many at a time (each in its own
   * transaction), so one slow handler or mail server does not hold up every other event.
   */
  workersPerConsumer?: number;
  /** pg-boss's own schema in the platform database. */
  bossSchema?: string;
  /**
   * How often a process renews its delivery lease, and how old a lease may be before its process is
   * taken for dead and its deliveries are put back for the others (events/leases.ts).
   */
  leaseRenewMs?: number;
  leaseSeconds?: number;
  /** The process's watch on the database (without one, the runtime keeps its own). */
  database?: DatabaseWatch;
}

/** An event a consumer gave up on after its retries. */
export interface DeadLetter {
  consumer: string;
  event: PlatformEvent;
  /** The message of the handler's last error. */
  error: string;
  deadAt: string;
}

/**
 * The process's event bus: one pg-boss instance, the relay of every service's outbox, and a worker
 * per consumer. Each running service gets its scoped `ServiceEvents` from `forService`; `start` runs
 * once every subscription is registered.
 */
export interface EventRuntime {
  forService(service: string, schema: string, sequelize: Sequelize): ServiceEvents;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Dead-lettered events of the consumers of the services in this process, oldest first. */
  deadLetters(): Promise<DeadLetter[]>;
}

interface ServiceScope {
  service: string;
  schema: string;
  sequelize: Sequelize;
}

interface Consumer {
  name: string;
  scope: ServiceScope;
  handlers: Map<EventType, EventHandler>;
}

const deliveryTimeLimitSeconds = 30;

const defaults: Required<Omit<EventRuntimeOptions, 'database' | 'relayIntervalMs' | 'deadLetterPollingSeconds'>> = {
  retryLimit: 8,
  retryDelaySeconds: 2,
  retryBackoff: true,
  pollingIntervalSeconds: 5,
  workersPerConsumer: 2,
  bossSchema: 'pgboss',
  leaseRenewMs: 1000,
  leaseSeconds: 3,
};

/**
 * Fan-out: every consumer name is its own pg-boss queue, subscribed (pg-boss `subscribe`, stored in
 * the database) to its event types, and the relay inserts one job per subscribed queue. Subscriptions
 * of this process are stored before its relay starts, so events already waiting in an outbox reach
 * them. A consumer running in another process (`--only`) on the same database gets the events relayed
 * after its process first subscribed it; while that process is down its jobs wait in its queue. An
 * event relayed before any consumer of its type ever subscribed is delivered to nobody.
 */
export function createEventRuntime(
  databaseUrl: string,
  logger: Logger,
  options: EventRuntimeOptions = {},
): EventRuntime {
  const settings = { ...defaults, ...options };
  const ownWatch = options.database ? undefined : createDatabaseWatch(databaseUrl, logger);
  const database = options.database ?? ownWatch!;
  const scopes: ServiceScope[] = [];
  const consumers = new Map<string, Consumer>();
  const workers = new Map<string, string[]>();
  let boss: PgBoss | undefined;
  let bossDb: BossDatabase | undefined;
  let pool: pg.Pool | undefined;
  let relay: Relay | undefined;
  let leases: DeliveryLeases | undefined;
  let listener: Listener | undefined;
  /** This process on the events channel, where every process hears what the others queued and published. */
  const processId = newId();
  const channel = `${settings.bossSchema}_events`;
  /** Timers that wake a worker when a retry of this process is due. */
  const retryTimers = new Set<NodeJS.Timeout>();
  /** Told of every delivery pg-boss failed (once delivery started). */
  let failed: ((queue: string, jobIds: string[]) => Promise<void>) | undefined;

  const deadLetterQueue = (scope: ServiceScope) => `dead-letters.${scope.service}`;

  async function deliver(consumer: Consumer, event: PlatformEvent): Promise<void> {
    const { sequelize, schema } = consumer.scope;
    const fields = { type: event.type, id: event.id, consumer: consumer.name };
    const handler = consumer.handlers.get(event.type);
    if (!handler) {
      logger.warn(fields, 'event has no handler in this consumer; skipped');
      return;
    }
    try {
      const processed = await sequelize.transaction(async (transaction) => {
        const claimed = await preparedIn(
          transaction,
          `INSERT INTO "${schema}".inbox (consumer, event_id, event_type, processed_at) VALUES ($1, $2, $3, now())
           ON CONFLICT DO NOTHING RETURNING event_id`,
          [consumer.name, event.id, event.type],
        );
        if (claimed.length === 0) return false;
        await handler(event, transaction);
        return true;
      });
      if (processed) logger.info(fields, 'event delivered');
      else logger.debug(fields, 'event already processed; skipped');
    } catch (err) {
      // An outage is logged once, by the watch; the delivery is retried like any failed one.
      if (!database.report(err)) logger.warn({ ...fields, err }, 'event handler failed');
      throw err;
    }
  }

  async function recordDeadLetter(scope: ServiceScope, job: PgBoss.JobWithMetadata<DeliveryJob>): Promise<void> {
    const { consumer, event } = job.data;
    const error = errorMessage(job.output);
    await scope.sequelize.query(
      `INSERT INTO "${scope.schema}".dead_letters (consumer, event_id, event_type, event, error, dead_at)
       VALUES ($1, $2, $3, $4, $5, now())
       ON CONFLICT (consumer, event_id) DO UPDATE SET error = EXCLUDED.error, dead_at = EXCLUDED.dead_at`,
      { bind: [consumer, event.id, event.type, JSON.stringify(event), error] },
    );
    logger.error({ type: event.type, id: event.id, consumer, error }, 'event dead-lettered after its retries');
  }

  /**
   * Declares this process's queues and subscriptions. Queues are created or updated only when missing
   * or different, which after the first start they seldom are; that is one read on a usual start. Two
   * processes creating queues on one database at once (`--only` splits, a restart overlapping a stop)
   * would deadlock inside pg-boss's queue creation, so creation is serialised by a database advisory
   * lock. Subscriptions (pg-boss's `subscribe`: an upsert of one row each) are made for those not
   * stored yet, read with one query from pg-boss's table (as the relay reads them).
   */
  async function declareQueues(started: PgBoss): Promise<void> {
    const wanted: PgBoss.Queue[] = [...new Set([...consumers.values()].map((c) => deadLetterQueue(c.scope)))].map(
      (name) => ({ name }),
    );
    for (const consumer of consumers.values()) {
      wanted.push({
        name: consumer.name,
        // A delivery still running after this long is failed and retried (the inbox keeps it to one effect).
        expireInSeconds: deliveryTimeLimitSeconds,
        retryLimit: settings.retryLimit,
        retryDelay: settings.retryDelaySeconds,
        retryBackoff: settings.retryBackoff,
        deadLetter: deadLetterQueue(consumer.scope),
      });
    }
    const existing = new Map((await started.getQueues()).map((queue) => [queue.name, queue]));
    const changed = wanted.filter((queue) => !declared(existing.get(queue.name), queue));
    if (changed.length > 0) {
      const client = await pool!.connect();
      try {
        await client.query(`SELECT pg_advisory_lock(hashtext($1))`, [`${settings.bossSchema}:declare-queues`]);
        for (const queue of changed) {
          await started.createQueue(queue.name, queue);
          await started.updateQueue(queue.name, queue); // an existing queue takes the current settings
        }
      } finally {
        await client
          .query(`SELECT pg_advisory_unlock(hashtext($1))`, [`${settings.bossSchema}:declare-queues`])
          .catch(() => undefined);
        client.release();
      }
    }
    const subscribed = await pool!.query<{ event: string; name: string }>(
      `SELECT event, name FROM ${settings.bossSchema}.subscription WHERE name = ANY($1)`,
      [[...consumers.keys()]],
    );
    const stored = new Set(subscribed.rows.map((row) => `${row.event} ${row.name}`));
    await Promise.all(
      [...consumers.values()].flatMap((consumer) =>
        [...consumer.handlers.keys()]
          .filter((type) => !stored.has(`${type} ${consumer.name}`))
          .map((type) => started.subscribe(type, consumer.name)),
      ),
    );
  }

  async function startDelivery(started: PgBoss): Promise<void> {
    await started.start();
    await declareQueues(started);
    const consumerScopes = [...new Set([...consumers.values()].map((c) => c.scope))];
    // Workers delivering a job now: each looks again once it is done, so a wake is for idle ones.
    const busy = new Set<string>();
    // One idle worker per job queued: each fetch costs a statement, and a worker woken for a job another
    // already took finds nothing. A worker looks again after each job, so a backlog still drains.
    const wake = (queues: Map<string, number>) => {
      for (const [queue, jobs] of queues) {
        const idle = (workers.get(queue) ?? []).filter((workerId) => !busy.has(workerId));
        for (const workerId of idle.slice(0, jobs)) started.notifyWorker(workerId);
      }
    };
    // Listening before anything is fetched or relayed: what was queued or published before is found by
    // the first looks, what comes after is heard.
    listener = createListener({
      connection: { connectionString: databaseUrl, application_name: 'capctl-events-wake' },
      channels: [channel],
      logger,
      database,
      lostMessage: "lost the connection that hears other processes' events; they are found by polling until it is back",
      notification(_channel, payload) {
        const message = parseWake(payload);
        if (!message || message.process === processId) return;
        if ('jobs' in message) wake(message.jobs);
        else if (scopes.some((scope) => scope.schema === message.outbox)) relay?.wake(message.outbox);
      },
      // What was notified while not listening is looked for everywhere.
      relistened() {
        for (const ids of workers.values()) for (const workerId of ids) started.notifyWorker(workerId);
        for (const scope of scopes) relay?.wake(scope.schema);
      },
    });
    await listener.start();
    // A delivery pg-boss failed wakes a worker when its retry is due, or the dead-letter worker.
    failed = async (queue, jobIds) => {
      const consumer = consumers.get(queue);
      if (!consumer) return;
      try {
        const { rows } = await pool!.query<{ state: string; due_ms: number }>(
          `SELECT state, GREATEST(0, ceil(EXTRACT(EPOCH FROM start_after - now()) * 1000))::int AS due_ms
             FROM ${settings.bossSchema}.job WHERE name = $1 AND id = ANY($2::uuid[])`,
          [queue, jobIds],
        );
        for (const job of rows) {
          if (job.state === 'failed') wake(new Map([[deadLetterQueue(consumer.scope), 1]]));
          if (job.state !== 'retry') continue;
          const timer = setTimeout(() => {
            retryTimers.delete(timer);
            wake(new Map([[queue, 1]]));
          }, job.due_ms).unref();
          retryTimers.add(timer);
        }
      } catch (err) {
        if (!database.report(err)) logger.warn({ err }, 'a failed delivery is left to polling for its retry');
      }
    };
    leases = new DeliveryLeases(
      pool!,
      settings.bossSchema,
      consumerScopes.map((scope) => ({
        schema: scope.schema,
        queues: [
          deadLetterQueue(scope),
          ...[...consumers.values()].filter((c) => c.scope === scope).map((c) => c.name),
        ],
      })),
      { renewMs: settings.leaseRenewMs, leaseSeconds: settings.leaseSeconds },
      database,
      logger,
      wake,
    );
    const held = leases;
    for (const scope of consumerScopes) {
      const queue = deadLetterQueue(scope);
      workers.set(queue, [
        await started.work<DeliveryJob>(
          queue,
          {
            includeMetadata: true,
            batchSize: 10,
            pollingIntervalSeconds: settings.deadLetterPollingSeconds ?? settings.pollingIntervalSeconds,
          },
          (jobs) =>
            held.hold(
              jobs.map((job) => job.id),
              async () => {
                for (const job of jobs) await recordDeadLetter(scope, job);
              },
            ),
        ),
      ]);
    }
    for (const consumer of consumers.values()) {
      const workerIds: string[] = [];
      for (let i = 0; i < settings.workersPerConsumer; i++) {
        // A worker that found a job looks again at once, not after its polling interval: a backlog
        // drains as fast as the handlers go, and only an idle worker waits for the next poll.
        let workerId = '';
        workerId = await started.work<DeliveryJob>(
          consumer.name,
          { batchSize: 1, pollingIntervalSeconds: settings.pollingIntervalSeconds },
          async ([job]) => {
            busy.add(workerId);
            try {
              await held.hold([job!.id], () => deliver(consumer, job!.data.event));
            } finally {
              busy.delete(workerId);
              started.notifyWorker(workerId);
            }
          },
        );
        workerIds.push(workerId);
      }
      workers.set(consumer.name, workerIds);
    }
    // Started with the workers: what a process that died was delivering is found within seconds.
    leases.start();
    relay = new Relay(
      pool!,
      started,
      settings.bossSchema,
      scopes.map((s) => s.schema),
      settings.relayIntervalMs ?? settings.pollingIntervalSeconds * 500,
      logger,
      database,
      wake,
      channel,
      processId,
    );
    relay.start();
  }

  const runtime: EventRuntime = {
    forService(service, schema, sequelize) {
      const scope: ServiceScope = { service, schema, sequelize };
      scopes.push(scope);
      return {
        async publish(transaction, type, data) {
          const event = { id: newId(), type, occurredAt: new Date().toISOString(), source: service, data };
          await preparedIn(
            transaction,
            `INSERT INTO "${schema}".outbox (id, type, occurred_at, source, data) VALUES ($1, $2, $3, $4, $5)`,
            [event.id, type, event.occurredAt, service, JSON.stringify(data)],
          );
          // This process's relay, or when it has none running, the other processes' relays. Not notified
          // inside the transaction: a NOTIFY serialises the commits of every notifying transaction.
          transaction.afterCommit(() => {
            if (relay) return relay.wake(schema);
            const payload = wakePayload({ process: processId, outbox: schema });
            sequelize.query('SELECT pg_notify($1, $2)', { bind: [channel, payload] }).catch(() => undefined);
          });
          return event;
        },
        subscribe(type, name, handler) {
          if (boss) throw new Error(`subscribe ${name} to ${type} before event delivery starts`);
          const consumer = consumers.get(name) ?? { name, scope, handlers: new Map() };
          if (consumer.scope !== scope)
            throw new Error(`consumer name ${name} is already used by ${consumer.scope.service}`);
          if (consumer.handlers.has(type)) throw new Error(`${name} already subscribes to ${type}`);
          consumer.handlers.set(type, handler);
          consumers.set(name, consumer);
        },
      };
    },

    async start() {
      if (boss) throw new Error('event delivery already started');
      // Maintenance (which fails deliveries past their time limit) every 10 s instead of pg-boss's 2 minutes.
      bossDb = bossDatabase(databaseUrl, logger, database, (queue, jobIds) => void failed?.(queue, jobIds));
      boss = new PgBoss({ db: bossDb, schema: settings.bossSchema, schedule: false, maintenanceIntervalSeconds: 10 });
      // An unreachable database is logged once by the watch, not once per worker and connection.
      boss.on('error', (err) => database.report(err) || logger.error({ err }, 'event bus error'));
      pool = new pg.Pool({
        connectionString: databaseUrl,
        max: 2,
        application_name: 'capctl-relay',
        Client: guardedClient((err) => database.report(err)),
      });
      pool.on('error', (err) => database.report(err) || logger.error({ err }, 'event relay connection error'));
      try {
        await startDelivery(boss);
      } catch (err) {
        await runtime.stop();
        throw err;
      }
    },

    async stop() {
      bossDb?.stopWaiting();
      failed = undefined;
      for (const timer of retryTimers) clearTimeout(timer);
      retryTimers.clear();
      await listener?.stop();
      await relay?.stop();
      await boss?.stop({ graceful: true, wait: true, timeout: 10_000 });
      await leases?.stop();
      await bossDb?.close();
      await pool?.end();
      relay = undefined;
      leases = undefined;
      listener = undefined;
      bossDb = undefined;
      pool = undefined;
      workers.clear();
      ownWatch?.stop();
    },

    async deadLetters() {
      const letters: DeadLetter[] = [];
      for (const scope of scopes) {
        const rows = await scope.sequelize.query<{
          consumer: string;
          event: PlatformEvent;
          error: string;
          dead_at: Date;
        }>(`SELECT consumer, event, error, dead_at FROM "${scope.schema}".dead_letters ORDER BY dead_at`, {
          type: QueryTypes.SELECT,
        });
        letters.push(
          ...rows.map((row) => ({
            consumer: row.consumer,
            event: row.event,
            error: row.error,
            deadAt: row.dead_at.toISOString(),
          })),
        );
      }
      return letters.sort((a, b) => a.deadAt.localeCompare(b.deadAt));
    },
  };
  return runtime;
}

/**
 * pg-boss 10 records a delivery's outcome (complete or fail, a statement that answers the count of
 * jobs it changed) without awaiting it: a rejection there, the connection lost or the bus closing,
 * would be handled by nothing and end the process. Such a statement answers "nothing recorded"
 * instead; the delivery then expires and is made again, and the consumer's inbox keeps it to one effect.
 */
const recordsOutcome = (text: string) => /\bSELECT COUNT\(\*\) FROM results\s*$/i.test(text);
/** pg-boss failing deliveries by id (its `fail`; expiry fails them without values). */
const failsJobs = (text: string, values: unknown[] | undefined) =>
  values?.length === 3 && /\bWITH deleted_jobs AS\b/.test(text);
const nothingRecorded = { rows: [{ count: '0' }] };

export interface BossDatabase extends PgBoss.Db {
  /** Statements waiting for the database to come back give up (they answer no rows), as do later ones that cannot reach it. */
  stopWaiting(): void;
  close(): Promise<void>;
}

/**
 * pg-boss's connections, in a pool of ours. pg-boss closes its own pool while its stopped workers'
 * last fetches may still wait for a connection, and those then never settle (timers that keep a
 * stopped process alive). This one closes once every statement handed to it has finished; after
 * that, like pg-boss's own, it runs nothing.
 *
 * A statement that cannot reach the database waits until it is back and runs again. pg-boss leaves
 * the promises of a job's completion and failure unawaited, so a rejection there would end the
 * process; and its workers, waiting here, do not poll a database that is down. What pg-boss runs
 * is safe to run twice: a fetch whose answer was lost leaves its jobs active until they are
 * recovered like those of a process that died, and completing or failing a job again changes nothing.
 * `onFailed` hears of the deliveries failed (pg-boss's `fail`, which answers only a count).
 */
export function bossDatabase(
  databaseUrl: string,
  logger: Logger,
  database: DatabaseWatch,
  /** Called once a statement failing deliveries (retried later or dead-lettered) has run. */
  onFailed?: (queue: string, jobIds: string[]) => void,
): BossDatabase {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: 4,
    application_name: 'capctl-events',
    Client: guardedClient((err) => database.report(err)),
  });
  pool.on('error', (err) => database.report(err) || logger.error({ err }, 'event bus connection error'));
  const giveUp = new AbortController();
  setMaxListeners(Infinity, giveUp.signal); // every statement waiting for the database listens to it
  let running = 0;
  let closing = false;
  let finished: (() => void) | undefined;
  return {
    async executeSql(text, values) {
      if (closing) return recordsOutcome(text) ? nothingRecorded : { rows: [] };
      running += 1;
      try {
        for (;;) {
          try {
            const result = await pool.query(text, values);
            if (onFailed && failsJobs(text, values)) onFailed(values![0] as string, values![1] as string[]);
            return result;
          } catch (err) {
            if (database.report(err)) {
              if (!giveUp.signal.aborted) await database.whenUp(giveUp.signal);
              if (giveUp.signal.aborted) return recordsOutcome(text) ? nothingRecorded : { rows: [] };
              continue;
            }
            if (!recordsOutcome(text)) throw err;
            logger.warn(
              { err },
              'the outcome of an event delivery was not recorded: the delivery will expire and be made again',
            );
            return nothingRecorded;
          }
        }
      } finally {
        running -= 1;
        if (running === 0) finished?.();
      }
    },
    stopWaiting() {
      giveUp.abort();
    },
    async close() {
      closing = true;
      giveUp.abort();
      if (running > 0) await new Promise<void>((resolve) => (finished = resolve));
      await pool.end();
    },
  };
}

/** Whether a queue as stored already has the settings we declare (a dead-letter queue: only that it exists). */
function declared(stored: PgBoss.QueueResult | undefined, wanted: PgBoss.Queue): boolean {
  if (!stored) return false;
  const settings = ['expireInSeconds', 'retryLimit', 'retryDelay', 'retryBackoff', 'deadLetter'] as const;
  return settings.every((key) => wanted[key] === undefined || stored[key] === wanted[key]);
}

/** pg-boss keeps a failed job's error as `{message, ...}` or, for a timeout, `{value: {message}}`. */
function errorMessage(output: unknown): string {
  const value = output as { message?: unknown; value?: { message?: unknown } } | null | undefined;
  const message = value?.message ?? value?.value?.message;
  return typeof message === 'string' ? message : JSON.stringify(output ?? null);
}

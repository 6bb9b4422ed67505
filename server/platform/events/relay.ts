import type PgBoss from 'pg-boss';
import type pg from 'pg';
import type { DatabaseWatch } from '../db/watch.ts';
import type { Logger } from '../logger.ts';
import type { EventType, PlatformEvent } from './types.ts';

/** What a consumer's queue job carries: the consumer is repeated so a dead-lettered copy still names it. */
export interface DeliveryJob {
  consumer: string;
  event: PlatformEvent;
}

interface OutboxRow {
  id: string;
  type: EventType;
  occurred_at: Date;
  source: string;
  data: Record<string, unknown>;
  /** The queues subscribed to its type. */
  queues: string[];
}

const batchSize = 100;

/**
 * What a process tells the others on the events channel (a NOTIFY, sent when its transaction commits):
 * the jobs it queued (`<process> jobs <queue>:<count> ...`), or that it published to a schema's outbox
 * (`<process> outbox <schema>`).
 */
export type WakeMessage = { process: string } & ({ jobs: Map<string, number> } | { outbox: string });

export function wakePayload(message: WakeMessage): string {
  if ('outbox' in message) return `${message.process} outbox ${message.outbox}`;
  return [message.process, 'jobs', ...[...message.jobs].map(([queue, count]) => `${queue}:${count}`)].join(' ');
}

export function parseWake(payload: string): WakeMessage | undefined {
  const [process, kind, ...rest] = payload.split(' ');
  if (!process) return undefined;
  if (kind === 'outbox' && rest.length === 1) return { process, outbox: rest[0]! };
  if (kind !== 'jobs') return undefined;
  const jobs = new Map<string, number>();
  for (const item of rest) {
    const at = item.lastIndexOf(':');
    const count = Number(item.slice(at + 1));
    if (at > 0 && count > 0) jobs.set(item.slice(0, at), count);
  }
  return { process, jobs };
}

/**
 * Moves undelivered outbox rows of the producing schemas to the consumers' pg-boss queues. One pass
 * per schema runs in a single transaction: it locks a batch (`SKIP LOCKED`, so two processes never
 * relay the same rows) and marks it dispatched, and inserts one job per subscribed queue, so the
 * jobs and the mark commit together. The loop polls every schema every `intervalMs`; `wake(schema)`
 * (a commit in this process that published) runs a pass at once over the schemas woken, so a
 * publish does not also cost a locking read of every other outbox. While the database cannot be
 * reached it waits for it to come back instead. The jobs a pass queued are announced on `channel`
 * with its COMMIT (one round trip), so that other processes' workers of those queues wake at once.
 */
export class Relay {
  private stopping = false;
  private readonly stopped = new AbortController();
  /** Schemas woken since the pass began; a pass with wakes behind it is followed by one over them. */
  private woken = new Set<string>();
  private interruptSleep: (() => void) | undefined;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly boss: PgBoss,
    private readonly bossSchema: string,
    private readonly schemas: string[],
    private readonly intervalMs: number,
    private readonly logger: Logger,
    private readonly database: DatabaseWatch,
    /** Called after a pass committed jobs, with how many per queue (to wake this process's workers). */
    private readonly onQueued: (queues: Map<string, number>) => void,
    /** The events channel and this process's id on it. */
    private readonly channel: string,
    private readonly processId: string,
  ) {}

  start(): void {
    this.loop ??= this.run();
  }

  wake(schema: string): void {
    this.woken.add(schema);
    this.interruptSleep?.();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.stopped.abort();
    this.interruptSleep?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    let due = this.schemas;
    let lastFullPass = 0;
    while (!this.stopping) {
      this.woken = new Set();
      // Rows other processes published are found by a full pass at least every interval, woken or not.
      if (performance.now() - lastFullPass >= this.intervalMs) due = this.schemas;
      if (due === this.schemas) lastFullPass = performance.now();
      let failed = false;
      try {
        for (const schema of due) {
          // A woken schema has rows waiting; on a full pass, most outboxes are empty.
          if (due === this.schemas && !(await this.waiting(schema))) continue;
          let relayed = batchSize;
          while (!this.stopping && relayed === batchSize) relayed = await this.relayBatch(schema);
        }
      } catch (err) {
        failed = true;
        if (this.database.report(err)) await this.database.whenUp(this.stopped.signal);
        else this.logger.error({ err }, 'event relay failed; retrying');
      }
      const slept = this.woken.size === 0 && !this.stopping && (await this.sleep());
      due = slept || failed ? this.schemas : this.schemas.filter((schema) => this.woken.has(schema));
    }
  }

  /** Waits `intervalMs`; true when the time ran out, false when woken or stopped. */
  private sleep(): Promise<boolean> {
    return new Promise((resolve) => {
      const finish = (timedOut: boolean) => {
        clearTimeout(timer);
        this.interruptSleep = undefined;
        resolve(timedOut);
      };
      const timer = setTimeout(() => finish(true), this.intervalMs);
      this.interruptSleep = () => finish(false);
    });
  }

  /** Whether a schema's outbox has undispatched rows: one statement, without a transaction or locks. */
  private async waiting(schema: string): Promise<boolean> {
    const { rows } = await this.pool.query<{ waiting: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM "${schema}".outbox WHERE dispatched_at IS NULL) AS waiting`,
    );
    return rows[0]!.waiting;
  }

  /** Relays one batch of a schema's outbox; returns how many events it took. */
  private async relayBatch(schema: string): Promise<number> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      // Locked and marked dispatched in one statement; the jobs are inserted in the same transaction, so
      // both commit or neither does. The queues come from pg-boss's own subscription table, so consumers
      // registered by other processes are included.
      const { rows } = await client.query<OutboxRow>(
        `UPDATE "${schema}".outbox o SET dispatched_at = now()
           FROM (SELECT id FROM "${schema}".outbox WHERE dispatched_at IS NULL
                  ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED) batch
          WHERE o.id = batch.id
      RETURNING o.id, o.type, o.occurred_at, o.source, o.data,
                ARRAY(SELECT s.name FROM "${this.bossSchema}".subscription s WHERE s.event = o.type) AS queues`,
        [batchSize],
      );
      if (rows.length === 0) {
        await client.query('COMMIT');
        return 0;
      }
      rows.sort((a, b) => (a.id < b.id ? -1 : 1)); // RETURNING keeps no order: jobs go in the order published
      const jobs: PgBoss.JobInsert<DeliveryJob>[] = [];
      for (const row of rows) {
        const event: PlatformEvent = {
          id: row.id,
          type: row.type,
          occurredAt: row.occurred_at.toISOString(),
          source: row.source,
          data: row.data,
        };
        for (const name of row.queues) jobs.push({ name, data: { consumer: name, event } });
      }
      if (jobs.length === 0) {
        await client.query('COMMIT');
        return rows.length;
      }
      await this.boss.insert(jobs, { db: { executeSql: (text, values) => client.query(text, values) } });
      const queued = countBy(jobs.map((job) => job.name));
      const payload = wakePayload({ process: this.processId, jobs: queued });
      await client.query(
        `SELECT pg_notify(${client.escapeLiteral(this.channel)}, ${client.escapeLiteral(payload)}); COMMIT`,
      );
      this.onQueued(queued);
      return rows.length;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }
}

/** How many times each name occurs. */
export function countBy(names: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  return counts;
}

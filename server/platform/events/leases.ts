import type pg from 'pg';
import type { DatabaseWatch } from '../db/watch.ts';
import { newId } from '../ids.ts';
import type { Logger } from '../logger.ts';
import { countBy } from './relay.ts';

/** One service schema's side: its `event_workers` table and the queues of its consumers in this process. */
export interface LeaseScope {
  schema: string;
  queues: string[];
}

export interface LeaseTimes {
  /**
   * How often a process renews its lease (and looks for orphaned deliveries) while it holds
   * deliveries; an idle one renews every `leaseSeconds`, as its lease then protects nothing.
   */
  renewMs: number;
  /** A process whose lease is older than this is taken for dead. */
  leaseSeconds: number;
}

/**
 * Deliveries of a process that died are taken over by the processes still alive, within seconds,
 * without touching the deliveries of a live one.
 *
 * pg-boss marks a job `active` when a worker fetches it and knows nothing of the process that did:
 * on its own, a job cut off by a crash waits for its expiry (the 30 s delivery time limit, then the
 * next maintenance pass). So each process keeps a lease per service schema, a row of
 * `<schema>.event_workers` renewed every `renewMs` with the ids of the jobs it is delivering (and
 * those it finished a moment ago, whose completion pg-boss may still be writing); a process holding
 * none renews every lease, and its first delivery brings the next renewal forward. On each renewal
 * it also puts back to `retry` the active jobs of its own queues that no live lease holds and that
 * started more than a lease ago (a job fetched since its holder's last renewal is not listed yet).
 * A starting process does the same and nothing more: it never takes a job a live peer holds. After
 * an outage of the database nothing is put back until the database has been up for a full lease,
 * so that every live process has renewed first. A process stopped cleanly has finished its
 * deliveries and removes its rows.
 */
export class DeliveryLeases {
  private readonly processId = newId();
  /** Job ids held, with when they finished (undefined while running). */
  private readonly held = new Map<string, number | undefined>();
  private readonly stopped = new AbortController();
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private lastRenewal = 0;
  /** Sleeping as an idle process: set to bring the next renewal forward to `renewMs` after the last. */
  private hurry: (() => void) | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly bossSchema: string,
    private readonly scopes: LeaseScope[],
    private readonly times: LeaseTimes,
    private readonly database: DatabaseWatch,
    private readonly logger: Logger,
    /** Called with how many jobs each queue got back (to wake this process's workers). */
    private readonly onRecovered: (queues: Map<string, number>) => void,
  ) {}

  /** Runs a delivery of these jobs under the lease. */
  async hold<T>(jobIds: string[], work: () => Promise<T>): Promise<T> {
    for (const id of jobIds) this.held.set(id, undefined);
    this.hurry?.();
    try {
      return await work();
    } finally {
      const now = Date.now();
      for (const id of jobIds) this.held.set(id, now);
    }
  }

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopped.abort();
    this.wakeUp?.();
    await this.loop;
    await Promise.all(
      this.scopes.map((scope) =>
        this.pool
          .query(`DELETE FROM "${scope.schema}".event_workers WHERE process_id = $1`, [this.processId])
          .catch(() => undefined),
      ),
    );
  }

  private async run(): Promise<void> {
    while (!this.stopped.signal.aborted) {
      try {
        await this.renew();
      } catch (err) {
        if (this.database.report(err)) await this.database.whenUp(this.stopped.signal);
        else this.logger.error({ err }, 'renewing the delivery lease failed; retrying');
      }
      if (this.stopped.signal.aborted) break;
      await new Promise<void>((resolve) => {
        let timer = setTimeout(resolve, this.held.size > 0 ? this.times.renewMs : this.times.leaseSeconds * 1000);
        this.wakeUp = () => (clearTimeout(timer), resolve());
        if (this.held.size === 0)
          this.hurry = () => {
            this.hurry = undefined;
            clearTimeout(timer);
            timer = setTimeout(resolve, Math.max(0, this.lastRenewal + this.times.renewMs - Date.now()));
          };
      });
      this.wakeUp = undefined;
      this.hurry = undefined;
    }
  }

  /** Renews this process's leases and puts back the orphaned deliveries of its queues. */
  private async renew(): Promise<void> {
    const now = Date.now();
    this.lastRenewal = now;
    // A finished job stays listed for a lease more: pg-boss completes it after the handler returns.
    for (const [id, finishedAt] of this.held)
      if (finishedAt !== undefined && now - finishedAt > this.times.leaseSeconds * 1000) this.held.delete(id);
    const jobs = [...this.held.keys()];
    const recover = this.database.up && now - this.database.upSince >= this.times.leaseSeconds * 1000;
    const recovered: string[] = [];
    for (const { schema, queues } of this.scopes) {
      // A modifying WITH is not seen by the rest of its statement: this process's jobs are excluded by
      // the list itself, and a peer's lease must be younger than leaseSeconds to protect its jobs.
      const { rows } = await this.pool.query<{ name: string }>(
        `WITH renewed AS (
           INSERT INTO "${schema}".event_workers (process_id, renewed_at, jobs) VALUES ($1, now(), $2::uuid[])
           ON CONFLICT (process_id) DO UPDATE SET renewed_at = now(), jobs = EXCLUDED.jobs
         ), forgotten AS (
           DELETE FROM "${schema}".event_workers WHERE renewed_at < now() - interval '1 day'
         )
         UPDATE "${this.bossSchema}".job AS job SET state = 'retry', start_after = now()
         WHERE $5 AND job.name = ANY($3) AND job.state = 'active'
           AND job.started_on < now() - make_interval(secs => $4) AND NOT job.id = ANY($2::uuid[])
           AND NOT EXISTS (
             SELECT 1 FROM "${schema}".event_workers AS peer
             WHERE peer.process_id <> $1 AND peer.renewed_at > now() - make_interval(secs => $4) AND job.id = ANY(peer.jobs)
           )
         RETURNING job.name`,
        [this.processId, jobs, queues, this.times.leaseSeconds, recover],
      );
      for (const row of rows) recovered.push(row.name);
      if (rows.length > 0)
        this.logger.warn(
          { jobs: rows.length, queues: [...new Set(rows.map((row) => row.name))] },
          'deliveries no live process holds are due again',
        );
    }
    if (recovered.length > 0) this.onRecovered(countBy(recovered));
  }
}

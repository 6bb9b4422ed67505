/**
 * The sandbox processor's webhook sender. A completed transaction writes its webhook as a row (in the
 * same transaction as the outcome); this worker POSTs each row's exact body, signed, to the merchant's
 * webhook URL until a 2xx answer, with retries on a growing delay. Rows live in the database, so a
 * webhook owed before a restart is sent after it: a claim is a lease (the attempt is counted and the
 * row hidden for `leaseMs`), so one cut off by a crash is sent again once the lease runs out.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { outboundHttp } from '../../../platform/http/outbound.ts';
import type { DatabaseWatch } from '../../../platform/db/watch.ts';
import { lifecycleWriter, tableStore } from '../../../platform/lifecycle.ts';
import type { Logger } from '../../../platform/logger.ts';
import { webhookDeliveryLifecycle } from './models.ts';
import { sign, signatureHeader } from './signature.ts';

export interface WebhookSenderOptions {
  sequelize: Sequelize;
  logger: Logger;
  secretKey: string;
  /** Where to send; asked before each round (the platform's own URL is known once it listens). */
  url(): string;
  /** How often an idle sender looks for due webhooks. */
  pollMs?: number;
  /** How long a claimed webhook stays hidden from other senders (covers one attempt). */
  leaseMs?: number;
  /** Attempts before the sender gives up on a webhook (status `failed`). */
  maxAttempts?: number;
  /** Per attempt: the merchant must answer within this. */
  timeoutMs?: number;
  /** Webhooks sent at a time. */
  batchSize?: number;
  /** While the database cannot be reached, the sender waits for it instead of failing every round. */
  database?: DatabaseWatch;
}

export interface WebhookSender {
  start(): void;
  /** Looks for due webhooks now (called after a transaction that added one commits). */
  wake(): void;
  stop(): Promise<void>;
}

/** Seconds before attempt `attempts + 1`: 1, 2, 4, ... doubling, at most an hour. */
export const retryDelaySeconds = (attempts: number) => Math.min(2 ** Math.max(attempts - 1, 0), 3600);

interface Claimed {
  id: string;
  body: string;
  attempts: number;
  reference: string;
  event: string;
}

export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const { sequelize, logger } = options;
  const pollMs = options.pollMs ?? 1000;
  const leaseMs = options.leaseMs ?? 15_000;
  const maxAttempts = options.maxAttempts ?? 20;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const batchSize = options.batchSize ?? 20;
  const http = outboundHttp({ headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connectTimeout: timeoutMs });
  let stopping = false;
  const stopped = new AbortController();
  let loop: Promise<void> | undefined;
  let woken = false;
  let interrupt: (() => void) | undefined;
  const deliveries = lifecycleWriter(webhookDeliveryLifecycle, {
    store: tableStore<{ id: string; status: string }>('ol.sandbox_webhook_deliveries'),
  });

  async function claim(): Promise<Claimed[]> {
    return sequelize.query<Claimed>(
      `UPDATE ol.sandbox_webhook_deliveries d
          SET attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => $2), updated_at = now()
        WHERE d.id IN (SELECT id FROM ol.sandbox_webhook_deliveries
                        WHERE status = 'pending' AND next_attempt_at <= now()
                        ORDER BY next_attempt_at, id LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING d.id, d.body, d.attempts, d.reference, d.event`,
      { bind: [batchSize, leaseMs / 1000], type: QueryTypes.SELECT },
    );
  }

  /** Records an attempt's result, unless another sender has claimed the row since (its lease ran out). */
  async function record(row: Claimed, outcome: { statusCode: number | null; error: string | null }): Promise<void> {
    const delivered = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode <= 299;
    const gaveUp = !delivered && row.attempts >= maxAttempts;
    const next = delivered ? 'delivered' : gaveUp ? 'failed' : 'pending';
    await sequelize.transaction(async (transaction) => {
      const [claimed] = await sequelize.query<{ id: string; status: string }>(
        `SELECT id, status FROM ol.sandbox_webhook_deliveries WHERE id = $1 AND attempts = $2 AND status = 'pending' FOR UPDATE`,
        { bind: [row.id, row.attempts], type: QueryTypes.SELECT, transaction },
      );
      if (!claimed) return;
      await deliveries.move(transaction, claimed, next, {
        by: 'sandbox',
        changes: {
          last_status_code: outcome.statusCode,
          last_error: outcome.error,
          delivered_at: delivered ? new Date() : null,
          ...(next === 'pending'
            ? { next_attempt_at: new Date(Date.now() + retryDelaySeconds(row.attempts) * 1000) }
            : {}),
        },
      });
    });
    const fields = {
      reference: row.reference,
      event: row.event,
      webhookId: row.id,
      attempt: row.attempts,
      statusCode: outcome.statusCode,
    };
    if (delivered) logger.info(fields, 'sandbox webhook delivered');
    else if (gaveUp)
      logger.error(
        { ...fields, error: outcome.error },
        'sandbox webhook not acknowledged after every retry; giving up',
      );
    else
      logger.warn(
        { ...fields, error: outcome.error, retryInSeconds: retryDelaySeconds(row.attempts) },
        'sandbox webhook not acknowledged; will retry',
      );
  }

  async function send(url: string, row: Claimed): Promise<void> {
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      const res = await http.request(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'cap-sandbox-payments/1',
          [signatureHeader]: sign(options.secretKey, row.body),
        },
        body: row.body,
      });
      statusCode = res.statusCode;
      const answer = await res.body.text();
      if (statusCode < 200 || statusCode > 299) error = answer.slice(0, 500);
    } catch (err) {
      error = (err as Error).message;
    }
    await record(row, { statusCode, error });
  }

  async function round(): Promise<number> {
    let url: string;
    try {
      url = options.url();
    } catch {
      return 0; // the platform is not listening yet: nothing can be delivered
    }
    const due = await claim();
    await Promise.all(due.map((row) => send(url, row)));
    return due.length;
  }

  async function run(): Promise<void> {
    while (!stopping) {
      let sent = 0;
      try {
        woken = false;
        sent = await round();
      } catch (err) {
        if (options.database?.report(err)) await options.database.whenUp(stopped.signal);
        else if (!stopping) logger.error({ err }, 'sandbox webhook round failed');
      }
      if (stopping || sent === batchSize || woken) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        interrupt = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      interrupt = undefined;
    }
  }

  return {
    start() {
      loop ??= run();
    },
    wake() {
      woken = true;
      interrupt?.();
    },
    async stop() {
      stopping = true;
      stopped.abort();
      interrupt?.();
      await loop;
      await http.close();
    },
  };
}

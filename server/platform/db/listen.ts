import pg from 'pg';
import type { Logger } from '../logger.ts';
import type { DatabaseWatch } from './watch.ts';

const relistenMs = 1_000;

export interface ListenOptions {
  /** How to connect; `application_name` names the connection in `pg_stat_activity`. */
  connection: pg.ClientConfig;
  channels: string[];
  logger: Logger;
  /** Reports the connection's failures; listening starts again once the database answers. */
  database?: DatabaseWatch;
  /** Logged when the connection is lost other than by an outage: what goes without it. */
  lostMessage: string;
  notification(channel: string, payload: string): void;
  /** The connection was lost (or closed by `stop`): notifications sent from now on are not heard. */
  lost?(): void;
  /** Listening again after a loss: whatever was notified meanwhile was missed. */
  relistened?(): void;
}

/**
 * One connection that LISTENs on `channels` and survives outages: when it is lost, it listens again
 * once the database answers (and at most once a `relistenMs`), and says so, so that its user can look
 * for what it missed.
 */
export function createListener(options: ListenOptions) {
  const { connection, channels, logger, database, lostMessage } = options;
  let listener: pg.Client | undefined;
  let closing = false;
  let lostOnce = false;
  const closed = new AbortController();

  function lost(client: pg.Client, err?: Error): void {
    if (listener !== client) return;
    listener = undefined;
    lostOnce = true;
    options.lost?.();
    if (closing) return;
    // An outage is logged once, by the watch.
    if (!database?.report(err)) logger.warn({ err }, lostMessage);
    relisten();
  }

  function relisten(): void {
    if (closing) return;
    const again = async () => {
      await database?.whenUp(closed.signal);
      if (closing) return;
      await listen().catch((err: Error) => {
        if (!database?.report(err)) logger.warn({ err }, 'cannot listen yet');
        relisten();
      });
    };
    setTimeout(() => void again(), relistenMs).unref();
  }

  async function listen(): Promise<void> {
    const client = new pg.Client(connection);
    client.on('notification', ({ channel, payload }) => options.notification(channel, payload ?? ''));
    client.on('error', (err) => lost(client, err));
    client.on('end', () => lost(client));
    try {
      await client.connect();
      await client.query(channels.map((channel) => `LISTEN ${channel}`).join('; '));
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    if (closing) return void (await client.end());
    listener = client;
    if (lostOnce) options.relistened?.();
  }

  return {
    start: listen,
    /** Whether notifications are heard now. */
    get listening(): boolean {
      return listener !== undefined;
    },
    async stop(): Promise<void> {
      closing = true;
      closed.abort();
      const client = listener;
      listener = undefined;
      options.lost?.();
      await client?.end();
    },
  };
}

export type Listener = ReturnType<typeof createListener>;

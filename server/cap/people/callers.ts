import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Sequelize } from 'sequelize';
import { watchSessions } from '../../platform/db/sessions.ts';
import type { DatabaseWatch } from '../../platform/db/watch.ts';
import type { Logger } from '../../platform/logger.ts';
import type { Caller } from './models.ts';

const channel = 'cap_caller_changed';
const everyone = '*';
const capacity = 10_000;
const relistenMs = 1_000;

/**
 * The callers CAP keeps between requests, so that an authenticated call makes no statement of its own
 * (on a list page, the caller statement was half the database's work). A caller is kept only while the
 * database can say who changed (migrations 0020 and 0028 name the user on every change of what the
 * caller statement reads, or `*` for an organisation's name or status):
 * - a change made by CAP itself reaches the session making it as a NOTICE, before it commits: the user
 *   is dropped at once and not kept again until that session is idle (committed or rolled back), so a
 *   request that follows a change made through CAP always reads it;
 * - any other change (another process, psql) arrives on a listening connection as a NOTIFY when it
 *   commits, and drops the user then: it shows as soon as the notification is delivered.
 * A read is kept only if its user did not change while it ran, and nothing is kept while the
 * listening connection is down (it listens again once the database answers). Callers are frozen:
 * handlers read them, never change them.
 */
export function createCallerCache(sequelize: Sequelize, logger: Logger, database?: DatabaseWatch) {
  const kept = new Map<string, Caller>();
  /** The users each session has changed in its open transaction (or `*`): not kept until it ends. */
  const changing = new Map<object, Set<string>>();
  const beingChanged = (userId: string) =>
    [...changing.values()].some((users) => users.has(userId) || users.has(everyone));
  /** The reads under way: a change to their user (or to everyone) spoils them for keeping. */
  const reads = new Set<{ userId: string; spoiled: boolean }>();
  let listener: pg.Client | undefined;
  /** Marks sent by `settled`, waiting to come back on the listening connection. */
  const marks = new Map<string, () => void>();
  let closing = false;
  const closed = new AbortController();

  function forget(who: string): void {
    if (who === everyone) kept.clear();
    else kept.delete(who);
    for (const read of reads) if (who === everyone || read.userId === who) read.spoiled = true;
  }

  const unwatch = watchSessions(sequelize, {
    notice(session, { message, detail }) {
      if (message !== 'cap.caller_changed' || !detail) return;
      forget(detail);
      const users = changing.get(session);
      if (users) users.add(detail);
      else changing.set(session, new Set([detail]));
    },
    idle(session) {
      const users = changing.get(session);
      if (!users) return;
      changing.delete(session);
      for (const user of users) forget(user);
    },
  });

  function lost(client: pg.Client, err?: Error): void {
    if (listener !== client) return;
    listener = undefined;
    forget(everyone);
    for (const back of marks.values()) back();
    if (closing) return;
    // An outage is logged once, by the watch.
    if (!database?.report(err))
      logger.warn(
        { err },
        'lost the connection that hears caller changes; callers are read on every call until it is back',
      );
    relisten();
  }

  /** Listens again once the database answers, and at most once a `relistenMs`. */
  function relisten(): void {
    if (closing) return;
    const again = async () => {
      await database?.whenUp(closed.signal);
      if (closing) return;
      await listen().catch((err: Error) => {
        if (!database?.report(err)) logger.warn({ err }, 'cannot listen for caller changes yet');
        relisten();
      });
    };
    setTimeout(() => void again(), relistenMs).unref();
  }

  async function listen(): Promise<void> {
    const { host, port, username, password, database } = sequelize.config;
    const client = new pg.Client({
      host,
      port: Number(port),
      user: username,
      password: password ?? undefined,
      database,
      application_name: 'cap-callers',
    });
    client.on('notification', ({ payload }) => {
      if (!payload) return;
      const mark = marks.get(payload);
      if (mark) mark();
      else forget(payload);
    });
    client.on('error', (err) => lost(client, err));
    client.on('end', () => lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${channel}`);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    if (closing) return void (await client.end());
    listener = client;
  }

  return {
    /** Starts listening; callers are kept from then on. */
    start: listen,

    async stop(): Promise<void> {
      closing = true;
      closed.abort();
      unwatch();
      const client = listener;
      listener = undefined;
      kept.clear();
      await client?.end();
    },

    /**
     * Resolves once every change committed before the call has dropped what it changed: a mark sent
     * through the same channel comes back after every notification committed before it. For changes
     * made outside CAP (tests, seeds written straight to the database) that the next call must see.
     */
    async settled(): Promise<void> {
      if (!listener) return;
      const mark = `settled:${randomUUID()}`;
      const back = new Promise<void>((resolve) => marks.set(mark, resolve));
      try {
        await sequelize.query('SELECT pg_notify($1, $2)', { bind: [channel, mark] });
        await back;
      } finally {
        marks.delete(mark);
      }
    },

    /** The kept caller, if there is one (no read). */
    kept: (userId: string): Caller | undefined => kept.get(userId),

    /** The kept caller, else `load`'s (frozen), kept when nothing about the user changed while it was read. */
    async read(userId: string, load: () => Promise<Caller | undefined>): Promise<Caller | undefined> {
      const hit = kept.get(userId);
      if (hit) return hit;
      const read = { userId, spoiled: false };
      reads.add(read);
      let caller: Caller | undefined;
      try {
        caller = deepFreeze(await load());
      } finally {
        reads.delete(read);
      }
      if (caller && listener && !read.spoiled && !beingChanged(userId)) {
        if (kept.size >= capacity) kept.delete(kept.keys().next().value!);
        kept.set(userId, caller);
      }
      return caller;
    },
  };
}

export type CallerCache = ReturnType<typeof createCallerCache>;

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

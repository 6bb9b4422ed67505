import { randomUUID } from 'node:crypto';
import type { Sequelize } from 'sequelize';
import type { Logger } from '../logger.ts';
import { createListener } from './listen.ts';
import { watchSessions } from './sessions.ts';
import type { DatabaseWatch } from './watch.ts';

const everyone = '*';

/** The NOTICE a change raises to the session making it, and the channel notified when it commits. */
const noticeOf = (schema: string) => `${schema}.caller_changed`;
const channelOf = (schema: string) => `${schema}_caller_changed`;

/**
 * The migration SQL of `<schema>.caller_changed(who text)`, which every trigger of a table a kept read
 * depends on calls with the user whose row changed (or `*` for everyone): it raises the NOTICE and
 * notifies the channel this cache hears.
 */
export function callerChangedFunction(schema: string): string {
  return `
    CREATE FUNCTION ${schema}.caller_changed(who text) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      IF who IS NULL THEN RETURN; END IF;
      RAISE NOTICE USING MESSAGE = '${noticeOf(schema)}', DETAIL = who;
      PERFORM pg_notify('${channelOf(schema)}', who);
    END $$`;
}

/**
 * The migration SQL of a row trigger function `<schema>.<name>()` that names the user a row belongs to,
 * before and after the change: `column` holds the owner, and `who(row)` turns `OLD` or `NEW` into the
 * user id the cache keeps (the column itself unless the table names its user another way).
 */
export function ownerChangedFunction(
  schema: string,
  name: string,
  column: string,
  who: (row: 'OLD' | 'NEW') => string = (row) => `${row}.${column}`,
): string {
  return `
    CREATE FUNCTION ${schema}.${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP <> 'INSERT' THEN PERFORM ${schema}.caller_changed(${who('OLD')}); END IF;
      IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.${column} IS DISTINCT FROM OLD.${column}) THEN
        PERFORM ${schema}.caller_changed(${who('NEW')});
      END IF;
      RETURN NULL;
    END $$`;
}

export interface CallerCacheOptions {
  /**
   * The service's schema. Its migrations give every table a kept read depends on a trigger that calls
   * `<schema>.caller_changed(user id)`, which raises the NOTICE `<schema>.caller_changed` (detail: the
   * user, or `*` for everyone) and notifies the channel `<schema>_caller_changed` with the same.
   */
  schema: string;
  logger: Logger;
  /** Reports the listening connection's failures; the cache listens again once the database answers. */
  database?: DatabaseWatch;
  /** How many reads are kept at most; the users kept longest go first. */
  capacity?: number;
}

/**
 * What a service keeps of its callers between requests (who they are, whether their session is live),
 * so that an authenticated call makes no statement of its own. A read is kept only while the database
 * can say whose rows changed (the triggers of `CallerCacheOptions.schema`):
 * - a change made by the service itself reaches the session making it as a NOTICE, before it
 *   commits: the user is dropped at once and not kept again until that session is idle (committed or
 *   rolled back), so a request that follows a change made through the service always reads it;
 * - any other change (another replica, capctl, psql) arrives on a listening connection as a NOTIFY
 *   when it commits, and drops the user then: it shows as soon as the notification is delivered.
 * A read is kept only if its user did not change while it ran, and nothing is kept while the
 * listening connection is down (losing it drops everything; it listens again once the database
 * answers). A user may have several reads kept, one per `part` (a session id). Kept values are
 * frozen: handlers read them, never change them.
 */
export function createCallerCache<T>(sequelize: Sequelize, options: CallerCacheOptions) {
  const { schema, logger, database, capacity = 10_000 } = options;
  const noticeMessage = noticeOf(schema);
  const channel = channelOf(schema);
  /** By user, then by part. */
  const kept = new Map<string, Map<string, T>>();
  let size = 0;
  /** The users each session has changed in its open transaction (or `*`): not kept until it ends. */
  const changing = new Map<object, Set<string>>();
  const beingChanged = (userId: string) =>
    [...changing.values()].some((users) => users.has(userId) || users.has(everyone));
  /** The reads under way: a change to their user (or to everyone) spoils them for keeping. */
  const reads = new Set<{ userId: string; spoiled: boolean }>();
  /** Marks sent by `settled`, waiting to come back on the listening connection. */
  const marks = new Map<string, () => void>();

  function dropUser(userId: string): void {
    const entries = kept.get(userId);
    if (!entries) return;
    size -= entries.size;
    kept.delete(userId);
  }

  function forget(who: string): void {
    if (who === everyone) {
      kept.clear();
      size = 0;
    } else dropUser(who);
    for (const read of reads) if (who === everyone || read.userId === who) read.spoiled = true;
  }

  function keep(userId: string, part: string, value: T): void {
    let entries = kept.get(userId);
    if (!entries?.has(part)) {
      while (size >= capacity && kept.size > 0) dropUser(kept.keys().next().value!);
      entries = kept.get(userId);
      if (!entries) kept.set(userId, (entries = new Map()));
      size += 1;
    }
    entries!.set(part, value);
  }

  const unwatch = watchSessions(sequelize, {
    notice(session, { message, detail }) {
      if (message !== noticeMessage || !detail) return;
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

  const { host, port, username, password, database: name } = sequelize.config;
  const listener = createListener({
    connection: {
      host,
      port: Number(port),
      user: username,
      password: password ?? undefined,
      database: name,
      application_name: `${schema}-callers`,
    },
    channels: [channel],
    logger,
    database,
    lostMessage: 'lost the connection that hears caller changes; callers are read on every call until it is back',
    notification(_channel, payload) {
      if (!payload) return;
      const mark = marks.get(payload);
      if (mark) mark();
      else forget(payload);
    },
    lost() {
      forget(everyone);
      for (const back of marks.values()) back();
    },
  });

  return {
    /** Starts listening; reads are kept from then on. */
    start: listener.start,

    async stop(): Promise<void> {
      unwatch();
      await listener.stop();
    },

    /**
     * Resolves once every change committed before the call has dropped what it changed: a mark sent
     * through the same channel comes back after every notification committed before it. For changes
     * made outside the service (tests, seeds written straight to the database) that the next call must see.
     */
    async settled(): Promise<void> {
      if (!listener.listening) return;
      const mark = `settled:${randomUUID()}`;
      const back = new Promise<void>((resolve) => marks.set(mark, resolve));
      try {
        await sequelize.query('SELECT pg_notify($1, $2)', { bind: [channel, mark] });
        await back;
      } finally {
        marks.delete(mark);
      }
    },

    /** The kept read, if there is one (no statement). */
    kept: (userId: string, part = ''): T | undefined => kept.get(userId)?.get(part),

    /**
     * The kept read, else `load`'s (frozen), kept when nothing about the user changed while it ran.
     * An undefined answer is never kept.
     */
    async read(userId: string, load: () => Promise<T | undefined>, part = ''): Promise<T | undefined> {
      const hit = kept.get(userId)?.get(part);
      if (hit !== undefined) return hit;
      const read = { userId, spoiled: false };
      reads.add(read);
      let value: T | undefined;
      try {
        value = deepFreeze(await load());
      } finally {
        reads.delete(read);
      }
      if (value !== undefined && listener.listening && !read.spoiled && !beingChanged(userId))
        keep(userId, part, value);
      return value;
    },
  };
}

export type CallerCache<T> = ReturnType<typeof createCallerCache<T>>;

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

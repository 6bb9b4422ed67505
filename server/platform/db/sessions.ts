import type { Sequelize } from 'sequelize';

/** A NOTICE as node-postgres hands it over. */
export interface Notice {
  message?: string;
  detail?: string;
}

/** What the sessions (pooled connections) of one Sequelize hear besides the results of their queries. */
export interface SessionWatcher {
  /** A NOTICE the session received: triggers raise them while the statement that fired them runs. */
  notice(session: object, notice: Notice): void;
  /** The session is outside any transaction again (it committed, rolled back, or ended). */
  idle(session: object): void;
}

interface PgSession {
  on(event: 'notice', listener: (notice: Notice) => void): void;
  on(event: 'end', listener: () => void): void;
  /** node-postgres's protocol connection: ReadyForQuery carries the transaction status ('I' = idle). */
  connection: { on(event: 'readyForQuery', listener: (message: { status?: string }) => void): void };
}

const watchers = new WeakMap<Sequelize, Set<SessionWatcher>>();

/**
 * Makes every connection this Sequelize opens report to the watchers registered with `watchSessions`
 * (called by createSequelize, before any connection exists).
 */
export function reportSessions(sequelize: Sequelize): void {
  const registered = new Set<SessionWatcher>();
  watchers.set(sequelize, registered);
  sequelize.addHook('afterConnect', (connection: unknown) => {
    const session = connection as PgSession;
    session.on('notice', (notice) => {
      for (const watcher of registered) watcher.notice(session, notice);
    });
    session.connection.on('readyForQuery', ({ status }) => {
      if (status !== 'I') return;
      for (const watcher of registered) watcher.idle(session);
    });
    session.on('end', () => {
      for (const watcher of registered) watcher.idle(session);
    });
  });
}

/** Registers a watcher of this Sequelize's sessions; answers the function that removes it. */
export function watchSessions(sequelize: Sequelize, watcher: SessionWatcher): () => void {
  const registered = watchers.get(sequelize);
  if (!registered) throw new Error('watchSessions needs a Sequelize made by createSequelize');
  registered.add(watcher);
  return () => registered.delete(watcher);
}

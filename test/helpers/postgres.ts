import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createDatabase, dropDatabase } from '../../server/platform/db/database.ts';
import { postgresBinaries, removeDataDir, startEmbeddedPostgres } from '../../server/platform/db/embedded.ts';
import { newId } from '../../server/platform/ids.ts';
import { createLogger } from '../../server/platform/logger.ts';

/** A database of the test's own on the run's PostgreSQL (test/run.ts), and how to drop it. */
export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A new database on the run's PostgreSQL: a copy of the run's template (the database a first start
 * leaves, without the wait), or an empty one with `empty` (for a start that migrates it).
 */
export async function testDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_DATABASE_URL is not set: run the tests with `npm test`');
  const name = `test_${newId().toLowerCase()}`;
  const url = await createDatabase(adminUrl, name, options.empty ? undefined : process.env.TEST_TEMPLATE_DATABASE);
  return { url, drop: () => dropDatabase(adminUrl, name) };
}

/**
 * A PostgreSQL of the test's own (not the run's shared one), so that it can be stopped and started
 * again for real with pg_ctl, as an operator restarts a database.
 */
export interface OwnPostgres {
  /** The platform database on it. */
  url: string;
  /** `pg_ctl stop -m fast`: every session is ended and the server shuts down. */
  stop(): Promise<void>;
  /** `pg_ctl start` on the same port; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Ends every session on the platform database (pg_terminate_backend), or those of one application_name. */
  terminate(applicationName?: string): Promise<string[]>;
  /** Stops it and removes its files. */
  remove(): Promise<void>;
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-own-pg-'));
  const embedded = await startEmbeddedPostgres(dataDir, createLogger('silent'));
  const pgDir = path.join(dataDir, 'pg');
  const port = new URL(embedded.url).port;
  const { pg_ctl } = await postgresBinaries();
  // As root, the cluster belongs to (and pg_ctl must run as) the `postgres` user.
  const owner = fs.statSync(pgDir);
  const asOwner = process.getuid?.() === 0 ? { uid: owner.uid, gid: owner.gid } : {};
  const pgCtl = (...args: string[]) =>
    new Promise<void>((resolve, reject) =>
      execFile(
        pg_ctl,
        ['-D', pgDir, ...args],
        { ...asOwner, env: { ...process.env, LC_MESSAGES: 'C' } },
        (err, _stdout, stderr) => (err ? reject(new Error(`pg_ctl ${args[0]}: ${stderr || err.message}`)) : resolve()),
      ),
    );
  return {
    url: embedded.url,
    stop: () => pgCtl('stop', '-m', 'fast', '-w'),
    start: () => pgCtl('start', '-w', '-l', '/dev/null', '-o', `-p ${port}`),
    async terminate(applicationName) {
      const admin = new pg.Client({ connectionString: embedded.url });
      await admin.connect();
      try {
        const { rows } = await admin.query<{ application_name: string }>(
          `SELECT application_name, pg_terminate_backend(pid) FROM pg_stat_activity
           WHERE datname = current_database() AND pid <> pg_backend_pid() AND ($1::text IS NULL OR application_name = $1)`,
          [applicationName ?? null],
        );
        return rows.map((row) => row.application_name);
      } finally {
        await admin.end();
      }
    },
    async remove() {
      await embedded.stop();
      removeDataDir(dataDir);
    },
  };
}

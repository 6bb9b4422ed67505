import test from 'ava';
import pg from 'pg';
import { request } from 'undici';
import { startServe, type RunningServe } from '../helpers/cli.ts';
import { startOwnPostgres, type OwnPostgres } from '../helpers/postgres.ts';
import { call, type TestPlatform } from '../helpers/platform.ts';
import { signUp } from '../helpers/users.ts';

// Replicas of `capctl serve` on a PostgreSQL of the test's own, which is stopped and started again
// for real (pg_ctl) or has its sessions ended (pg_terminate_backend) while the replicas are under load.

const freePorts = [
  '--port',
  '0',
  '--ol-port',
  '0',
  '--cap-port',
  '0',
  '--lms-port',
  '0',
  '--grpc-port',
  '0',
  '--lms-grpc-port',
  '0',
  '--no-service-ports',
];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Outcome {
  status: number | string;
  code?: string;
  retryAfter?: string;
  email?: string;
}

/** Registrations sent without pause by `workers` workers per replica until `stop`; each outcome kept. */
function registrationLoad(replicas: RunningServe[], workers: number) {
  const outcomes: Outcome[] = [];
  let running = true;
  let n = 0;
  const worker = async (gateway: string) => {
    while (running) {
      const email = `load+${process.pid}.${n++}@example.test`;
      try {
        const res = await request(`${gateway}/v1/ol/auth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email, password: 'Correct-horse-9', intents: ['cap'] }),
        });
        const body = (await res.body.json().catch(() => undefined)) as { error?: { code?: string } } | undefined;
        outcomes.push({
          status: res.statusCode,
          code: body?.error?.code,
          retryAfter: res.headers['retry-after'] as string | undefined,
          email,
        });
      } catch (err) {
        outcomes.push({ status: (err as NodeJS.ErrnoException).code ?? String(err) });
        await sleep(50);
      }
    }
  };
  const all = Promise.all(
    replicas.flatMap((replica) => Array.from({ length: workers }, () => worker(replica.urls.gateway!))),
  );
  return {
    outcomes,
    async stop() {
      running = false;
      await all;
    },
  };
}

async function readyStatus(replica: RunningServe): Promise<number> {
  try {
    return (await call('GET', `${replica.urls.gateway}/v1/cap/readyz`)).status;
  } catch {
    return 0;
  }
}

async function query<T>(url: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, values)).rows as T[];
  } finally {
    await client.end();
  }
}

/** The replica's JSON log lines (its stderr), parsed. */
const logLines = (replica: RunningServe) =>
  replica
    .stderr()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string; component?: string });

async function startReplicas(database: OwnPostgres, count: number): Promise<RunningServe[]> {
  const replicas: RunningServe[] = [];
  // One after the other: the first applies the migrations.
  for (let i = 0; i < count; i++)
    replicas.push(await startServe(freePorts, { DATABASE_URL: database.url, LOG_LEVEL: 'info' }));
  return replicas;
}

test.serial(
  'PostgreSQL stopped for 10 s under load and started again: every replica stays up, answers 503 with Retry-After meanwhile, is ready within 5 s of the database, and loses no acknowledged write',
  async (t) => {
    const database = await startOwnPostgres();
    t.teardown(() => database.remove());
    const replicas = await startReplicas(database, 2);
    t.teardown(() => Promise.all(replicas.map((replica) => replica.stop())));
    const platform = { url: (p: string) => `${replicas[0]!.urls.gateway}${p}` } as TestPlatform;
    const user = await signUp(platform);
    // A session in use: CAP has checked its token once (and holds the signing keys) before the outage.
    for (const replica of replicas)
      t.is((await call('GET', `${replica.urls.gateway}/v1/cap/me`, { token: user.accessToken })).status, 200);

    const load = registrationLoad(replicas, 3);
    await sleep(3000);
    await database.stop();
    const stoppedAt = Date.now();
    await sleep(2000);
    const during = await Promise.all(
      replicas.map((replica) => call('GET', `${replica.urls.gateway}/v1/cap/me`, { token: user.accessToken })),
    );
    const readyDuring = await Promise.all(replicas.map(readyStatus));
    await sleep(10_000 - (Date.now() - stoppedAt));
    await database.start();
    const startedAt = Date.now();
    const readyAfterMs = await Promise.all(
      replicas.map(async (replica) => {
        while ((await readyStatus(replica)) !== 200) {
          if (Date.now() - startedAt > 30_000) return Infinity;
          await sleep(50);
        }
        return Date.now() - startedAt;
      }),
    );
    await sleep(3000);
    await load.stop();
    t.log(`ready ${readyAfterMs.join(' and ')} ms after PostgreSQL accepted connections again`);

    for (const replica of replicas)
      t.is(replica.child.exitCode, null, `the replica is still running: ${replica.stderr().slice(-3000)}`);
    for (const ms of readyAfterMs) t.true(ms <= 5000, `ready ${ms} ms after the database`);
    t.deepEqual(readyDuring, [503, 503], 'readyz says not ready while the database is down');
    for (const answer of during) {
      t.is(answer.status, 503);
      t.is(answer.body.error.code, 'service.unavailable');
      t.truthy(answer.headers['retry-after']);
    }

    const counts: Record<string, number> = {};
    for (const o of load.outcomes)
      counts[`${o.status} ${o.code ?? ''}`.trim()] = (counts[`${o.status} ${o.code ?? ''}`.trim()] ?? 0) + 1;
    t.log('registrations:', JSON.stringify(counts));
    t.deepEqual(
      Object.keys(counts).filter((key) => key !== '201' && key !== '503 service.unavailable'),
      [],
      'nothing but 201 and 503',
    );
    t.true(
      load.outcomes.filter((o) => o.status === 503).every((o) => o.retryAfter),
      'every 503 has Retry-After',
    );
    t.true((counts['201'] ?? 0) > 0 && (counts['503 service.unavailable'] ?? 0) > 0);

    // Every acknowledged registration is stored, and its mail (sent through the event bus) arrives.
    const acknowledged = load.outcomes.filter((o) => o.status === 201).map((o) => o.email!);
    const stored = await query<{ email: string }>(database.url, 'SELECT email FROM ol.users WHERE email = ANY($1)', [
      acknowledged,
    ]);
    t.is(stored.length, acknowledged.length, 'no acknowledged write is lost');
    const deadline = Date.now() + 60_000;
    let mailed = 0;
    while (Date.now() < deadline) {
      mailed = (
        await query<{ n: number }>(
          database.url,
          'SELECT count(DISTINCT to_address)::int AS n FROM ol.dev_mailbox WHERE to_address = ANY($1)',
          [acknowledged],
        )
      )[0]!.n;
      if (mailed === acknowledged.length) break;
      await sleep(500);
    }
    t.is(mailed, acknowledged.length, 'every acknowledged registration got its mail');

    // The outage is logged once per replica, not once per request, and never as an error.
    for (const replica of replicas) {
      const lines = logLines(replica);
      t.is(lines.filter((l) => l.msg.startsWith('database unreachable')).length, 1, replica.stderr().slice(-3000));
      t.is(lines.filter((l) => l.msg === 'database back').length, 1);
      t.deepEqual(
        lines.filter((l) => l.level >= 50),
        [],
        'no error-level line',
      );
    }
  },
);

test.serial(
  "every session of the platform ended (pg_terminate_backend) under load, again and again, the event relay's among them: the replicas stay up and keep working",
  async (t) => {
    const database = await startOwnPostgres();
    t.teardown(() => database.remove());
    const replicas = await startReplicas(database, 2);
    t.teardown(() => Promise.all(replicas.map((replica) => replica.stop())));

    const load = registrationLoad(replicas, 3);
    await sleep(2000);
    // The relay's sessions alone, while it is busy, then every session at once.
    for (let i = 0; i < 5; i++) {
      await database.terminate('capctl-relay');
      await sleep(300);
    }
    for (let i = 0; i < 3; i++) {
      await database.terminate();
      await sleep(1000);
    }
    const endedAt = Date.now();
    await Promise.all(
      replicas.map(async (replica) => {
        while ((await readyStatus(replica)) !== 200 && Date.now() - endedAt < 10_000) await sleep(50);
      }),
    );
    t.log(`both ready ${Date.now() - endedAt} ms after the last termination`);
    await sleep(2000);
    await load.stop();

    for (const replica of replicas)
      t.is(replica.child.exitCode, null, `the replica is still running: ${replica.stderr().slice(-3000)}`);
    for (const replica of replicas) t.is(await readyStatus(replica), 200);
    t.false(
      load.outcomes.some((o) => o.status === 500),
      'no 500',
    );
    // What needs a live connection of its own is back: each replica's listeners of caller changes (CAP's
    // callers, the LMS's, the Orchestrator's sessions), and the event bus (a registration's mail arrives).
    const listening = async () =>
      (
        await query<{ n: number }>(
          database.url,
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name IN ('cap-callers', 'lms-callers', 'ol-callers')`,
        )
      )[0]!.n;
    const deadline = Date.now() + 15_000;
    while ((await listening()) < 6 && Date.now() < deadline) await sleep(200);
    t.is(await listening(), 6, 'both replicas listen for caller changes again, each service');
    for (const replica of replicas) {
      const platform = { url: (p: string) => `${replica.urls.gateway}${p}` } as TestPlatform;
      await t.notThrowsAsync(signUp(platform), 'register, mail and verify work on every replica');
    }
    for (const replica of replicas)
      t.deepEqual(
        logLines(replica).filter((l) => l.level >= 50),
        [],
        'no error-level line',
      );
  },
);

// `npm test`: one embedded PostgreSQL for the whole run, then ava. A platform starts once, here, on a
// template database; each test platform gets its own copy of it (test/helpers/platform.ts), so a test
// file sees no other file's data and no start pays for the migrations and pg-boss's schema again. The server is stopped and its files removed at the end,
// whatever the tests did. Tests run the TypeScript sources in-process, and `bin/capctl` as users do:
// from the compiled build, brought up to date here once, before the tests start (CAPCTL_FROM_SOURCE=1
// skips the build and runs capctl from the sources too, for a quicker inner loop).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { compileTests, ensureBuild, root } from '../bin/build.mjs';
import { createDatabase } from '../server/platform/db/database.ts';
import { isAlive, removeDataDir, startEmbeddedPostgres, throwawaySettings } from '../server/platform/db/embedded.ts';
import { anyFreePorts, resolveConfig } from '../server/platform/config.ts';
import { createLogger } from '../server/platform/logger.ts';
import { startPlatform } from '../server/main.ts';

const fromSource = process.env.CAPCTL_FROM_SOURCE === '1';
if (!fromSource) ensureBuild();
// The test processes run a compiled copy of server/, cli/ and test/ (bin/build.mjs, compileTests),
// one per run so that two runs in the same folder do not meet; with CAPCTL_FROM_SOURCE=1, the sources
// through tsx. The copy's code finds migrations and the loaded OpenAPI documents in dist/, as the build
// does, which is why it needs the build above.
const testCopies = path.join(root, 'dist', 'tests');
const testBuild = fromSource ? undefined : path.join('dist', 'tests', String(process.pid));
// A run that was killed leaves its copy behind: copies of runs no longer alive are removed.
for (const pid of fs.existsSync(testCopies) ? fs.readdirSync(testCopies) : [])
  if (!isAlive(Number(pid))) fs.rmSync(path.join(testCopies, pid), { recursive: true, force: true });
if (testBuild) await compileTests(path.join(root, testBuild));
/**
 * A file or folder named on the command line (`test/cap/me.test.ts`, `test/cap/me.test.ts:12`), as its
 * compiled copy (ava reads the source map to find the TypeScript lines).
 */
const testArgument = (arg: string) =>
  testBuild && /^(\.\/)?test\//.test(arg) ? path.join(testBuild, arg.replace(/\.ts((:[\d,-]+)?)$/, '.js$1')) : arg;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-test-'));
// Every test file's platforms (a dozen connections each, several at once) share this server. Its data
// is thrown away at the end, so it does not wait for the disk.
const database = await startEmbeddedPostgres(dataDir, createLogger('warn'), {
  settings: { max_connections: '400', ...throwawaySettings },
});
const cleanup = async () => {
  await database.stop().catch(() => undefined);
  removeDataDir(dataDir);
  if (testBuild) fs.rmSync(path.join(root, testBuild), { recursive: true, force: true });
};
const template = 'test_template';
try {
  // Each connection's password check hashes the password (SCRAM, 4,096 rounds unless told otherwise): a
  // test run opens thousands of connections, and with one round the check costs the server a third less.
  const client = new pg.Client(database.url);
  await client.connect();
  await client.query('SET scram_iterations = 1');
  await client.query(
    `ALTER ROLE CURRENT_USER PASSWORD ${client.escapeLiteral(decodeURIComponent(new URL(database.url).password))}`,
  );
  await client.end();
  // The template is the database a first start leaves: migrated, with pg-boss's schema, the platform's
  // queues and a signing key, which each start would otherwise make again (pg-boss's about 0.3 s of
  // PostgreSQL's CPU a platform, the RSA key 0.1-0.3 s of the test process's). Not the queues'
  // subscriptions: a platform of some services only relays to its own consumers, as on a fresh database.
  const templateUrl = await createDatabase(database.url, template);
  const platform = await startPlatform(resolveConfig({ ...anyFreePorts, logLevel: 'warn', databaseUrl: templateUrl }));
  await platform.stop();
  const templateClient = new pg.Client(templateUrl);
  await templateClient.connect();
  await templateClient.query('DELETE FROM pgboss.subscription');
  await templateClient.end();
} catch (err) {
  await cleanup();
  throw err;
}

// TEST_CPU_LOG=file: each test process appends its CPU seconds to the file (test/helpers/cpu-probe.mjs), and
// the run ends it with its PostgreSQL's.
const cpuLog = process.env.TEST_CPU_LOG;
const probe = cpuLog ? ['--node-arguments=--import=./test/helpers/cpu-probe.mjs'] : [];
const pgPid = cpuLog ? fs.readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]! : '';
const ava = spawn(
  process.execPath,
  [path.join('node_modules', 'ava', 'entrypoints', 'cli.mjs'), ...probe, ...process.argv.slice(2).map(testArgument)],
  {
    stdio: 'inherit',
    env: {
      ...process.env,
      TEST_DATABASE_URL: database.url,
      TEST_TEMPLATE_DATABASE: template,
      TEST_PG_PID: pgPid,
      ...(testBuild ? { TEST_BUILD_DIR: testBuild, CAPCTL_BUILD_CHECKED: '1' } : {}),
    },
  },
);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => ava.kill(signal));
const code = await new Promise<number>((resolve) => ava.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
if (cpuLog) {
  // The whole run's PostgreSQL: the server, the connections that ended, and its own processes still running.
  const seconds = (pid: string, fields: [number, number]) =>
    fs
      .readFileSync(`/proc/${pid}/stat`, 'utf8')
      .split(') ')[1]!
      .split(' ')
      .slice(...fields)
      .reduce((sum, ticks) => sum + Number(ticks) / 100, 0);
  const children = fs.readFileSync(`/proc/${pgPid}/task/${pgPid}/children`, 'utf8').trim().split(' ').filter(Boolean);
  const cpu = seconds(pgPid, [11, 15]) + children.reduce((sum, pid) => sum + seconds(pid, [11, 13]), 0);
  fs.appendFileSync(cpuLog, `${JSON.stringify({ file: '(postgres, whole run)', cpu: +cpu.toFixed(2) })}\n`);
}
await cleanup();
process.exit(code);

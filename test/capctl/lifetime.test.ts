import test, { type ExecutionContext } from 'ava';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// Every command that starts PostgreSQL stops it, and removes a throwaway cluster, on every way out:
// its output closed under it (EPIPE), SIGINT, SIGTERM, SIGHUP, an error. Real capctl processes, each
// with a TMPDIR of its own, so that what a command leaves behind (files, a running postgres) is seen.

const capctl = path.resolve('bin/capctl');
const scenario = path.resolve('fixtures/scenarios/candidate-signup.yaml');
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
];

/** A private temporary directory, reachable by the `postgres` user when the tests run as root. */
function privateTmp(t: ExecutionContext): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-lifetime-'));
  fs.chmodSync(dir, 0o755);
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Processes whose command line names `dir` (a postgres left running there). */
function processesIn(dir: string): string[] {
  const found: string[] = [];
  for (const pid of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmdline.includes(dir)) found.push(`${pid}: ${cmdline}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

interface Child {
  /** Resolves with the first stdout line matching `pattern`. */
  line(pattern: RegExp): Promise<string>;
  signal(signal: NodeJS.Signals): void;
  exit: Promise<number | null>;
  output(): string;
}

// Run from the sources (CAPCTL_FROM_SOURCE=1), capctl goes through tsx, which would keep its compile
// cache in the TMPDIR given: it is told not to, so that whatever is left there is capctl's own.
const noTsxCache = { TSX_DISABLE_CACHE: '1' };

function start(args: string[], env: NodeJS.ProcessEnv): Child {
  const child = spawn(process.execPath, [capctl, ...args], {
    env: { ...process.env, ...noTsxCache, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiting: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
    for (const w of [...waiting]) {
      const line = stdout.split('\n').find((l) => w.pattern.test(l));
      if (line) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    line: (pattern) =>
      new Promise((resolve, reject) => {
        waiting.push({ pattern, resolve });
        void exit.then((code) =>
          reject(new Error(`capctl exited (${code}) before printing ${pattern}: ${stdout}\n${stderr}`)),
        );
      }),
    signal: (signal) => child.kill(signal),
    exit,
    output: () => `${stdout}\n${stderr}`,
  };
}

function assertNothingLeft(t: ExecutionContext, tmp: string): void {
  t.deepEqual(fs.readdirSync(tmp), [], 'the throwaway data directory is gone');
  t.deepEqual(processesIn(tmp), [], 'no postgres left running');
}

test('capctl run --embedded FILE | head: the closed pipe stops the platform and its PostgreSQL, and removes the temporary folder', async (t) => {
  const tmp = privateTmp(t);
  const result = await new Promise<{ code: number | null; out: string }>((resolve) => {
    const shell = spawn(
      'bash',
      [
        '-c',
        `"${process.execPath}" "${capctl}" run --embedded "${scenario}" | head -n 1; echo "capctl exit \${PIPESTATUS[0]}"`,
      ],
      {
        env: { ...process.env, ...noTsxCache, TMPDIR: tmp },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    shell.stdout.on('data', (chunk) => (out += chunk));
    shell.stderr.on('data', (chunk) => (out += chunk));
    shell.on('close', (code) => resolve({ code, out }));
  });
  t.regex(result.out, /capctl exit 141\n/, result.out);
  t.notRegex(result.out, /\n\s+at /, 'no stack trace');
  assertNothingLeft(t, tmp);
});

test.serial(
  'capctl run --embedded stopped by SIGINT while its scenarios run exits 130 and leaves nothing behind',
  async (t) => {
    const tmp = privateTmp(t);
    const run = start(['run', '--embedded', scenario], { TMPDIR: tmp });
    await run.line(/candidate signs up/);
    run.signal('SIGINT');
    t.is(await run.exit, 130, run.output());
    assertNothingLeft(t, tmp);
  },
);

for (const [signal, code] of [
  ['SIGTERM', 143],
  ['SIGHUP', 129],
] as const) {
  test.serial(
    `capctl run --embedded stopped by ${signal} while it starts (its PostgreSQL running, the platform not yet) exits ${code} and leaves nothing behind`,
    async (t) => {
      const tmp = privateTmp(t);
      const run = start(['run', '--embedded', scenario], { TMPDIR: tmp });
      while (!processesIn(tmp).some((p) => /bin\/postgres -D/.test(p)))
        await new Promise((resolve) => setTimeout(resolve, 20));
      run.signal(signal);
      t.is(await run.exit, code, run.output());
      t.notRegex(run.output(), /platform ready/, 'it ends at once, without starting and seeding the platform first');
      assertNothingLeft(t, tmp);
    },
  );
}

test.serial(
  'capctl run --embedded stopped by SIGINT while initdb makes its cluster exits 130 and leaves nothing behind (no password file either)',
  async (t) => {
    const tmp = privateTmp(t);
    const run = start(['run', '--embedded', scenario], { TMPDIR: tmp });
    while (!processesIn(tmp).some((p) => /bin\/initdb /.test(p)))
      await new Promise((resolve) => setTimeout(resolve, 5));
    run.signal('SIGINT');
    t.is(await run.exit, 130, run.output());
    t.notRegex(run.output(), /platform ready/, 'it ends at once, without starting and seeding the platform first');
    assertNothingLeft(t, tmp);
  },
);

test.serial(
  'capctl run --embedded that fails after the run (a report it cannot write) exits 2 and leaves nothing behind',
  async (t) => {
    const tmp = privateTmp(t);
    const run = start(['run', '--embedded', scenario, '--junit', path.join(tmp, 'no-such-folder', 'report.xml')], {
      TMPDIR: tmp,
    });
    t.is(await run.exit, 2, run.output());
    t.regex(run.output(), /cannot write .*report\.xml/);
    assertNothingLeft(t, tmp);
  },
);

test.serial('capctl demo stopped by SIGINT while its scenarios run exits 130 and leaves nothing behind', async (t) => {
  const tmp = privateTmp(t);
  const demo = start(['demo'], { TMPDIR: tmp });
  await demo.line(/^running \d+ bundled scenarios/);
  demo.signal('SIGINT');
  t.is(await demo.exit, 130, demo.output());
  assertNothingLeft(t, tmp);
});

test.serial(
  'capctl serve stops its PostgreSQL on SIGHUP (the terminal closed), and on a signal before it was ready',
  async (t) => {
    const tmp = privateTmp(t);
    const dataDir = path.join(tmp, 'data');
    const serve = start(['serve', '--data-dir', dataDir, ...freePorts], { DATABASE_URL: '', LOG_LEVEL: 'warn' });
    await serve.line(/^ready /);
    serve.signal('SIGHUP');
    t.is(await serve.exit, 0, serve.output());
    t.false(fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid')), 'PostgreSQL was stopped');
    t.deepEqual(processesIn(tmp), []);

    // Stopped while still starting, once its PostgreSQL runs: the process ends at once, and PostgreSQL with it.
    // PostgreSQL's pid file says it runs (the log line saying so is written up to 200 ms later, by
    // which time the platform may be ready).
    const early = start(['serve', '--data-dir', dataDir, ...freePorts], { DATABASE_URL: '', LOG_LEVEL: 'info' });
    while (!fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid')))
      await new Promise((resolve) => setTimeout(resolve, 5));
    early.signal('SIGTERM');
    await early.exit;
    t.notRegex(early.output(), /^ready /m, 'stopped before it was ready');
    t.false(fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid')), 'PostgreSQL was stopped');
    t.deepEqual(processesIn(tmp), []);
  },
);

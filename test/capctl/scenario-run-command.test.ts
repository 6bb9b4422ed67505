import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import anyTest, { type TestFn } from 'ava';
import { Command } from 'commander';
import { runCommand } from '../../cli/commands/run.action.ts';
import type { RunCommandOptions } from '../../cli/commands/run.action.ts';
import { registerRun } from '../../cli/commands/run.ts';
import { scenarioFiles } from '../../cli/scenarios/files.ts';
import { exitCodes, UsageError } from '../../cli/output.ts';
import { ScenarioFileError } from '../../cli/scenarios/parse.ts';
import { startFakePlatform, type FakePlatform } from './scenario-fake-platform.ts';

const test = anyTest as TestFn<{ platform: FakePlatform; dir: string }>;

test.beforeEach(async (t) => {
  t.context.platform = await startFakePlatform();
  t.context.dir = await mkdtemp(path.join(tmpdir(), 'capctl-run-test-'));
});
test.afterEach.always(async (t) => {
  await t.context.platform.close();
  await rm(t.context.dir, { recursive: true, force: true });
});

const passing = 'name: passing\nsteps:\n  - { id: health, http: { method: GET, path: /v1/ol/healthz } }\n';
const failing =
  'name: failing\nsteps:\n  - { id: health, http: { method: GET, path: /v1/ol/healthz }, expect: { status: 201 } }\n';

async function file(t: { context: { dir: string } }, name: string, text: string): Promise<string> {
  const target = path.join(t.context.dir, name);
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, text);
  return target;
}

function output() {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    streams: { stdout: { write: (s: string) => stdout.push(s) }, stderr: { write: (s: string) => stderr.push(s) } },
  };
}

const options = (extra: Partial<RunCommandOptions> = {}): RunCommandOptions => ({
  var: [],
  concurrency: 1,
  only: [],
  skip: [],
  ...extra,
});

test('all scenarios passing exits 0 and prints the summary', async (t) => {
  const io = output();
  const code = await runCommand(
    [await file(t, 'a.yaml', passing)],
    options({ baseUrl: t.context.platform.url }),
    io.streams,
  );
  t.is(code, exitCodes.ok);
  t.regex(io.stdout.join(''), /1 scenario: 1 passed, 0 failed/);
});

test('a failed expectation exits 1 and shows the difference', async (t) => {
  const io = output();
  const code = await runCommand(
    [await file(t, 'b.yaml', failing)],
    options({ baseUrl: t.context.platform.url }),
    io.streams,
  );
  t.is(code, exitCodes.failed);
  t.regex(io.stdout.join(''), /status {2}expected 201, got 200/);
});

test('a malformed scenario is a usage error with file, line and column, and nothing runs', async (t) => {
  const bad = await file(t, 'bad.yaml', 'name: bad\nsteps:\n  - id: a\n    htp: {}\n');
  const error = await t.throwsAsync(
    runCommand(
      [await file(t, 'ok.yaml', passing), bad],
      options({ baseUrl: t.context.platform.url }),
      output().streams,
    ),
    { instanceOf: ScenarioFileError },
  );
  t.true(error instanceof UsageError);
  t.true(error!.message.startsWith(`${bad}:3:5: steps[0]: a step needs one action`));
  t.is(t.context.platform.calls.requests, 0);
});

test('a stopped platform exits 3', async (t) => {
  const port = await closedPort();
  const io = output();
  const code = await runCommand(
    [await file(t, 'a.yaml', passing)],
    options({ baseUrl: `http://127.0.0.1:${port}` }),
    io.streams,
  );
  t.is(code, exitCodes.unreachable);
  t.regex(io.stderr.join(''), /^capctl: cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
});

test('--json prints one valid JSON report on stdout and nothing else', async (t) => {
  const io = output();
  const files = [await file(t, 'a.yaml', passing), await file(t, 'b.yaml', failing)];
  const code = await runCommand(
    files,
    options({ baseUrl: t.context.platform.url, json: true, concurrency: 2 }),
    io.streams,
  );
  t.is(code, 1);
  const report = JSON.parse(io.stdout.join(''));
  t.is(report.exitCode, 1);
  t.deepEqual(
    report.scenarios.map((s: { name: string; status: string }) => [s.name, s.status]),
    [
      ['passing', 'passed'],
      ['failing', 'failed'],
    ],
  );
  t.is(typeof report.scenarios[0].steps[0].durationMs, 'number');
});

test('--junit writes the XML report to a file', async (t) => {
  const junit = path.join(t.context.dir, 'out', 'report.xml');
  await mkdir(path.dirname(junit));
  await runCommand(
    [await file(t, 'a.yaml', passing)],
    options({ baseUrl: t.context.platform.url, junit }),
    output().streams,
  );
  t.regex(
    await readFile(junit, 'utf8'),
    /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="capctl run" tests="1"/,
  );
});

test('--var overrides --vars-file, which overrides the file', async (t) => {
  const scenario = await file(
    t,
    'vars.yaml',
    `name: vars
vars: { a: file, b: file, c: file }
steps:
  - id: echo
    http: { method: POST, path: /v1/cap/echo, body: { a: "\${vars.a}", b: "\${vars.b}", c: "\${vars.c}" } }
    expect: { body: { data.body: { a: file, b: 2, c: flag } } }
`,
  );
  const varsFile = await file(t, 'vars-file.yaml', 'b: 2\nc: vars-file\n');
  const code = await runCommand(
    [scenario],
    options({ baseUrl: t.context.platform.url, varsFile, var: ['c=flag'] }),
    output().streams,
  );
  t.is(code, 0);
});

test('inputs are files, directories of .yaml files, or names of bundled scenarios', async (t) => {
  const dir = path.join(t.context.dir, 'set');
  await file(t, 'set/b.yaml', passing);
  await file(t, 'set/a.yml', passing);
  await file(t, 'set/notes.txt', 'not a scenario');
  t.deepEqual(await scenarioFiles(dir), [path.join(dir, 'a.yml'), path.join(dir, 'b.yaml')]);
  const bundled = path.join(t.context.dir, 'bundled');
  await file(t, 'bundled/candidate-signup.yaml', passing);
  t.deepEqual(await scenarioFiles('candidate-signup', bundled), [
    path.relative(process.cwd(), path.join(bundled, 'candidate-signup.yaml')),
  ]);
  await t.throwsAsync(scenarioFiles('no-such-scenario', bundled), {
    instanceOf: UsageError,
    message: 'no scenario file or bundled scenario named "no-such-scenario"',
  });
});

test('bad flags are usage errors', async (t) => {
  const a = await file(t, 'a.yaml', passing);
  await t.throwsAsync(runCommand([a], options({ var: ['novalue'] })), {
    instanceOf: UsageError,
    message: /name=value/,
  });
  await t.throwsAsync(runCommand([a], options({ embedded: true, baseUrl: 'http://x' })), { instanceOf: UsageError });
  await t.throwsAsync(runCommand([a], options({ baseUrl: 'ftp://x' })), { instanceOf: UsageError, message: /http/ });
  const program = new Command().exitOverride().configureOutput({ writeErr: () => {} });
  registerRun(program);
  await t.throwsAsync(program.parseAsync(['node', 'capctl', 'run', a, '--concurrency', '0']), {
    code: 'commander.invalidArgument',
  });
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

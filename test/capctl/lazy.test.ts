import test from 'ava';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildProgram } from '../../cli/main.ts';

// capctl loads a command's heavy modules (database, gRPC, Pact, the server, HTTP clients) only when
// that command runs, so `--help` and small commands start fast. These tests run the compiled capctl
// with module hooks that record every module it resolves: a package from node_modules, or a file of
// the build, whose source map names the packages bundled into it (undici).
const hooks = path.resolve('test/fixtures/import-log.mjs');
const capctl = path.resolve('bin/capctl');
const each = path.resolve('test/fixtures/capctl-each.mjs');

/** Runs node with the hooks and `args`, which must exit with `expectedCode`; resolves to the lines of the import log. */
async function importLog(args: string[], expectedCode = 0): Promise<string[]> {
  const log = path.join(await mkdtemp(path.join(os.tmpdir(), 'capctl-imports-')), 'imports.txt');
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, ['--import', hooks, ...args], {
      env: { ...process.env, IMPORT_LOG: log, CAPCTL_FROM_SOURCE: '' },
      stdio: 'ignore',
    });
    child.on('close', resolve);
  });
  if (code !== expectedCode) throw new Error(`${args.join(' ')} exited ${code}`);
  return (await readFile(log, 'utf8').catch(() => '')).split('\n');
}

/** The packages (node_modules/<name>) among these module URLs and the sources bundled into them, sorted. */
async function packages(urls: string[]): Promise<string[]> {
  const paths = await Promise.all(
    urls.map(async (url) => {
      if (!/\/dist\/.*\.js$/.test(url)) return [url];
      const map = await readFile(`${fileURLToPath(url)}.map`, 'utf8').catch(() => undefined);
      return [url, ...(map ? (JSON.parse(map) as { sources: string[] }).sources : [])];
    }),
  );
  const names = paths
    .flat()
    .map((file) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1])
    .filter((name): name is string => Boolean(name));
  return [...new Set(names)].sort();
}

/** The packages `capctl <args>` resolves, in a process of its own. */
const packagesLoaded = async (args: string[], expectedCode = 0) =>
  packages(await importLog([capctl, ...args], expectedCode));

/**
 * The packages each command line resolves first when they all run in one process, one after the other
 * (test/fixtures/capctl-each.mjs), and those resolved before the first: a package one of them loads is
 * listed under the first that loads it.
 */
async function packagesLoadedByEach(lines: string[][]): Promise<{ start: string[]; each: string[][] }> {
  const sections: string[][] = [[]];
  for (const line of await importLog([each, JSON.stringify(lines)])) {
    if (/^# \d+$/.test(line)) sections.push([]);
    else sections.at(-1)!.push(line);
  }
  if (sections.length !== lines.length + 1)
    throw new Error(`${sections.length - 1} of ${lines.length} command lines ran`);
  return { start: await packages(sections[0]!), each: await Promise.all(sections.slice(1).map(packages)) };
}

/** Every command path of the program, e.g. ['keys', 'rotate']. */
function commandPaths(): string[][] {
  const paths: string[][] = [];
  const visit = (command: ReturnType<typeof buildProgram>, prefix: string[]) => {
    for (const sub of command.commands) {
      paths.push([...prefix, sub.name()]);
      visit(sub, [...prefix, sub.name()]);
    }
  };
  visit(buildProgram(), []);
  return paths;
}

test('capctl --help loads no package but the command-line parser', async (t) => {
  t.deepEqual(await packagesLoaded(['--help']), ['commander']);
});

test("every command's --help loads no package but the command-line parser", async (t) => {
  const paths = commandPaths();
  t.true(paths.length > 10);
  // One process runs them all (a process each costs about 0.2 s of CPU, 96 of them): the parser is
  // loaded before the first, and no help loads anything after it.
  const { start, each } = await packagesLoadedByEach(paths.map((command) => [...command, '--help']));
  t.deepEqual(start, ['commander']);
  paths.forEach((command, i) => t.deepEqual(each[i], [], `capctl ${command.join(' ')} --help`));
});

test('a command that runs loads what it needs only then (grpc methods reads the protos)', async (t) => {
  const loaded = await packagesLoaded(['grpc', 'methods']);
  t.true(loaded.includes('@grpc/proto-loader'));
  t.false(loaded.includes('sequelize'));
});

test('a command that sends a request loads the HTTP client only then, bundled or not', async (t) => {
  // Nothing listens on port 9: the command fails as unreachable (exit 3) after loading its client.
  const args = ['login', '--base-url', 'http://127.0.0.1:9', '--email', 'a@example.com', '--password', 'x'];
  t.deepEqual(await packagesLoaded(args, 3), ['commander', 'undici']);
});

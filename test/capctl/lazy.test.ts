import test from 'ava';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildProgram } from '../../cli/main.ts';

// capctl loads a command's heavy modules (database, gRPC, Pact, the server, HTTP clients) only when
// that command runs, so `--help` and small commands start fast. These tests run the compiled capctl
// with module hooks that record every package it resolves.
const hooks = path.resolve('test/fixtures/import-log.mjs');

async function packagesLoaded(args: string[]): Promise<string[]> {
  const log = path.join(await mkdtemp(path.join(os.tmpdir(), 'capctl-imports-')), 'imports.txt');
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, ['--import', hooks, path.resolve('bin/capctl'), ...args], {
      env: { ...process.env, IMPORT_LOG: log },
      stdio: 'ignore',
    });
    child.on('close', resolve);
  });
  if (code !== 0) throw new Error(`capctl ${args.join(' ')} exited ${code}`);
  const urls = (await readFile(log, 'utf8').catch(() => '')).split('\n');
  const names = urls
    .map((url) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1])
    .filter((name): name is string => Boolean(name));
  return [...new Set(names)].sort();
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
  for (const command of paths)
    t.deepEqual(await packagesLoaded([...command, '--help']), ['commander'], `capctl ${command.join(' ')} --help`);
});

test('a command that runs loads what it needs only then (grpc methods reads the protos)', async (t) => {
  const loaded = await packagesLoaded(['grpc', 'methods']);
  t.true(loaded.includes('@grpc/proto-loader'));
  t.false(loaded.includes('sequelize'));
});

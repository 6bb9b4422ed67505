import test from 'ava';
import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, symlink, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

// bin/capctl runs the compiled build; these tests use a copy of the build machinery (bin/, the
// tsconfig files) around a one-file CLI, so they can make its sources newer than its build without
// disturbing the project's own build while other tests use it.
async function miniProject(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'capctl-build-'));
  for (const file of ['bin/capctl', 'bin/build.mjs', 'tsconfig.json', 'tsconfig.build.json', 'package.json']) {
    await cp(path.resolve(file), path.join(dir, file), { recursive: true });
  }
  await symlink(path.resolve('node_modules'), path.join(dir, 'node_modules'));
  await mkdir(path.join(dir, 'cli'));
  await writeMain(dir, 'first');
  return dir;
}

const writeMain = (dir: string, word: string) =>
  writeFile(
    path.join(dir, 'cli', 'main.ts'),
    `export async function main(): Promise<number> {\n  process.stdout.write('${word}\\n');\n  return 0;\n}\n`,
  );

function capctl(dir: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(dir, 'bin', 'capctl')], {
      env: { ...process.env, CAPCTL_FROM_SOURCE: '', CAPCTL_BUILD_CHECKED: '' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('capctl builds when there is no build, then runs the build without compiling again', async (t) => {
  const dir = await miniProject();
  const first = await capctl(dir);
  t.is(first.code, 0);
  t.is(first.stdout, 'first\n');
  t.regex(first.stderr, /compiling the TypeScript sources/);
  t.true((await readFile(path.join(dir, 'dist', 'capctl', 'main.js'), 'utf8')).includes('first'));

  const second = await capctl(dir);
  t.is(second.stdout, 'first\n');
  t.is(second.stderr, '');
});

test('a source newer than the build is compiled before capctl runs: a stale build never runs', async (t) => {
  const dir = await miniProject();
  await capctl(dir);
  await writeMain(dir, 'second');
  const later = new Date(Date.now() + 5_000);
  await utimes(path.join(dir, 'cli', 'main.ts'), later, later);
  const run = await capctl(dir);
  t.is(run.code, 0);
  t.is(run.stdout, 'second\n');
  t.regex(run.stderr, /older than the sources/);
});

test('a build that fails to compile stops capctl with exit code 2 and the compiler errors', async (t) => {
  const dir = await miniProject();
  await writeFile(path.join(dir, 'cli', 'main.ts'), 'export const main: number = "not a number";\n');
  const run = await capctl(dir);
  t.is(run.code, 2);
  t.regex(run.stdout + run.stderr, /TS2322/);
  t.regex(run.stderr, /the TypeScript build failed/);
});

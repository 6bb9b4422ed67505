import test from 'ava';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import * as prettier from 'prettier';

// The code is formatted by prettier (.prettierrc.json, 120 columns): `npm run format` writes it.
const sources = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', ...codeGlobs()], {
  encoding: 'utf8',
})
  .split('\n')
  .filter((file) => file && fs.existsSync(file));

/** The code: TypeScript and JavaScript under bin, server, cli, test and bench, and the configuration files at the top. */
function codeGlobs(): string[] {
  const extensions = ['ts', 'mts', 'mjs', 'js'];
  return [
    ...['bin', 'server', 'cli', 'test', 'bench'].flatMap((dir) => extensions.map((ext) => `:(glob)${dir}/**/*.${ext}`)),
    ':(glob)*.js',
    ':(glob)*.mjs',
  ];
}

test('every source file is formatted as prettier writes it', async (t) => {
  t.true(sources.length > 100, 'the source files were found');
  const options = await prettier.resolveConfig('.prettierrc.json');
  const unformatted: string[] = [];
  for (const file of sources) {
    if ((await prettier.getFileInfo(file, { ignorePath: '.prettierignore' })).ignored) continue;
    if (!(await prettier.check(fs.readFileSync(file, 'utf8'), { ...options, filepath: file }))) unformatted.push(file);
  }
  t.deepEqual(unformatted, [], 'run `npm run format`');
});

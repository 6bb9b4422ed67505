import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { projectPath } from '../../server/platform/paths.ts';
import { UsageError } from '../output.ts';

const bundledDir = projectPath('fixtures', 'scenarios');

/** A file, every .yaml/.yml file of a directory, or a bare name from fixtures/scenarios. */
export async function scenarioFiles(input: string, bundled = bundledDir): Promise<string[]> {
  const found = await stat(input).catch(() => undefined);
  if (found?.isDirectory()) {
    const names = (await readdir(input)).filter((n) => /\.ya?ml$/.test(n)).sort();
    if (names.length === 0) throw new UsageError(`no .yaml scenario files in ${input}`);
    return names.map((n) => path.join(input, n));
  }
  if (found) return [input];
  if (/^[\w-]+$/.test(input)) {
    const file = path.join(bundled, `${input}.yaml`);
    if (await stat(file).catch(() => undefined)) return [path.relative(process.cwd(), file)];
  }
  throw new UsageError(`no scenario file or bundled scenario named "${input}"`);
}

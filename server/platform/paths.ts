import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project's top folder (the one holding package.json), found the same way from the TypeScript
 * sources and from the compiled build in `dist/`. Files that are not code (openapi/, proto/,
 * fixtures/, seeds/, pacts/) are always read from here, never relative to a module.
 */
export const projectRoot: string = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('cannot find the project folder (no package.json above the code)');
    dir = parent;
  }
  return dir;
})();

/** A path inside the project folder: `projectPath('openapi', 'cap.yaml')`. */
export function projectPath(...parts: string[]): string {
  return path.join(projectRoot, ...parts);
}

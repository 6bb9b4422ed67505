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

/**
 * True when this code runs from the compiled build in dist/ (bin/build.mjs), false from the sources.
 * In the build the server's modules are bundled into dist/server/services.js, so no module may find
 * files next to itself by its own URL: code files (migrations) are found with serverCodePath.
 */
export const compiledBuild: boolean = import.meta.url.endsWith('.js');

/** A path among the server's code files that are loaded by path: `server/...`, or `dist/server/...` in the build. */
export function serverCodePath(...parts: string[]): string {
  return compiledBuild ? projectPath('dist', 'server', ...parts) : projectPath('server', ...parts);
}

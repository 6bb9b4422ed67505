import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/** One relative import of a source file: both paths relative to the project root, with `/`. */
export interface ImportEdge {
  from: string;
  to: string;
}

// Static imports and re-exports (`import x from '...'`, `import '...'`, `export { x } from '...'`) and
// dynamic `import('...')`. Type-only imports count too: they tie the files together as much.
const importPattern =
  /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The relative imports of one file's text, resolved against its path. */
export function importsOf(file: string, text: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const match of text.matchAll(importPattern)) {
    const specifier = match[1] ?? match[2]!;
    if (!specifier.startsWith('.')) continue;
    edges.push({ from: file, to: path.posix.join(path.posix.dirname(file), specifier) });
  }
  return edges;
}

/** Every relative import of the `.ts` files under `folders` of `root` (node_modules aside). */
export async function importGraph(root: string, folders: string[]): Promise<ImportEdge[]> {
  const edges: ImportEdge[] = [];
  for (const folder of folders) {
    const entries = await readdir(path.join(root, folder), { recursive: true, withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.parentPath.includes('node_modules')) continue;
      const file = path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/');
      edges.push(...importsOf(file, await readFile(path.join(root, file), 'utf8')));
    }
  }
  return edges;
}

/** The services: each a folder of `server/` that no other service and not the kernel imports. */
export const services = ['cap', 'orchestrator', 'lms'] as const;

/** What the CLI may import of each service: its operator face. */
export const operatorFaces = [
  'server/cap/operator/index.ts',
  'server/orchestrator/operator.ts',
  'server/lms/operator.ts',
];

function serviceOf(file: string): string | undefined {
  const [top, name] = file.split('/');
  return top === 'server' && (services as readonly string[]).includes(name!) ? name : undefined;
}

/**
 * The module a file of a service belongs to: `server/<service>/<module>/...` where the module's
 * folder has an `index.ts` (its face). `modules` lists those folders (`server/cap/people`, ...).
 */
function moduleOf(file: string, modules: string[]): string | undefined {
  return modules.find((folder) => file.startsWith(folder + '/'));
}

/**
 * The import rules of CONTRIBUTING.md ("Where code goes"), each broken import with the rule it
 * breaks:
 * - a service imports no other service;
 * - the kernel (`server/platform`) and the contracts (`server/contracts`) import no service;
 * - a file outside a module imports that module only through its face (`<module>/index.ts`);
 * - the CLI imports a service only through its operator face.
 */
export function brokenRules(edges: ImportEdge[], modules: string[]): string[] {
  const broken: string[] = [];
  for (const { from, to } of edges) {
    const target = serviceOf(to);
    if (!target) continue;
    const source = serviceOf(from);
    const arrow = `${from} -> ${to}`;
    if (source && source !== target) broken.push(`a service imports another service: ${arrow}`);
    else if (from.startsWith('server/platform/') || from.startsWith('server/contracts/'))
      broken.push(`the kernel imports a service: ${arrow}`);
    else if (from.startsWith('cli/') && !operatorFaces.includes(to))
      broken.push(`the CLI imports a service outside its operator face: ${arrow}`);
    else if (source) {
      const owner = moduleOf(to, modules);
      if (owner && moduleOf(from, modules) !== owner && to !== `${owner}/index.ts`)
        broken.push(`a module's inner file imported from outside it: ${arrow}`);
    }
  }
  return broken;
}

/**
 * The module folders of the services under `root`: every `server/<service>/<folder>` with an `index.ts`
 * but `operator`.
 */
export async function moduleFolders(root: string): Promise<string[]> {
  const folders: string[] = [];
  for (const service of services) {
    const entries = await readdir(path.join(root, 'server', service), { withFileTypes: true });
    for (const entry of entries) {
      // The operator folder is no module: its face is the CLI's, checked by the CLI's rule.
      if (!entry.isDirectory() || entry.name === 'operator') continue;
      const folder = `server/${service}/${entry.name}`;
      const files: string[] = await readdir(path.join(root, folder)).catch(() => []);
      if (files.includes('index.ts')) folders.push(folder);
    }
  }
  return folders;
}

/**
 * The import cycles among the files under `folder` (e.g. `cli/commands`), each as one loop of arrows
 * from its first file in name order back to it (`a.ts -> b.ts -> a.ts`); dynamic and type-only imports
 * count. One loop is named per group of files that reach each other.
 */
export function importCycles(edges: ImportEdge[], folder: string): string[] {
  const inside = (file: string) => file.startsWith(folder + '/');
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) if (inside(from) && inside(to)) next.set(from, [...(next.get(from) ?? []), to]);
  const reach = (start: string): Map<string, string> => {
    // Breadth first from `start`, each file with the file it was reached from.
    const cameFrom = new Map<string, string>();
    const queue = [start];
    while (queue.length) {
      const file = queue.shift()!;
      for (const to of next.get(file) ?? []) if (!cameFrom.has(to)) (cameFrom.set(to, file), queue.push(to));
    }
    return cameFrom;
  };
  const cycles: string[] = [];
  const named = new Set<string>();
  for (const start of [...next.keys()].sort()) {
    if (named.has(start)) continue;
    const cameFrom = reach(start);
    if (!cameFrom.has(start)) continue;
    const loop = [start];
    for (let file = cameFrom.get(start)!; file !== start; file = cameFrom.get(file)!) loop.unshift(file);
    loop.unshift(start);
    // Every file of the group (reached from start and reaching it) is named by this loop.
    for (const file of cameFrom.keys()) if (reach(file).has(start)) named.add(file);
    cycles.push(loop.join(' -> '));
  }
  return cycles;
}

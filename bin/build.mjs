// The compiled build: server/ and cli/ compiled by tsc (tsconfig.build.json) to dist/,
// the server's own modules bundled into dist/server/services.js, capctl's into dist/capctl/ (what
// bin/capctl runs), and each service's OpenAPI document loaded once into dist/openapi/<service>.json.
// `node bin/build.mjs` builds when the build is missing or older than a source; `--force` always.
// bin/capctl and `npm test` call ensureBuild() so a stale build is never run. Plain JavaScript on
// purpose: it must run before anything is compiled.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const stamp = path.join(dist, '.built');
const lock = path.join(root, '.build-lock');
const sources = ['server', 'cli', 'openapi', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

/** The newest modification time among the compiled sources (and the settings that shape the build). */
function newestSource() {
  let newest = 0;
  const visit = (file) => {
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (!stat) return;
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(file)) visit(path.join(file, name));
    } else if (/\.(ts|json|yaml)$/.test(file)) {
      newest = Math.max(newest, stat.mtimeMs);
    }
  };
  for (const source of sources) visit(path.join(root, source));
  return newest;
}

/** True when dist/ holds a build at least as new as every source. */
export function buildIsFresh() {
  const built = fs.statSync(stamp, { throwIfNoEntry: false });
  return built !== undefined && built.mtimeMs >= newestSource();
}

/**
 * Builds unless the build is fresh. Concurrent callers (parallel test processes, two shells) take
 * turns through a lock directory; whoever waited finds the build fresh and goes on.
 */
export function ensureBuild({ force = false, quiet = false } = {}) {
  if (!force && buildIsFresh()) return;
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 180_000)
        fs.rmSync(lock, { recursive: true, force: true }); // left by a killed build
      else if (Date.now() > deadline) throw new Error('another build has held the build lock for 3 minutes');
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    if (!force && buildIsFresh()) return;
    if (!quiet)
      process.stderr.write(
        'capctl: compiling the TypeScript sources to dist/ (the build is missing or older than the sources)\n',
      );
    const startedAt = Date.now();
    const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    if (!fs.existsSync(tsc)) {
      throw new Error(
        'cannot build: TypeScript is not installed (run `npm install`), or set CAPCTL_FROM_SOURCE=1 to run the sources',
      );
    }
    const result = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], {
      stdio: 'inherit',
    });
    if (result.status !== 0) throw new Error('the TypeScript build failed (see above)');
    bundleServices();
    const cli = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', `await (await import(${JSON.stringify(import.meta.url)})).bundleCli();`],
      { stdio: 'inherit' },
    );
    if (cli.status !== 0) throw new Error('bundling the CLI failed (see above)');
    const openapiModule = path.join(dist, 'server', 'platform', 'http', 'openapi.js');
    if (fs.existsSync(openapiModule)) {
      const documents = spawnSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `
        const { writeCompiledDocuments } = await import(${JSON.stringify(pathToFileURL(openapiModule).href)});
        const { serviceNames } = await import(${JSON.stringify(pathToFileURL(path.join(dist, 'server', 'platform', 'config.js')).href)});
        await writeCompiledDocuments(serviceNames);`,
        ],
        { stdio: 'inherit' },
      );
      if (documents.status !== 0) throw new Error('loading the OpenAPI documents into the build failed (see above)');
    }
    fs.writeFileSync(stamp, `${new Date(startedAt).toISOString()}\n`);
    // Stamped with the time the build started, so a source saved during the build counts as newer.
    fs.utimesSync(stamp, startedAt / 1000, startedAt / 1000);
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * Node 20 spends one to two milliseconds resolving and loading each ES module, and a start loads about
 * 230 of ours: bundled into one file, importing the server took 0.39 s instead of 0.49 s on the
 * development machine (more on a slower one). The bundle is made from the TypeScript sources (as tsx
 * runs them) and replaces tsc's dist/server/services.js, the module a start imports; packages stay
 * outside it, loaded from node_modules as usual (so those imported lazily stay lazy), and so do the
 * other compiled files (migrations, loaded by path; the CLI is bundled on its own, bundleCli).
 */
function bundleServices() {
  const entry = path.join(root, 'server', 'services.ts');
  if (!fs.existsSync(entry)) return; // a tree without the server: the build machinery's own tests
  fs.rmSync(path.join(dist, 'server', 'chunks'), { recursive: true, force: true });
  createRequire(import.meta.url)('esbuild').buildSync({
    entryPoints: [entry],
    outdir: path.join(dist, 'server'),
    chunkNames: 'chunks/[name]-[hash]',
    // A module of ours imported lazily keeps its own chunk, and with it the packages it imports.
    splitting: true,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    logLevel: 'warning',
  });
}

/**
 * capctl's own modules bundled the same way, into dist/capctl/main.js (tsc's files of cli/ in dist/cli
 * are not run: a command's start loaded about 40 of them), with a chunk for each module imported
 * lazily (a command's action, the HTTP client), so that a command still loads only what it runs. The
 * server's modules stay tsc's files in dist/server (the services bundle among them), imported from the
 * bundle by path: a process running both (serve, demo) has one copy of each, as before. Async for its
 * plugin, so the build runs it in a process of its own.
 */
export async function bundleCli() {
  const entry = path.join(root, 'cli', 'main.ts');
  if (!fs.existsSync(entry)) return;
  const outdir = path.join(dist, 'capctl');
  const server = path.join(root, 'server') + path.sep;
  const { outputFiles } = await createRequire(import.meta.url)('esbuild').build({
    entryPoints: [entry],
    outdir,
    // Every output file in dist/capctl itself, so that a server module is `../server/...` from each.
    chunkNames: '[name]-[hash]',
    splitting: true,
    bundle: true,
    plugins: [
      {
        name: 'server-modules-and-packages-stay',
        setup(build) {
          // Packages load from node_modules, but the command-line parser and the HTTP client (undici,
          // about 110 files) are bundled: loaded from one file, they cost about half as much CPU.
          build.onResolve({ filter: /^[^./]/ }, (args) => {
            if (!/^(undici|commander)(\/|$)/.test(args.path)) return { path: args.path, external: true };
            // Bundled, a CommonJS package imported with import() has no named exports (only `default`).
            if (args.kind === 'dynamic-import')
              return {
                errors: [{ text: `import ${args.path} statically, from a module that is itself imported lazily` }],
              };
            return undefined;
          });
          build.onResolve({ filter: /^\.\.?\// }, (args) => {
            const file = path.resolve(args.resolveDir, args.path);
            if (!file.startsWith(server)) return undefined;
            const compiled = path.relative(root, file.replace(/\.ts$/, '.js'));
            return { path: `../${compiled.split(path.sep).join('/')}`, external: true };
          });
        },
      },
    ],
    platform: 'node',
    format: 'esm',
    // undici is CommonJS: its require() of Node's modules needs a require in an ES module.
    banner: {
      js: "import { createRequire as createRequireForBundle } from 'node:module';\nconst require = createRequireForBundle(import.meta.url);",
    },
    target: 'node20',
    sourcemap: true,
    logLevel: 'warning',
    write: false,
  });
  // A capctl started meanwhile must find every chunk its main.js names: the chunks (named by their
  // content) are written first, main.js last and whole (renamed into place), then older chunks go.
  fs.mkdirSync(outdir, { recursive: true });
  const main = path.join(outdir, 'main.js');
  for (const file of outputFiles) if (file.path !== main) fs.writeFileSync(file.path, file.contents);
  fs.writeFileSync(`${main}.next`, outputFiles.find((file) => file.path === main).contents);
  fs.renameSync(`${main}.next`, main);
  const written = new Set(outputFiles.map((file) => file.path));
  for (const name of fs.readdirSync(outdir))
    if (!written.has(path.join(outdir, name))) fs.rmSync(path.join(outdir, name));
}

/**
 * `npm test`'s compiled copy of server/, cli/, test/ (and bin/'s TypeScript) in `outDir`, one JavaScript file per source
 * with the folders kept (so `../../server/main.ts` is still `../../server/main.js`) and a source map
 * next to it. A test process then loads plain JavaScript instead of sending every module through
 * tsx's loader hooks: see the README's Tests section for what that saves. test/fixtures is linked,
 * not compiled (tests run its TypeScript files through tsx in processes of their own).
 */
export async function compileTests(outDir) {
  const entryPoints = [];
  const visit = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (file !== path.join(root, 'test', 'fixtures')) visit(file);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) entryPoints.push(file);
    }
  };
  for (const folder of ['server', 'cli', 'test', 'bin']) visit(path.join(root, folder));
  fs.rmSync(outDir, { recursive: true, force: true });
  await createRequire(import.meta.url)('esbuild').build({
    entryPoints,
    outbase: root,
    outdir: outDir,
    // Bundling only so that the plugin sees every import: each one stays an import, of the compiled file.
    bundle: true,
    packages: 'external',
    plugins: [
      {
        name: 'relative-imports-stay',
        setup(build) {
          build.onResolve({ filter: /^\.\.?\// }, (args) => {
            if (args.path.endsWith('.ts')) return { path: args.path.replace(/\.ts$/, '.js'), external: true };
            // Anything else (bin/build.mjs) is not copied: the import names the original file.
            const from = path.join(outDir, path.relative(root, args.resolveDir));
            return { path: path.relative(from, path.resolve(args.resolveDir, args.path)), external: true };
          });
        },
      },
    ],
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    logLevel: 'warning',
  });
  fs.symlinkSync(path.join(root, 'test', 'fixtures'), path.join(outDir, 'test', 'fixtures'));
}

if (process.argv[1] && fs.realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    ensureBuild({ force: process.argv.includes('--force'), quiet: true });
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
}

// ava runs one process per test file (each file gets its own database). `npm test` (test/run.ts)
// compiles the TypeScript to JavaScript once for the run and names the folder in TEST_BUILD_DIR: the
// test processes load plain JavaScript, with source maps so a failure points at the TypeScript line.
// CAPCTL_FROM_SOURCE=1 (no build) runs the sources through tsx instead.
const build = process.env.TEST_BUILD_DIR;
export default {
  files: build ? [`${build}/test/**/*.test.js`] : ['test/**/*.test.ts'],
  extensions: build ? ['js'] : { ts: 'module' },
  nodeArguments: build ? ['--enable-source-maps'] : ['--import=tsx'],
  workerThreads: false,
  timeout: '2m',
  concurrency: 2,
};

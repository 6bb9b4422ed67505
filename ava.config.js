// ava runs our TypeScript through tsx, one process per test file (each file gets its own database).
export default {
  files: ['test/**/*.test.ts'],
  extensions: { ts: 'module' },
  nodeArguments: ['--import=tsx'],
  workerThreads: false,
  timeout: '2m',
  concurrency: 2,
};

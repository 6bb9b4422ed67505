// ava runs our TypeScript through tsx, one process per test file (each file gets its own database).

// The files that take longest (measured: the slowest test of each file in a whole run, and each
// file's CPU seconds alone), started first so that the run does not end on one of them while the
// other process slot has nothing left to do. The rest follow in path order.
const longestFirst = [
  'test/platform/database-outage.test.ts',
  'test/capctl/scenarios-bundled.test.ts',
  'test/pact/verify.test.ts',
  'test/pact/stock-verifier.test.ts',
  'test/capctl/seed-export.test.ts',
  'test/capctl/serve.test.ts',
  'test/pact/stock-verifier-after-scenarios.test.ts',
  'test/pact/provider-states.test.ts',
  'test/capctl/certify.test.ts',
  'test/cap/withdrawals-delivery.test.ts',
  'test/cap/payments-delivery.test.ts',
  'test/capctl/lazy.test.ts',
  'test/pact/capctl-pact.test.ts',
  'test/capctl/lifetime.test.ts',
  'test/formatting.test.ts',
  'test/capctl/centre.test.ts',
  'test/cap/interviews.test.ts',
  'test/platform/events.test.ts',
  'test/security/events-after-kill.test.ts',
  'test/capctl/seed-plan.test.ts',
  'test/capctl/pay.test.ts',
  'test/ol/payments-delivery.test.ts',
];
const rank = (file) => {
  const i = longestFirst.findIndex((name) => file.endsWith(name));
  return i === -1 ? longestFirst.length : i;
};

export default {
  files: ['test/**/*.test.ts'],
  extensions: { ts: 'module' },
  nodeArguments: ['--import=tsx'],
  workerThreads: false,
  timeout: '2m',
  concurrency: 2,
  sortTestFiles: (a, b) => rank(a) - rank(b) || a.localeCompare(b),
};

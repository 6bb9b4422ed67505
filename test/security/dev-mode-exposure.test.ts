import test from 'ava';
import { runCapctl, startServe } from '../helpers/cli.ts';
import { testDatabase, type TestDatabase } from '../helpers/postgres.ts';

// Attack: development mode reached from another machine. Without NODE_ENV=production, anyone who
// reached the port could create a platform admin through the provider states, read every code and
// password in the dev mailbox, and use the service key `dev-service-key`. Refused: development mode
// listens on loopback only unless a flag that says what it opens allows more, and says so at start.
const freePorts = [
  '--port',
  '0',
  '--ol-port',
  '0',
  '--cap-port',
  '0',
  '--lms-port',
  '0',
  '--grpc-port',
  '0',
  '--lms-grpc-port',
  '0',
];
let database: TestDatabase;
let databaseUrl: string;
test.before(async () => {
  database = await testDatabase();
  databaseUrl = database.url;
});
test.after.always(() => database?.drop());

test('serve in development mode on a non-loopback address is refused with one line naming the flag, exit 2', async (t) => {
  const res = await runCapctl(['serve', '--host', '0.0.0.0', ...freePorts], { DATABASE_URL: databaseUrl });
  t.is(res.code, 2);
  t.regex(
    res.stderr,
    /invalid setting host: development mode .* loopback only, not on 0\.0\.0\.0: .*--dev-mode-on-network/,
  );
});

test('with --dev-mode-on-network it starts, and development mode says once what it opens', async (t) => {
  const serve = await startServe(['--host', '0.0.0.0', '--dev-mode-on-network', '--no-service-ports', ...freePorts], {
    DATABASE_URL: databaseUrl,
  });
  t.teardown(() => serve.stop());
  const warnings = serve
    .stderr()
    .split('\n')
    .filter((line) => line.includes('development mode: the dev mailbox'));
  t.is(warnings.length, 1);
  t.regex(warnings[0]!, /open to anyone who reaches 0\.0\.0\.0/);
});

test('a loopback address needs no flag', async (t) => {
  const serve = await startServe(['--host', '127.0.0.1', '--no-service-ports', ...freePorts], {
    DATABASE_URL: databaseUrl,
  });
  t.teardown(() => serve.stop());
  t.regex(serve.stderr(), /development mode: the dev mailbox/);
});

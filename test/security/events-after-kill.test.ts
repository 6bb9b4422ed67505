import test from 'ava';
import net from 'node:net';
import { startServe } from '../helpers/cli.ts';
import { call, sql } from '../helpers/platform.ts';
import { testPassword, uniqueEmail } from '../helpers/users.ts';
import { testDatabase } from '../helpers/postgres.ts';

// Attack on availability (an operator's kill -9, a crash): event deliveries in flight when the process
// dies used to wait for the job queue's default expiry (15 minutes), so verification mails arrived
// with their codes long expired. Now every acknowledged registration gets its mail within 30 s of the
// restart, exactly once.
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

test('after kill -9 during a burst of registrations, every registration gets its verification mail within 30 s of the restart, exactly once', async (t) => {
  const { url: databaseUrl, drop } = await testDatabase();
  t.teardown(drop);
  // A mail server that accepts connections and never answers: deliveries hang, in flight, until the kill.
  const stalled: net.Socket[] = [];
  const smtp = net.createServer((socket) => void stalled.push(socket));
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const socket of stalled) socket.destroy();
    smtp.close();
  });

  const first = await startServe(freePorts, {
    DATABASE_URL: databaseUrl,
    MAIL_URL: `smtp://127.0.0.1:${(smtp.address() as net.AddressInfo).port}`,
  });
  const emails = Array.from({ length: 12 }, () => uniqueEmail('burst'));
  const registered = await Promise.all(
    emails.map((email) =>
      call('POST', `${first.urls.gateway}/v1/ol/auth/register`, {
        json: { email, password: testPassword, intents: ['cap'] },
      }),
    ),
  );
  t.true(
    registered.every((r) => r.status === 201),
    'every registration is acknowledged',
  );
  // Wait until deliveries are in flight (stuck on the mail server), then kill the process outright.
  for (let i = 0; i < 200; i++) {
    const [row] = await sql<{ active: string }>(
      { databaseUrl },
      `SELECT count(*) AS active FROM pgboss.job WHERE state = 'active'`,
    );
    if (Number(row!.active) > 0) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const [inFlight] = await sql<{ active: string }>(
    { databaseUrl },
    `SELECT count(*) AS active FROM pgboss.job WHERE state = 'active'`,
  );
  t.true(Number(inFlight!.active) > 0, 'deliveries were in flight at the kill');
  await first.stop('SIGKILL');

  // Restarted with the development mailbox as the mail transport.
  const second = await startServe(freePorts, { DATABASE_URL: databaseUrl });
  t.teardown(() => second.stop());
  const restartedAt = Date.now();
  const mailsTo = async (email: string) =>
    (await call('GET', `${second.urls.gateway}/v1/ol/dev/mailbox?to=${encodeURIComponent(email)}`)).body
      .data as unknown[];
  const pending = new Set(emails);
  while (pending.size > 0 && Date.now() - restartedAt < 30_000) {
    for (const email of [...pending]) if ((await mailsTo(email)).length > 0) pending.delete(email);
    if (pending.size > 0) await new Promise((r) => setTimeout(r, 250));
  }
  t.log(`every mail arrived ${Date.now() - restartedAt} ms after the restart`);
  t.deepEqual([...pending], [], 'every verification mail arrived within 30 s of the restart');
  await new Promise((r) => setTimeout(r, 3000)); // a second delivery would show by now
  for (const email of emails) t.is((await mailsTo(email)).length, 1, `exactly one mail to ${email}`);
});

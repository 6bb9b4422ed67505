import test from 'ava';
import net from 'node:net';
import { asCentre, approvedCentreOwner, activeStaff, cap } from '../helpers/cap.ts';
import {
  completedEvents,
  feeRequest,
  initiatePayment,
  payCheckout,
  paymentRow,
  postWebhook,
  sandboxWebhooks,
} from '../helpers/payments.ts';
import { call, eventually, startReplica, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp } from '../helpers/users.ts';

// Two replicas of the platform on one database, as a team's shared QA platform or a staging deployment
// runs them behind a load balancer (README "Deployment"): what one replica does, the other sees at
// once; what must happen once happens once; what is counted is counted together. Both trust the
// loopback proxy (the test), so X-Forwarded-For names the client. Database outages with replicas:
// test/platform/database-outage.test.ts.

let a: TestPlatform;
let b: TestPlatform;

/** A free TCP port on loopback, so that replica A can be told where B's webhook will listen before B starts. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

test.before(async () => {
  const bPort = await freePort();
  // Every replica's provider webhook goes through the "balancer" to B: a payment started on A completes on B.
  const webhook = `http://127.0.0.1:${bPort}/v1/ol/payments/webhook`;
  a = await startTestPlatform({ trustProxy: 'loopback', paymentWebhookUrl: webhook });
  b = await startReplica(a, { trustProxy: 'loopback', paymentWebhookUrl: webhook, port: bPort });
});
test.after.always(async () => {
  await b?.stop();
  await a?.stop();
});

test('a staff member deactivated on one replica is refused on the other at the very next request', async (t) => {
  const owner = await signUp(a);
  const centreId = await approvedCentreOwner(a, owner);
  const { member, staffId } = await activeStaff(a, owner, centreId);
  // B has served the member (and keeps what it knows of them between requests).
  t.is((await cap(b, member, 'GET', '/centre/staff', { headers: asCentre(centreId) })).status, 200);

  const off = await cap(a, owner, 'PATCH', '/centre/staff', {
    headers: asCentre(centreId),
    json: { ids: [staffId], status: 'inactive' },
  });
  t.is(off.status, 200, off.text);
  const next = await cap(b, member, 'GET', '/centre/staff', { headers: asCentre(centreId) });
  t.is(next.status, 403, 'refused on B at the next request');
  t.deepEqual((await cap(b, member, 'GET', '/me')).body.data.centres, []);
});

test('a payment started on one replica completes through a webhook on the other, exactly once, replays to either included', async (t) => {
  const payer = await signUp(a);
  const { payment_id, reference } = await initiatePayment(a, feeRequest(payer.userId));
  t.is((await payCheckout(a, reference)).status, 200);
  await eventually(
    'the webhook is delivered to B',
    async () => (await sandboxWebhooks(a, reference))[0]?.status === 'delivered',
    30_000,
  );
  const [delivery] = await sandboxWebhooks(a, reference);
  t.is(delivery!.last_status_code, 200);
  t.is((await paymentRow(a, payment_id)).status, 'succeeded');

  // The provider sends it again, to each replica, at once.
  const replays = await Promise.all([a, b, a, b].map((replica) => postWebhook(replica, delivery!.body)));
  t.deepEqual(
    replays.map((r) => r.status),
    [200, 200, 200, 200],
  );
  t.is((await completedEvents(a, payment_id)).length, 1, 'one payment.completed');
  // Both replicas answer the same payment to its payer.
  for (const replica of [a, b]) {
    const seen = await call('GET', replica.url(`/v1/ol/payments/verify/${encodeURIComponent(reference)}`), {
      token: payer.accessToken,
    });
    t.is(seen.body.data.status, 'succeeded');
  }
});

function login(on: TestPlatform, email: string, password: string, client: string) {
  return call('POST', on.url('/v1/ol/auth/login'), {
    json: { email, password },
    headers: { 'x-forwarded-for': client },
  });
}

test('the sign-in limit is one count over both replicas, and proxied clients are counted apart', async (t) => {
  const user = await signUp(a);
  // Five wrong passwords from one client, alternating replicas: the account's limit is reached on both.
  for (let i = 0; i < 5; i++)
    t.is((await login(i % 2 ? b : a, user.email, `Wrong-pass-${i}`, '198.51.100.10')).status, 401);
  for (const replica of [a, b]) t.is((await login(replica, user.email, user.password, '198.51.100.10')).status, 429);

  // One client guessing across 30 accounts it never signed in to, over both replicas: that client is
  // held on both, another client behind the same proxy is not.
  const strangers = await Promise.all(Array.from({ length: 31 }, () => signUp(a)));
  for (const [i, stranger] of strangers.slice(0, 30).entries()) {
    t.is((await login(i % 2 ? b : a, stranger.email, 'Wrong-pass-x', '198.51.100.20')).status, 401);
  }
  const last = strangers[30]!;
  for (const replica of [a, b]) {
    const held = await login(replica, last.email, last.password, '198.51.100.20');
    t.is(held.status, 429);
    t.is(held.body.error.code, 'auth.too_many_attempts');
  }
  for (const replica of [a, b])
    t.is((await login(replica, last.email, last.password, '198.51.100.21')).status, 200, 'another client signs in');
});

import test from 'ava';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { startPlatform, type RunningPlatform } from '../../server/main.ts';
import { anyFreePorts, resolveConfig } from '../../server/platform/config.ts';
import { eventually, sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { completedEvents, feeRequest, initiatePayment, payCheckout, sandboxWebhooks } from '../helpers/payments.ts';
import { signUp } from '../helpers/users.ts';
import { testDatabase } from '../helpers/postgres.ts';

// How the sandbox's webhooks reach the Orchestrator: retried until acknowledged, after a restart
// too, and settled exactly once however often and however concurrently they arrive.

interface Received {
  reference: string;
  body: string;
  signature: string;
}

/**
 * Stands between the sandbox and the Orchestrator's webhook (PAYMENT_WEBHOOK_URL points here). It
 * records what arrives and, per reference, fails the first deliveries, or forwards each delivery
 * several times at once (what a provider's duplicate deliveries look like); it answers with the first
 * forwarded answer.
 */
class WebhookRelay {
  readonly received: Received[] = [];
  readonly forwardedStatuses: number[] = [];
  failFirst = new Map<string, number>();
  copies = 1;
  target = '';
  private server = http.createServer((req, res) => void this.handle(req, res));

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/webhook`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const reference = JSON.parse(body).data.reference as string;
    this.received.push({ reference, body, signature: String(req.headers['x-sandbox-signature']) });
    const failures = this.failFirst.get(reference) ?? 0;
    if (failures > 0) {
      this.failFirst.set(reference, failures - 1);
      res.writeHead(503).end('not now');
      return;
    }
    const headers = {
      'content-type': 'application/json',
      'x-sandbox-signature': String(req.headers['x-sandbox-signature']),
    };
    const answers = await Promise.all(
      Array.from({ length: this.copies }, async () => {
        const answer = await request(this.target, { method: 'POST', headers, body });
        await answer.body.text();
        return answer.statusCode;
      }),
    );
    this.forwardedStatuses.push(...answers);
    res.writeHead(answers[0]!).end();
  }
}

const relay = new WebhookRelay();
let platform: TestPlatform;
test.before(async () => {
  const url = await relay.listen();
  platform = await startTestPlatform({ paymentWebhookUrl: url });
  relay.target = platform.url('/v1/ol/payments/webhook');
});
test.after.always(async () => {
  await platform?.stop();
  await relay.close();
});

test.serial(
  'a webhook that is not acknowledged is sent again, the same bytes and signature, until it is',
  async (t) => {
    const payer = await signUp(platform);
    const { payment_id, reference } = await initiatePayment(platform, feeRequest(payer.userId));
    relay.failFirst.set(reference, 2);
    await payCheckout(platform, reference);
    await eventually(
      'the webhook is delivered',
      async () => (await sandboxWebhooks(platform, reference))[0]?.status === 'delivered',
      30_000,
    );

    const [webhook] = await sandboxWebhooks(platform, reference);
    t.like(webhook, { attempts: 3, last_status_code: 200 });
    const attempts = relay.received.filter((r) => r.reference === reference);
    t.is(attempts.length, 3);
    t.is(
      new Set(attempts.map((a) => `${a.signature}\n${a.body}`)).size,
      1,
      'every attempt sends the same signed bytes',
    );
    t.is(attempts[0]!.body, webhook!.body);
    t.is((await sql(platform, 'SELECT status FROM ol.payments WHERE id = $1', [payment_id]))[0]?.status, 'succeeded');
    t.is((await completedEvents(platform, payment_id)).length, 1);
  },
);

test.serial(
  '100 payments whose webhooks each arrive three times at once publish exactly 100 payment.completed events',
  async (t) => {
    const count = 100;
    relay.copies = 3;
    t.teardown(() => (relay.copies = 1));
    const payer = await signUp(platform);
    const payments: Array<{ payment_id: string; reference: string }> = [];
    const initiating = Date.now();
    for (let i = 0; i < count; i += 10) {
      payments.push(
        ...(await Promise.all(Array.from({ length: 10 }, () => initiatePayment(platform, feeRequest(payer.userId))))),
      );
    }
    t.log(`${count} InitiatePayment calls, 10 at a time: ${((Date.now() - initiating) / 1000).toFixed(1)} s`);
    const references = payments.map((p) => p.reference);
    const ids = payments.map((p) => p.payment_id);
    const forwardedBefore = relay.forwardedStatuses.length;

    const started = Date.now();
    const paid = await Promise.all(references.map((reference) => payCheckout(platform, reference)));
    t.true(paid.every((res) => res.status === 200));
    await eventually(
      'every webhook is delivered',
      async () =>
        Number(
          (
            await sql<{ n: string }>(
              platform,
              `SELECT count(*) AS n FROM ol.sandbox_webhook_deliveries WHERE reference = ANY($1) AND status = 'delivered'`,
              [references],
            )
          )[0]!.n,
        ) === count,
      90_000,
    );
    const seconds = (Date.now() - started) / 1000;

    const [events] = await sql<{ total: string; payments: string }>(
      platform,
      `SELECT count(*) AS total, count(DISTINCT data->>'paymentId') AS payments FROM ol.outbox WHERE type = 'payment.completed' AND data->>'paymentId' = ANY($1)`,
      [ids],
    );
    const statuses = await sql<{ status: string; n: string }>(
      platform,
      'SELECT status, count(*) AS n FROM ol.payments WHERE id = ANY($1) GROUP BY status',
      [ids],
    );
    const effects = await sql<{ effect: string; n: string }>(
      platform,
      'SELECT effect, count(*) AS n FROM ol.payment_webhook_events WHERE reference = ANY($1) GROUP BY effect',
      [references],
    );
    const succeededMoves = await sql<{ n: string }>(
      platform,
      `SELECT count(*) AS n FROM ol.payment_status_changes WHERE payment_id = ANY($1) AND to_status = 'succeeded'`,
      [ids],
    );
    const forwarded = relay.forwardedStatuses.slice(forwardedBefore);

    t.log(
      `${count} payments, ${forwarded.length} webhook deliveries to the Orchestrator (${forwarded.filter((s) => s === 200).length} answered 200), ` +
        `${events!.total} payment.completed events for ${events!.payments} payments, ${succeededMoves[0]!.n} succeeded transitions, ` +
        `webhook effects ${JSON.stringify(Object.fromEntries(effects.map((e) => [e.effect, Number(e.n)])))}, ${seconds.toFixed(1)} s from the first pay to the last delivery`,
    );
    t.is(forwarded.length, count * 3);
    t.true(forwarded.every((status) => status === 200));
    t.is(Number(events!.total), count);
    t.is(Number(events!.payments), count);
    t.deepEqual(
      statuses.map((s) => ({ status: s.status, n: Number(s.n) })),
      [{ status: 'succeeded', n: count }],
    );
    t.deepEqual(
      effects.map((e) => ({ effect: e.effect, n: Number(e.n) })),
      [{ effect: 'applied', n: count }],
    );
    t.is(Number(succeededMoves[0]!.n), count);
  },
);

test('a webhook owed when the platform stops is delivered after it starts again', async (t) => {
  const { url: databaseUrl, drop } = await testDatabase();
  const refusing = http.createServer((_req, res) => res.writeHead(503).end());
  await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
  const refusingUrl = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/webhook`;
  const settings = {
    ...anyFreePorts,
    logLevel: process.env.TEST_LOG_LEVEL ?? 'silent',
    databaseUrl,
  };
  let running: RunningPlatform | undefined;
  t.teardown(async () => {
    await running?.stop();
    refusing.close();
    await drop();
  });

  // First run: the merchant's endpoint refuses, so the webhook is still owed when the platform stops.
  const first = resolveConfig({ ...settings, paymentWebhookUrl: refusingUrl });
  running = await startPlatform(first);
  const firstRun = {
    ...running,
    config: first,
    url: (path: string) => `${running!.urls.gateway}${path}`,
  } as TestPlatform;
  const payer = await signUp(firstRun);
  const { payment_id, reference } = await initiatePayment(firstRun, feeRequest(payer.userId));
  await payCheckout(firstRun, reference);
  await eventually(
    'a first attempt was refused',
    async () => ((await sandboxWebhooks(firstRun, reference))[0]?.attempts ?? 0) >= 1,
  );
  await running.stop();
  running = undefined;
  const [owed] = await sandboxWebhooks(firstRun, reference);
  t.like(owed, { status: 'pending', last_status_code: 503 });

  // Second run on the same database, webhooks to the Orchestrator itself.
  running = await startPlatform(resolveConfig(settings));
  const secondRun = {
    ...firstRun,
    ...running,
    url: (path: string) => `${running!.urls.gateway}${path}`,
  } as TestPlatform;
  await eventually(
    'the owed webhook is delivered after the restart',
    async () => (await sandboxWebhooks(secondRun, reference))[0]?.status === 'delivered',
    30_000,
  );
  t.is((await sql(secondRun, 'SELECT status FROM ol.payments WHERE id = $1', [payment_id]))[0]?.status, 'succeeded');
  t.is((await completedEvents(secondRun, payment_id)).length, 1);
});

import test from 'ava';
import {
  applicationAtPayment,
  applicationTargets,
  asCentre,
  cap,
  centreLedger,
  onboard,
  paymentLedger,
} from '../helpers/cap.ts';
import { eventually, sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { payCheckout, postWebhook, sandboxWebhooks } from '../helpers/payments.ts';
import { signUp, type SignedUpUser } from '../helpers/users.ts';

// A refund debits the wallet once per payment, however often and however concurrently the provider's
// refund webhook arrives. The sandbox here cannot reach its webhook URL, so the test delivers each
// webhook itself: each charge once, each refund three times at once, for 100 withdrawn applications
// at two centres (as cap-payments-delivery.test.ts does for the payments).
let platform: TestPlatform;
const asCandidate = { 'X-CAP-PERSONA': 'candidate' };

test.before(async () => {
  platform = await startTestPlatform({ paymentWebhookUrl: 'http://127.0.0.1:9/unreachable' });
});
test.after.always(() => platform?.stop());

const walletOf = async (owner: SignedUpUser, centreId: string) =>
  (await cap(platform, owner, 'GET', '/centre/wallet', { headers: asCentre(centreId) })).body.data.balance;

test('100 paid applications withdrawn, each refund webhook delivered three times at once: 100 refunds, every centre wallet exact to the minor unit', async (t) => {
  const centres = await Promise.all(
    [1, 2].map((n) => applicationTargets(platform, { sector: `Refund sector ${n}`, trade: `Refund trade ${n}` })),
  );
  const candidate = await signUp(platform);
  await onboard(platform, candidate, 'candidate');
  const before = await Promise.all(centres.map((c) => walletOf(c.owner, c.centreId)));

  const paid: Array<{ applicationId: string; paymentId: string }> = [];
  for (let i = 0; i < 100; i++) {
    const application = await applicationAtPayment(platform, candidate, centres[i % 2]!);
    await payCheckout(platform, `PAY-${application.paymentId}`);
    paid.push(application);
  }
  // The charges' webhooks, once each.
  for (const { paymentId } of paid) {
    const charge = (await sandboxWebhooks(platform, `PAY-${paymentId}`))[0]!;
    t.is((await postWebhook(platform, charge.body)).status, 200);
  }
  await eventually(
    'every payment completes in CAP',
    async () =>
      (
        await sql<{ n: number }>(
          platform,
          `SELECT count(*)::int AS n FROM cap.application_payments WHERE payment_id = ANY($1) AND status = 'completed'`,
          [paid.map((p) => p.paymentId)],
        )
      )[0]!.n === 100,
    60_000,
  );
  await eventually(
    'every application is at folder arrangement',
    async () =>
      (
        await sql<{ n: number }>(
          platform,
          `SELECT count(*)::int AS n FROM cap.applications WHERE id = ANY($1) AND current_stage_key = 'folder_arrangement'`,
          [paid.map((p) => p.applicationId)],
        )
      )[0]!.n === 100,
    60_000,
  );

  const started = Date.now();
  const withdrawals = await Promise.all(
    paid.map(({ applicationId }) =>
      cap(platform, candidate, 'POST', `/applications/${applicationId}/withdraw`, { headers: asCandidate }),
    ),
  );
  t.true(
    withdrawals.every((w) => w.status === 200 && w.body.data.refund?.status === 'refunding'),
    JSON.stringify(withdrawals.find((w) => w.status !== 200)?.body),
  );
  const bodies: string[] = [];
  for (const { paymentId } of paid) {
    const refund = (await sandboxWebhooks(platform, `PAY-${paymentId}`)).find(
      (w) => JSON.parse(w.body).event === 'refund.processed',
    );
    bodies.push(refund!.body);
  }
  const answers = await Promise.all(
    bodies.flatMap((body) => [postWebhook(platform, body), postWebhook(platform, body), postWebhook(platform, body)]),
  );
  t.true(answers.every((a) => a.status === 200));
  t.is(answers.filter((a) => a.body.data?.duplicate === false).length, 100, 'each refund event applied once');

  await eventually(
    'every refund reaches CAP',
    async () =>
      (
        await sql<{ n: number }>(
          platform,
          `SELECT count(*)::int AS n FROM cap.application_payments WHERE payment_id = ANY($1) AND status = 'refunded'`,
          [paid.map((p) => p.paymentId)],
        )
      )[0]!.n === 100,
    60_000,
  );
  await new Promise((resolve) => setTimeout(resolve, 1000)); // late duplicates would land now
  t.is(
    (
      await sql<{ n: number }>(
        platform,
        `SELECT count(*)::int AS n FROM ol.outbox WHERE type = 'payment.refunded' AND data->>'paymentId' = ANY($1)`,
        [paid.map((p) => p.paymentId)],
      )
    )[0]!.n,
    100,
  );
  t.is(
    (
      await sql<{ n: number }>(
        platform,
        `SELECT count(*)::int AS n FROM ol.payments WHERE id = ANY($1) AND status = 'refunded'`,
        [paid.map((p) => p.paymentId)],
      )
    )[0]!.n,
    100,
  );
  for (const [i, c] of centres.entries()) {
    const ledger = await centreLedger(platform, c.centreId);
    t.deepEqual(ledger, [
      { kind: 'application_payment', n: 50, total: String(50 * 2500000) },
      { kind: 'platform_fee', n: 50, total: String(-50 * 250000) },
      { kind: 'platform_fee_refund', n: 50, total: String(50 * 250000) },
      { kind: 'refund', n: 50, total: String(-50 * 2500000) },
    ]);
    t.deepEqual(await walletOf(c.owner, c.centreId), before[i], `centre ${i + 1}: the wallet is exact`);
  }
  t.log(
    `100 withdrawals refunded, 300 refund webhook deliveries (all 200, 100 applied), 400 ledger lines over 2 centres; ${Date.now() - started} ms from the first withdrawal to the last debit`,
  );
});

test('a payment completed after its application was withdrawn is refunded by CAP, once: its webhook three times at once, one refund, the wallet exact', async (t) => {
  const { owner, centreId, sectorId, tradeId } = await applicationTargets(platform, {
    sector: 'Late payment sector',
    trade: 'Late payment trade',
  });
  const candidate = await signUp(platform);
  await onboard(platform, candidate, 'candidate');
  const before = await walletOf(owner, centreId);
  const { applicationId: id, paymentId } = await applicationAtPayment(platform, candidate, {
    centreId,
    sectorId,
    tradeId,
  });
  // The checkout stays open while the candidate withdraws: nothing is paid yet, so nothing is refunded.
  const withdrawn = await cap(platform, candidate, 'POST', `/applications/${id}/withdraw`, { headers: asCandidate });
  t.like(withdrawn.body.data, { status: 'withdrawn', currentStageKey: 'payment', refund: null });

  await payCheckout(platform, `PAY-${paymentId}`);
  const charge = (await sandboxWebhooks(platform, `PAY-${paymentId}`))[0]!.body;
  const charged = await Promise.all([1, 2, 3].map(() => postWebhook(platform, charge)));
  t.deepEqual(
    charged.map((a) => a.status),
    [200, 200, 200],
  );
  const refundWebhook = async () =>
    (await sandboxWebhooks(platform, `PAY-${paymentId}`)).find((w) => JSON.parse(w.body).event === 'refund.processed');
  await eventually('CAP asks for the refund', async () => Boolean(await refundWebhook()), 30_000);
  const refund = (await refundWebhook())!.body;
  const refunded = await Promise.all([1, 2, 3].map(() => postWebhook(platform, refund)));
  t.is(refunded.filter((a) => a.status === 200 && a.body.data.duplicate === false).length, 1);
  await eventually(
    'the refund reaches CAP',
    async () =>
      (
        await sql(platform, `SELECT 1 FROM cap.application_payments WHERE payment_id = $1 AND status = 'refunded'`, [
          paymentId,
        ])
      ).length === 1,
    30_000,
  );
  await new Promise((resolve) => setTimeout(resolve, 1000)); // late duplicates would land now

  const history = await sql<{ move: string }>(
    platform,
    `SELECT coalesce(from_status, 'new') || '>' || to_status AS move FROM ol.payment_status_changes WHERE payment_id = $1 ORDER BY created_at, id`,
    [paymentId],
  );
  t.deepEqual(
    history.map((h) => h.move),
    ['new>initiated', 'initiated>pending', 'pending>succeeded', 'succeeded>refunding', 'refunding>refunded'],
  );
  t.is(
    (
      await sql(platform, `SELECT 1 FROM ol.outbox WHERE type = 'payment.refunded' AND data->>'paymentId' = $1`, [
        paymentId,
      ])
    ).length,
    1,
  );
  const ledger = await paymentLedger(platform, paymentId);
  t.deepEqual(ledger, [
    { kind: 'application_payment', amount_minor: '2500000' },
    { kind: 'platform_fee', amount_minor: '-250000' },
    { kind: 'platform_fee_refund', amount_minor: '250000' },
    { kind: 'refund', amount_minor: '-2500000' },
  ]);
  t.deepEqual(await walletOf(owner, centreId), before, 'the wallet is as before the payment');
  t.like((await cap(platform, candidate, 'GET', `/applications/${id}`, { headers: asCandidate })).body.data, {
    status: 'withdrawn',
    currentStageKey: 'payment',
  });
});

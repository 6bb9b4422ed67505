import test from 'ava';
import { applicationAtPayment, applicationTargets, cap, centreLedger, onboard } from '../helpers/cap.ts';
import { eventually, sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { payCheckout, postWebhook, sandboxWebhooks } from '../helpers/payments.ts';
import { signUp } from '../helpers/users.ts';

// The wallet is credited once per payment, however often and however concurrently the provider's
// webhook arrives. The sandbox here cannot reach its webhook URL, so the test delivers each webhook
// itself, three times at once, for 100 payments.

let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform({ paymentWebhookUrl: 'http://127.0.0.1:9/unreachable' });
});
test.after.always(() => platform?.stop());

test('100 application payments whose webhooks each arrive three times at once credit each wallet exactly once', async (t) => {
  const { owner, centreId, sectorId, tradeId } = await applicationTargets(platform, {
    sector: 'Hospitality',
    trade: 'Culinary Arts',
  });
  const candidate = await signUp(platform);
  await onboard(platform, candidate, 'candidate');

  // 100 applications at the payment stage (the form and submit are tested in cap-applications.test.ts).
  const payments: Array<{ applicationId: string; paymentId: string }> = [];
  for (let i = 0; i < 100; i++) {
    payments.push(await applicationAtPayment(platform, candidate, { centreId, sectorId, tradeId }));
  }
  const started = Date.now();
  const bodies: string[] = [];
  for (const { paymentId } of payments) {
    await payCheckout(platform, `PAY-${paymentId}`);
    bodies.push((await sandboxWebhooks(platform, `PAY-${paymentId}`))[0]!.body);
  }
  const answers = await Promise.all(
    bodies.flatMap((body) => [postWebhook(platform, body), postWebhook(platform, body), postWebhook(platform, body)]),
  );
  t.true(answers.every((a) => a.status === 200));

  await eventually(
    'every application leaves the payment stage',
    async () =>
      (
        await sql<{ n: number }>(
          platform,
          `SELECT count(*)::int AS n FROM cap.applications WHERE centre_id = $1 AND current_stage_key = 'folder_arrangement'`,
          [centreId],
        )
      )[0]!.n === 100,
    60_000,
  );
  await new Promise((resolve) => setTimeout(resolve, 1000)); // late duplicates would land now
  const ledger = await centreLedger(platform, centreId);
  t.deepEqual(ledger, [
    { kind: 'application_payment', n: 100, total: String(100 * 2500000) },
    { kind: 'platform_fee', n: 100, total: String(-100 * 250000) },
  ]);
  const moves = await sql<{ n: number }>(
    platform,
    `SELECT count(*)::int AS n FROM cap.application_moves m JOIN cap.applications a ON a.id = m.application_id WHERE a.centre_id = $1 AND m.action = 'payment_completed'`,
    [centreId],
  );
  t.is(moves[0]!.n, 100);
  const wallet = (
    await cap(platform, owner, 'GET', '/centre/wallet', {
      headers: { 'X-CAP-PERSONA': 'centre', 'X-CAP-CENTRE-ID': centreId },
    })
  ).body.data.balance;
  t.deepEqual(wallet, { amountMinorUnits: String(100 * 2250000), currency: 'NGN' });
  t.log(
    `100 payments, 300 webhook deliveries (all answered 200), 100 credits and 100 fee lines, wallet NGN ${100 * 22500}; ${Date.now() - started} ms from the first pay to the last credit`,
  );
});

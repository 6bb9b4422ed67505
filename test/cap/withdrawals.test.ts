import test from 'ava';
import { applicationTargets, asCentre, cap, candidateWithApplication, onboard, paymentLedger } from '../helpers/cap.ts';
import { eventually, sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { payCheckout } from '../helpers/payments.ts';
import { signUp, type SignedUpUser } from '../helpers/users.ts';

// Withdrawing an application (openapi/cap/payments.yaml, withdrawApplication) and the refund of a paid
// one through the Orchestrator: RefundPayment, the sandbox refund and its signed webhook,
// payment.refunded, the payment lifecycle rows in OL and CAP, and the centre's wallet lines, once each.
let platform: TestPlatform;
const asCandidate = { 'X-CAP-PERSONA': 'candidate' };

test.before(async () => {
  platform = await startTestPlatform();
});
test.after.always(() => platform?.stop());

const walletOf = async (owner: SignedUpUser, centreId: string) =>
  (await cap(platform, owner, 'GET', '/centre/wallet', { headers: asCentre(centreId) })).body.data.balance;

async function paidApplication(targets: { centreId: string; sectorId: string; tradeId: string }) {
  const { user, applicationId } = await candidateWithApplication(platform, targets);
  const started = await cap(platform, user, 'POST', `/applications/${applicationId}/pay`, { headers: asCandidate });
  await payCheckout(platform, `PAY-${started.body.data.paymentId}`);
  await eventually(
    'the payment completes in CAP',
    async () =>
      (await cap(platform, user, 'GET', `/applications/${applicationId}`, { headers: asCandidate })).body.data
        .currentStageKey === 'folder_arrangement',
  );
  return { user, applicationId, paymentId: started.body.data.paymentId as string };
}

test.serial(
  'a paid application withdrawn before its assessment starts is refunded: OL refunding -> refunded, payment.refunded once, the wallet as before the payment',
  async (t) => {
    const { owner, centreId, sectorId, tradeId } = await applicationTargets(platform, {
      sector: 'Agriculture',
      trade: 'Poultry',
    });
    const targets = { centreId, sectorId, tradeId };
    const before = await walletOf(owner, centreId);
    const { user, applicationId, paymentId } = await paidApplication(targets);
    t.not((await walletOf(owner, centreId)).amountMinorUnits, before.amountMinorUnits);

    const withdrawn = await cap(platform, user, 'POST', `/applications/${applicationId}/withdraw`, {
      headers: asCandidate,
      json: { reason: 'I moved abroad.' },
    });
    t.is(withdrawn.status, 200, withdrawn.text);
    t.deepEqual(withdrawn.body.data, {
      id: applicationId,
      status: 'withdrawn',
      currentStageKey: 'folder_arrangement',
      refund: { paymentId, status: 'refunding', amount: { amountMinorUnits: '2500000', currency: 'NGN' } },
    });
    await eventually(
      'the refund reaches CAP',
      async () =>
        (await cap(platform, user, 'GET', `/applications/${applicationId}/receipt`, { headers: asCandidate })).body.data
          .status === 'refunded',
    );

    const history = await sql<{ from_status: string | null; to_status: string; actor: string; cause: string }>(
      platform,
      'SELECT from_status, to_status, actor, cause FROM ol.payment_status_changes WHERE payment_id = $1 ORDER BY created_at, id',
      [paymentId],
    );
    t.deepEqual(
      history.map((h) => `${h.from_status}>${h.to_status}:${h.actor}:${h.cause}`),
      [
        'null>initiated:orchestrator:initiate',
        'initiated>pending:orchestrator:checkout_created',
        'pending>succeeded:provider:webhook',
        'succeeded>refunding:orchestrator:refund_requested',
        'refunding>refunded:provider:webhook',
      ],
    );
    const events = await sql<{ data: Record<string, any> }>(
      platform,
      `SELECT data FROM ol.outbox WHERE type = 'payment.refunded' AND data->>'paymentId' = $1`,
      [paymentId],
    );
    t.is(events.length, 1);
    t.like(events[0]!.data, {
      purpose: 'cap_application',
      purposeReferenceId: applicationId,
      amount: { amountMinorUnits: '2500000', currency: 'NGN' },
      beneficiaryCentreId: centreId,
    });

    const ledger = await paymentLedger(platform, paymentId);
    t.deepEqual(ledger, [
      { kind: 'application_payment', amount_minor: '2500000' },
      { kind: 'platform_fee', amount_minor: '-250000' },
      { kind: 'platform_fee_refund', amount_minor: '250000' },
      { kind: 'refund', amount_minor: '-2500000' },
    ]);
    t.deepEqual(await walletOf(owner, centreId), before, 'the wallet is as before the payment');
    t.like((await cap(platform, user, 'GET', `/applications/${applicationId}`, { headers: asCandidate })).body.data, {
      status: 'withdrawn',
    });
    const [sandbox] = await sql<{ status: string }>(
      platform,
      'SELECT status FROM ol.sandbox_transactions WHERE reference = $1',
      [`PAY-${paymentId}`],
    );
    t.is(sandbox!.status, 'refunded');
  },
);

test.serial(
  'an unpaid application is withdrawn without a refund; a finished one, or one withdrawn already, is 409; only its candidate withdraws it',
  async (t) => {
    const { owner, centreId, sectorId, tradeId } = await applicationTargets(platform, {
      sector: 'Fashion',
      trade: 'Tailoring',
    });
    const targets = { centreId, sectorId, tradeId };
    const draft = await candidateWithApplication(platform, targets, { draft: true });
    const fromDraft = await cap(platform, draft.user, 'POST', `/applications/${draft.applicationId}/withdraw`, {
      headers: asCandidate,
    });
    t.is(fromDraft.status, 200, fromDraft.text);
    t.like(fromDraft.body.data, { status: 'withdrawn', currentStageKey: 'application_form', refund: null });
    const again = await cap(platform, draft.user, 'POST', `/applications/${draft.applicationId}/withdraw`, {
      headers: asCandidate,
    });
    t.is(again.status, 409);
    t.is(again.body.error.code, 'application.not_in_stage');

    const submitted = await candidateWithApplication(platform, targets);
    const stranger = await signUp(platform);
    await onboard(platform, stranger, 'candidate');
    t.is(
      (
        await cap(platform, stranger, 'POST', `/applications/${submitted.applicationId}/withdraw`, {
          headers: asCandidate,
        })
      ).body.error.code,
      'auth.out_of_scope',
    );
    t.is(
      (
        await cap(platform, owner, 'POST', `/applications/${submitted.applicationId}/withdraw`, {
          headers: asCentre(centreId),
        })
      ).status,
      403,
      'the centre does not withdraw it',
    );
    t.like(
      (
        await cap(platform, submitted.user, 'POST', `/applications/${submitted.applicationId}/withdraw`, {
          headers: asCandidate,
        })
      ).body.data,
      { status: 'withdrawn', currentStageKey: 'payment', refund: null },
    );

    const certified = await candidateWithApplication(platform, targets);
    await sql(
      platform,
      `UPDATE cap.applications SET status = 'certified', current_stage_key = 'certification' WHERE id = $1`,
      [certified.applicationId],
    );
    t.is(
      (
        await cap(platform, certified.user, 'POST', `/applications/${certified.applicationId}/withdraw`, {
          headers: asCandidate,
        })
      ).body.error.code,
      'application.not_in_stage',
    );
  },
);

test.serial('a paid application withdrawn once its assessment started is withdrawn without a refund', async (t) => {
  const { owner, centreId, sectorId, tradeId } = await applicationTargets(platform, {
    sector: 'Automotive',
    trade: 'Panel Beating',
  });
  const { user, applicationId, paymentId } = await paidApplication({ centreId, sectorId, tradeId });
  const reviewed = await cap(platform, owner, 'POST', `/applications/${applicationId}/review`, {
    headers: asCentre(centreId),
    json: { decision: 'approve', stageKey: 'folder_arrangement' },
  });
  t.is(reviewed.status, 200, reviewed.text);
  const before = await walletOf(owner, centreId);
  const withdrawn = await cap(platform, user, 'POST', `/applications/${applicationId}/withdraw`, {
    headers: asCandidate,
  });
  t.like(withdrawn.body.data, { status: 'withdrawn', currentStageKey: 'interview', refund: null });
  t.deepEqual((await sql(platform, 'SELECT status FROM ol.payments WHERE id = $1', [paymentId]))[0], {
    status: 'succeeded',
  });
  t.deepEqual(await walletOf(owner, centreId), before);
});

test.serial(
  'a refund owed after the wallet was paid out takes the balance below zero; no withdrawal until payments cover it',
  async (t) => {
    const { owner, centreId, sectorId, tradeId } = await applicationTargets(platform, {
      sector: 'Construction',
      trade: 'Tiling',
    });
    const targets = { centreId, sectorId, tradeId };
    const { user, applicationId } = await paidApplication(targets);
    const net = (await walletOf(owner, centreId)).amountMinorUnits;
    t.is(net, '2250000');
    await sql(
      platform,
      `UPDATE cap.centres SET account_details = '{"bank":"Access Bank","accountNo":"0123456789"}' WHERE id = $1`,
      [centreId],
    );
    const payout = await cap(platform, owner, 'POST', '/centre/wallet/withdraw', {
      headers: asCentre(centreId),
      json: { amount: { amountMinorUnits: net, currency: 'NGN' } },
    });
    t.is(payout.status, 200, payout.text);
    t.is((await walletOf(owner, centreId)).amountMinorUnits, '0');

    const withdrawn = await cap(platform, user, 'POST', `/applications/${applicationId}/withdraw`, {
      headers: asCandidate,
    });
    t.like(withdrawn.body.data.refund, { status: 'refunding' });
    await eventually('the refund reaches CAP', async () => (await walletOf(owner, centreId)).amountMinorUnits !== '0');
    t.deepEqual(await walletOf(owner, centreId), { amountMinorUnits: '-2250000', currency: 'NGN' });
    const refused = await cap(platform, owner, 'POST', '/centre/wallet/withdraw', {
      headers: asCentre(centreId),
      json: { amount: { amountMinorUnits: '1', currency: 'NGN' } },
    });
    t.is(refused.status, 409);
    t.is(refused.body.error.code, 'wallet.insufficient_funds');

    await paidApplication(targets);
    t.deepEqual(
      await walletOf(owner, centreId),
      { amountMinorUnits: '0', currency: 'NGN' },
      'the next payment covers it',
    );
  },
);

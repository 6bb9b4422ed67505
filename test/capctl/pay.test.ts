import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { applicationTargets, cap, onboard } from '../helpers/cap.ts';
import { runCapctl } from '../helpers/cli.ts';
import { eventually, sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { completedEvents, feeRequest, initiatePayment, paymentRow, sandboxTransaction } from '../helpers/payments.ts';
import { signUp, testPassword, type SignedUpUser } from '../helpers/users.ts';

// `capctl pay` completes a sandbox checkout without a browser, through the checkout's own calls, and
// waits until the Orchestrator has acknowledged the signed webhook.

let platform: TestPlatform;
let payer: SignedUpUser;
test.before(async () => {
  platform = await startTestPlatform();
  payer = await signUp(platform);
});
test.after.always(() => platform?.stop());

const pay = (...args: string[]) =>
  runCapctl(['pay', ...args, '--base-url', platform.urls.gateway!], {
    CAPCTL_CONFIG_DIR: '/nonexistent-capctl-config',
  });

test('capctl pay <paymentId> pays with the approved test card and returns once the webhook is acknowledged', async (t) => {
  const { payment_id, reference } = await initiatePayment(
    platform,
    feeRequest(payer.userId, { amount_minor: '2000000' }),
  );
  const result = await pay(payment_id);
  t.is(result.code, 0, result.stderr);
  t.regex(result.stdout, /^paid ₦20,000\.00 \(CAP application fee\) with visa ending 4081: Approved$/m);
  t.regex(result.stdout, new RegExp(`reference ${reference}`));
  t.regex(result.stdout, /webhook acknowledged by the Orchestrator \(attempt 1\)/);
  t.is((await paymentRow(platform, payment_id)).status, 'succeeded');
  t.is((await completedEvents(platform, payment_id)).length, 1);

  const again = await pay(reference);
  t.is(again.code, 1);
  t.regex(again.stderr, /is already closed \(success: Approved\)/);
});

test('capctl pay --decline and --card decline; --json prints the transaction', async (t) => {
  const declined = await initiatePayment(platform, feeRequest(payer.userId));
  const result = await pay(declined.reference, '--decline', '--json');
  t.is(result.code, 0, result.stderr);
  const tx = JSON.parse(result.stdout);
  t.like(tx, {
    reference: declined.reference,
    status: 'failed',
    gatewayResponse: "Declined by the payer's bank",
    webhook: { status: 'delivered' },
  });
  await eventually(
    'the payment is failed',
    async () => (await paymentRow(platform, declined.payment_id)).status === 'failed',
  );

  const card = await initiatePayment(platform, feeRequest(payer.userId));
  const insufficient = await pay(card.checkout_url, '--card', '4000 0000 0000 9995');
  t.is(insufficient.code, 0, insufficient.stderr);
  t.regex(insufficient.stdout, /^declined ₦15,000\.00 \(CAP application fee\): Insufficient funds$/m);
  t.is((await paymentRow(platform, card.payment_id)).status, 'failed');
});

test('capctl pay refuses an unknown target, a card that is not a test card, and contradicting options', async (t) => {
  const unknown = await pay('01J9Z8X7W6V5T4S3R2Q1P0N9M8');
  t.is(unknown.code, 1);
  t.regex(unknown.stderr, /no sandbox checkout for "01J9Z8X7W6V5T4S3R2Q1P0N9M8"/);

  const { reference } = await initiatePayment(platform, feeRequest(payer.userId));
  const badCard = await pay(reference, '--card', '4242424242424242');
  t.is(badCard.code, 1);
  t.regex(badCard.stderr, /payment\.sandbox_card_invalid/);
  t.is((await sandboxTransaction(platform, reference)).body.data.status, 'pending');

  const both = await pay(reference, '--decline', '--cancel');
  t.is(both.code, 2);
  t.regex(both.stderr, /--decline and --cancel exclude each other/);
});

test('capctl application create|fill|submit|list|show|withdraw, capctl pay <applicationId> and capctl wallet: a candidate applies and pays, the centre sees the money, a withdrawal refunds it', async (t) => {
  const { owner, centreId, sectorId, tradeId } = await applicationTargets(platform, {
    sector: 'Welding',
    trade: 'Welding and Fabrication',
  });
  const candidate = await signUp(platform);
  await onboard(platform, candidate, 'candidate');

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-pay-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const as =
    (profile: string) =>
    (...args: string[]) =>
      runCapctl([...args, '--profile', profile, '--base-url', platform.urls.gateway!], { CAPCTL_CONFIG_DIR: dir });
  const [asCandidate, asOwner] = [as('candidate'), as('owner')];
  t.is((await asCandidate('login', '--email', candidate.email, '--password', testPassword)).code, 0);
  t.is((await asOwner('login', '--email', owner.email, '--password', testPassword)).code, 0);

  const created = await asCandidate(
    'application',
    'create',
    '--sector',
    sectorId,
    '--trade',
    tradeId,
    '--centre-id',
    centreId,
    '--json',
  );
  t.is(created.code, 0, created.stderr);
  const id = JSON.parse(created.stdout).id as string;
  const early = await asCandidate('application', 'submit', id);
  t.is(early.code, 1);
  t.regex(early.stderr, /application\.incomplete/);
  const form = path.join(dir, 'form.json');
  fs.writeFileSync(
    form,
    JSON.stringify({
      experienceAndTrade: {
        unitIds: [],
        currentOccupation: { occupation: 'Welder', yearsOfExperience: 7, employmentHistory: [] },
        reasonForSeekingRPL: 'Certification',
      },
      assessmentDeclaration: {
        infoProvidedIsAccurate: true,
        understandsDoesNotGuaranteeCertification: true,
        understandsThatNeedsToProvideSufficientEvidenceToDemonstrateCompetence: true,
        agreesToTermsAndPrivacyPolicy: true,
      },
    }),
  );
  t.is((await asCandidate('application', 'fill', id, '--form', form)).code, 0);
  const submitted = await asCandidate('application', 'submit', id);
  t.is(submitted.code, 0, submitted.stderr);
  t.regex(submitted.stdout, /now at payment/);

  const paid = await asCandidate('pay', id);
  t.is(paid.code, 0, paid.stderr);
  t.regex(paid.stdout, /^paid ₦25,000\.00 /m);
  await eventually(
    'the application leaves the payment stage',
    async () =>
      (await cap(platform, candidate, 'GET', `/applications/${id}`, { headers: { 'X-CAP-PERSONA': 'candidate' } })).body
        .data.currentStageKey === 'folder_arrangement',
  );
  const shown = await asCandidate('application', 'show', id);
  t.regex(shown.stdout, /payment\s+successful/);
  t.regex((await asOwner('application', 'list', '--centre', centreId)).stdout, new RegExp(id));
  const wallet = await asOwner('wallet', '--centre', centreId);
  t.is(wallet.code, 0, wallet.stderr);
  t.regex(wallet.stdout, /^balance ₦22,500\.00$/m);

  // capctl application withdraw: withdrawn before its assessment starts, so refunded in full.
  const withdrawn = await asCandidate('application', 'withdraw', id, '--reason', 'Moving abroad');
  t.is(withdrawn.code, 0, withdrawn.stderr);
  t.regex(withdrawn.stdout, new RegExp(`^withdrew ${id} at folder_arrangement: refunding ₦25,000\\.00 `, 'm'));
  await eventually('the refund empties the wallet again', async () =>
    /^balance ₦0\.00$/m.test((await asOwner('wallet', '--centre', centreId)).stdout),
  );
  const again = await asCandidate('application', 'withdraw', id);
  t.is(again.code, 1);
  t.regex(again.stderr, /application\.not_in_stage/);
});

test('capctl pay <reference> --refund refunds a paid payment through RefundPayment and prints it once the refund webhook is acknowledged', async (t) => {
  const { payment_id, reference } = await initiatePayment(platform, feeRequest(payer.userId));
  t.is((await pay(reference)).code, 0);
  const refund = (...args: string[]) => pay(...args, '--refund', '--service-key', platform.config.serviceApiKey);

  const result = await refund(reference, '--reason', 'Charged twice');
  t.is(result.code, 0, result.stderr);
  t.regex(result.stdout, /^refunded ₦15,000\.00 \(CAP application fee\)$/m);
  t.regex(result.stdout, new RegExp(`^reference ${reference}$`, 'm'));
  t.regex(result.stdout, /refund webhook acknowledged by the Orchestrator \(attempt 1\)/);
  t.is((await paymentRow(platform, payment_id)).status, 'refunded');
  t.is((await sandboxTransaction(platform, reference)).body.data.gatewayResponse, 'Refunded: Charged twice');

  const again = await refund(payment_id, '--json');
  t.is(again.code, 0, again.stderr);
  t.like(JSON.parse(again.stdout), {
    paymentId: payment_id,
    reference,
    status: 'refunded',
    amount: { amountMinorUnits: '1500000', currency: 'NGN' },
  });
  const refunds = await sql(
    platform,
    `SELECT 1 FROM ol.payment_status_changes WHERE payment_id = $1 AND to_status = 'refunded'`,
    [payment_id],
  );
  t.is(refunds.length, 1, 'refunded once');
});

test('capctl pay --refund refuses an unknown payment, one that did not succeed, a target that names no payment, and card options', async (t) => {
  const refund = (...args: string[]) => pay(...args, '--refund', '--service-key', platform.config.serviceApiKey);
  const unknown = await refund('PAY-01J9Z8X7W6V5T4S3R2Q1P0N9M8');
  t.is(unknown.code, 1);
  t.regex(unknown.stderr, /no payment has the reference PAY-01J9Z8X7W6V5T4S3R2Q1P0N9M8/);

  const { payment_id, reference } = await initiatePayment(platform, feeRequest(payer.userId));
  const pending = await refund(reference);
  t.is(pending.code, 1);
  t.regex(pending.stderr, new RegExp(`${reference} cannot be refunded: .*pending`));
  t.is((await paymentRow(platform, payment_id)).status, 'pending');

  const nothing = await refund('not-a-payment');
  t.is(nothing.code, 1);
  t.regex(nothing.stderr, /names no payment/);

  const wrongKey = await pay(reference, '--refund', '--service-key', 'not-the-key');
  t.is(wrongKey.code, 1);
  t.regex(wrongKey.stderr, /refused the service key/);

  const mixed = await refund(reference, '--decline');
  t.is(mixed.code, 2);
});

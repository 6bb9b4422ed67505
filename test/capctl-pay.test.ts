import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { approvedCentreOwner, cap, onboard } from './helpers/cap.ts';
import { runCapctl } from './helpers/cli.ts';
import { eventually, sql, startTestPlatform, type TestPlatform } from './helpers/platform.ts';
import { completedEvents, feeRequest, initiatePayment, paymentRow, sandboxTransaction } from './helpers/payments.ts';
import { grantPlatformRole, signUp, testPassword, type SignedUpUser } from './helpers/users.ts';

// `capctl pay` completes a sandbox checkout without a browser, through the checkout's own calls, and
// waits until the Orchestrator has acknowledged the signed webhook.

let platform: TestPlatform;
let payer: SignedUpUser;
test.before(async () => {
  platform = await startTestPlatform();
  payer = await signUp(platform);
});
test.after.always(() => platform?.stop());

const pay = (...args: string[]) => runCapctl(['pay', ...args, '--base-url', platform.urls.gateway!], { CAPCTL_CONFIG_DIR: '/nonexistent-capctl-config' });

test('capctl pay <paymentId> pays with the approved test card and returns once the webhook is acknowledged', async (t) => {
  const { payment_id, reference } = await initiatePayment(platform, feeRequest(payer.userId, { amount_minor: '2000000' }));
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
  t.like(tx, { reference: declined.reference, status: 'failed', gatewayResponse: "Declined by the payer's bank", webhook: { status: 'delivered' } });
  await eventually('the payment is failed', async () => (await paymentRow(platform, declined.payment_id)).status === 'failed');

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

test('capctl pay <applicationId> pays a CAP application as its signed-in candidate, and the application moves on', async (t) => {
  const [admin, owner, candidate] = [await signUp(platform), await signUp(platform), await signUp(platform)];
  await grantPlatformRole(platform, admin);
  const centreId = await approvedCentreOwner(platform, owner);
  const sectorId = (await cap(platform, admin, 'POST', '/admin/sectors', { json: { name: 'Welding' } })).body.data.id;
  const tradeId = (await cap(platform, admin, 'POST', '/admin/trades', { json: { sectorId, name: 'Welding and Fabrication' } })).body.data.id;
  await onboard(platform, candidate, 'candidate');
  const asCandidate = { 'X-CAP-PERSONA': 'candidate' };
  const id = (await cap(platform, candidate, 'POST', '/applications', { headers: asCandidate, json: { type: 'RPL', sectorId, tradeId, unitIds: [], centreId } })).body.data.id;
  // Straight to the payment stage: the form and its submit are tested in cap-applications.test.ts.
  await sql(platform, `UPDATE cap.applications SET status = 'in_progress', current_stage_key = 'payment' WHERE id = $1`, [id]);

  const configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-pay-'));
  t.teardown(() => fs.rmSync(configDir, { recursive: true, force: true }));
  const env = { CAPCTL_CONFIG_DIR: configDir };
  const login = await runCapctl(['login', '--email', candidate.email, '--password', testPassword, '--base-url', platform.urls.gateway!], env);
  t.is(login.code, 0, login.stderr);
  const result = await runCapctl(['pay', id, '--base-url', platform.urls.gateway!], env);
  t.is(result.code, 0, result.stderr);
  t.regex(result.stdout, /^paid ₦25,000\.00 /m);
  await eventually('the application leaves the payment stage', async () => (await cap(platform, candidate, 'GET', `/applications/${id}`, { headers: asCandidate })).body.data.currentStageKey === 'folder_arrangement');
});

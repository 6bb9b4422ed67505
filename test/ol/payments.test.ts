import test from 'ava';
import * as grpc from '@grpc/grpc-js';
import { devPaymentSecretKey } from '../../server/platform/config.ts';
import { newId } from '../../server/platform/ids.ts';
import { sign } from '../../server/orchestrator/payments/sandbox/signature.ts';
import { call, eventually, sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import {
  cancelCheckout,
  completedEvents,
  declineCheckout,
  feeRequest,
  initiateError,
  initiatePayment,
  payCheckout,
  paymentRow,
  postWebhook,
  refundPayment,
  sandboxTransaction,
  sandboxWebhooks,
} from '../helpers/payments.ts';
import { signUp, type SignedUpUser } from '../helpers/users.ts';

let platform: TestPlatform;
let payer: SignedUpUser;
/**
 * A platform whose sandbox cannot reach its webhook URL, so each webhook stays held for the tests
 * to deliver themselves (holding it back on \`platform\` raced the sandbox's first attempt).
 */
let held: TestPlatform;
let heldPayer: SignedUpUser;
test.before(async () => {
  [platform, held] = await Promise.all([
    startTestPlatform(),
    startTestPlatform({ paymentWebhookUrl: 'http://127.0.0.1:9/unreachable' }),
  ]);
  [payer, heldPayer] = await Promise.all([signUp(platform), signUp(held)]);
});
test.after.always(() => Promise.all([platform?.stop(), held?.stop()]));

const ulidPattern = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const verify = (reference: string, token = payer.accessToken) =>
  call('GET', platform.url(`/v1/ol/payments/verify/${encodeURIComponent(reference)}`), { token });

/** Pays through the sandbox checkout and waits until the Orchestrator has the webhook's outcome. */
async function payAndSettle(reference: string, body: Record<string, string> = {}) {
  const paid = await payCheckout(platform, reference, body);
  if (paid.status !== 200) throw new Error(`pay failed: ${paid.status} ${paid.text}`);
  await eventually(
    `the webhook of ${reference} is delivered`,
    async () => (await sandboxWebhooks(platform, reference))[0]?.status === 'delivered',
  );
  return paid.body.data;
}

// --- InitiatePayment over gRPC -----------------------------------------------------------------

test('InitiatePayment answers the payment id, its reference and a checkout URL on this platform', async (t) => {
  const request = feeRequest(payer.userId);
  const response = await initiatePayment(platform, request);
  t.deepEqual(Object.keys(response).sort(), ['checkout_url', 'payment_id', 'reference']);
  t.regex(response.payment_id, ulidPattern);
  t.is(response.reference, `PAY-${response.payment_id}`);
  t.is(response.checkout_url, platform.url(`/v1/ol/payments/sandbox/checkout/${response.reference}`));

  const row = await paymentRow(platform, response.payment_id);
  t.like(row, {
    status: 'pending',
    purpose: 'cap_application',
    purpose_reference_id: request.purpose_reference_id,
    amount_minor: '1500000',
    currency: 'NGN',
    payer_user_id: payer.userId,
    beneficiary_centre_id: request.beneficiary_centre_id,
    provider: 'sandbox',
  });
  const history = await sql(
    platform,
    'SELECT from_status, to_status, actor, cause FROM ol.payment_status_changes WHERE payment_id = $1 ORDER BY id',
    [response.payment_id],
  );
  t.deepEqual(history, [
    { from_status: null, to_status: 'initiated', actor: 'orchestrator', cause: 'initiate' },
    { from_status: 'initiated', to_status: 'pending', actor: 'orchestrator', cause: 'checkout_created' },
  ]);
  const tx = await sandboxTransaction(platform, response.reference);
  t.like(tx.body.data, {
    status: 'pending',
    amount: { amountMinorUnits: '1500000', currency: 'NGN' },
    description: 'CAP application fee',
    webhook: null,
  });
});

test('the same idempotency key answers the same payment, also when the calls race', async (t) => {
  const request = feeRequest(payer.userId);
  const first = await initiatePayment(platform, request);
  t.deepEqual(await initiatePayment(platform, request), first);

  const racing = feeRequest(payer.userId, { purpose: 'PAYMENT_PURPOSE_LMS_ENROLLMENT', beneficiary_centre_id: '' });
  const answers = await Promise.all(Array.from({ length: 8 }, () => initiatePayment(platform, racing)));
  t.is(new Set(answers.map((a) => JSON.stringify(a))).size, 1);
  const rows = await sql(
    platform,
    'SELECT id, status, beneficiary_centre_id FROM ol.payments WHERE idempotency_key = $1',
    [racing.idempotency_key],
  );
  t.deepEqual(rows, [{ id: answers[0]!.payment_id, status: 'pending', beneficiary_centre_id: null }]);
  t.is(
    (await sql(platform, 'SELECT 1 FROM ol.sandbox_transactions WHERE reference = $1', [answers[0]!.reference])).length,
    1,
  );
});

test('a reused idempotency key with another amount, payer or purpose is ALREADY_EXISTS naming what differs', async (t) => {
  const other = await signUp(platform);
  const request = feeRequest(payer.userId);
  const first = await initiatePayment(platform, request);

  const amount = await initiateError(platform, { ...request, amount_minor: '1600000' });
  t.is(amount.code, grpc.status.ALREADY_EXISTS);
  t.regex(amount.details, /idempotency_key was already used for another payment \(amount_minor differs\)/);
  const payerAndPurpose = await initiateError(platform, {
    ...request,
    payer_user_id: other.userId,
    purpose_reference_id: 'another',
  });
  t.is(payerAndPurpose.code, grpc.status.ALREADY_EXISTS);
  t.regex(payerAndPurpose.details, /payer_user_id, purpose_reference_id differ/);
  // The return URL is not part of what is paid for: the first payment is answered.
  t.deepEqual(await initiatePayment(platform, { ...request, return_url: 'https://elsewhere.example/' }), first);
  t.is(
    (await sql(platform, 'SELECT 1 FROM ol.payments WHERE idempotency_key = $1', [request.idempotency_key])).length,
    1,
  );
});

test('a malformed request is INVALID_ARGUMENT naming every broken field, and creates nothing', async (t) => {
  const key = `test:${newId()}`;
  const err = await initiateError(platform, {
    payer_user_id: 'nobody',
    purpose: 'PAYMENT_PURPOSE_UNSPECIFIED',
    purpose_reference_id: ' ',
    amount_minor: '0',
    currency: 'ngn',
    idempotency_key: key,
    return_url: 'javascript:alert(1)',
  });
  t.is(err.code, grpc.status.INVALID_ARGUMENT);
  for (const field of ['payer_user_id', 'purpose', 'purpose_reference_id', 'amount_minor', 'currency', 'return_url'])
    t.regex(err.details, new RegExp(`${field} `));
  t.notRegex(err.details, /idempotency_key/);
  t.is(
    (await initiateError(platform, feeRequest(payer.userId, { amount_minor: '-5' }))).code,
    grpc.status.INVALID_ARGUMENT,
  );
  t.is(
    (await initiateError(platform, feeRequest(payer.userId, { idempotency_key: '' }))).code,
    grpc.status.INVALID_ARGUMENT,
  );
  const currency = await initiateError(platform, feeRequest(payer.userId, { currency: 'EUR' }));
  t.is(currency.code, grpc.status.INVALID_ARGUMENT);
  t.regex(currency.details, /currency EUR is not taken by the payment provider/);
  t.is((await sql(platform, 'SELECT 1 FROM ol.payments WHERE idempotency_key = $1', [key])).length, 0);
});

test('an unknown payer is NOT_FOUND and a call without the service key is UNAUTHENTICATED', async (t) => {
  t.is((await initiateError(platform, feeRequest(newId()))).code, grpc.status.NOT_FOUND);
  t.is((await initiateError(platform, feeRequest(payer.userId), null)).code, grpc.status.UNAUTHENTICATED);
  t.is((await initiateError(platform, feeRequest(payer.userId), 'not-the-key')).code, grpc.status.UNAUTHENTICATED);
});

test('amounts beyond 2^53 keep every digit, in the table, the checkout and the event', async (t) => {
  const big = '9007199254740993';
  const { payment_id, reference } = await initiatePayment(platform, feeRequest(payer.userId, { amount_minor: big }));
  t.is((await paymentRow(platform, payment_id)).amount_minor, big);
  await payAndSettle(reference);
  const [event] = await completedEvents(platform, payment_id);
  t.deepEqual(event!.data.amount, { amountMinorUnits: big, currency: 'NGN' });
});

// --- Completion, the event and the lifecycle ---------------------------------------------------

test('a paid checkout makes the payment succeeded and publishes payment.completed once with its facts', async (t) => {
  const request = feeRequest(payer.userId);
  const { payment_id, reference } = await initiatePayment(platform, request);
  const paid = await payAndSettle(reference);
  t.like(paid, { status: 'success', gatewayResponse: 'Approved', card: { brand: 'visa', last4: '4081' } });

  const payment = (await verify(reference)).body.data;
  t.like(payment, {
    paymentId: payment_id,
    reference,
    status: 'succeeded',
    purpose: 'cap_application',
    amount: { amountMinorUnits: '1500000', currency: 'NGN' },
    failureReason: null,
  });
  const events = await completedEvents(platform, payment_id);
  t.is(events.length, 1);
  t.deepEqual(events[0]!.data, {
    paymentId: payment_id,
    reference,
    purpose: 'cap_application',
    purposeReferenceId: request.purpose_reference_id,
    payerUserId: payer.userId,
    amount: { amountMinorUnits: '1500000', currency: 'NGN' },
    beneficiaryCentreId: request.beneficiary_centre_id,
    provider: 'sandbox',
    completedAt: payment.completedAt,
  });
  const history = await sql(
    platform,
    'SELECT from_status, to_status, actor, cause FROM ol.payment_status_changes WHERE payment_id = $1 ORDER BY id',
    [payment_id],
  );
  t.deepEqual(history.at(-1), { from_status: 'pending', to_status: 'succeeded', actor: 'provider', cause: 'webhook' });
  // The checkout is closed for good.
  t.is((await payCheckout(platform, reference)).body.error.code, 'payment.sandbox_transaction_closed');
});

test("a declined card makes the payment failed with the processor's words, and publishes payment.failed, never payment.completed", async (t) => {
  const { payment_id, reference } = await initiatePayment(platform, feeRequest(payer.userId));
  const paid = await payAndSettle(reference, { cardNumber: '4000 0000 0000 9995' });
  t.like(paid, { status: 'failed', gatewayResponse: 'Insufficient funds' });
  t.like((await verify(reference)).body.data, {
    status: 'failed',
    failureReason: 'Insufficient funds',
    completedAt: null,
  });
  t.is((await completedEvents(platform, payment_id)).length, 0);
  const [failed] = await sql<{ data: Record<string, unknown> }>(
    platform,
    `SELECT data FROM ol.outbox WHERE type = 'payment.failed' AND data->>'paymentId' = $1`,
    [payment_id],
  );
  t.like(failed?.data, { status: 'failed', failureReason: 'Insufficient funds', purpose: 'cap_application' });

  const declined = await initiatePayment(platform, feeRequest(payer.userId));
  await declineCheckout(platform, declined.reference);
  await eventually(
    'the decline is delivered',
    async () => (await sandboxWebhooks(platform, declined.reference))[0]?.status === 'delivered',
  );
  t.like((await verify(declined.reference)).body.data, {
    status: 'failed',
    failureReason: "Declined by the payer's bank",
  });
});

test('an invalid or unknown card is a 422 that leaves the checkout open', async (t) => {
  const { reference } = await initiatePayment(platform, feeRequest(payer.userId));
  const luhn = await payCheckout(platform, reference, { cardNumber: '4084 0840 8408 4082' });
  t.is(luhn.status, 422);
  t.is(luhn.body.error.code, 'payment.sandbox_card_invalid');
  t.is(
    (await payCheckout(platform, reference, { cardNumber: '4242424242424242' })).body.error.code,
    'payment.sandbox_card_invalid',
  );
  t.is((await payCheckout(platform, reference, { expiry: '01/20' })).body.error.details[0].field, 'expiry');
  t.is((await payCheckout(platform, reference, { cvv: '12' })).body.error.code, 'validation.failed');
  t.like((await sandboxTransaction(platform, reference)).body.data, { status: 'pending', webhook: null });
});

test('a cancelled checkout sends no webhook; verify-by-reference learns it from the provider and abandons the payment', async (t) => {
  const { payment_id, reference } = await initiatePayment(platform, feeRequest(payer.userId));
  t.like((await cancelCheckout(platform, reference)).body.data, { status: 'abandoned', webhook: null });
  t.is((await paymentRow(platform, payment_id)).status, 'pending');
  t.like((await verify(reference)).body.data, { status: 'abandoned', failureReason: 'Cancelled by the payer' });
  const history = await sql(
    platform,
    'SELECT to_status, actor, cause FROM ol.payment_status_changes WHERE payment_id = $1 ORDER BY id',
    [payment_id],
  );
  t.deepEqual(history.at(-1), { to_status: 'abandoned', actor: 'provider', cause: 'verify' });
});

test('verify-by-reference applies a success whose webhook has not arrived, and the late webhook changes nothing', async (t) => {
  const { payment_id, reference } = await initiatePayment(held, feeRequest(heldPayer.userId));
  await payCheckout(held, reference);
  const verified = (
    await call('GET', held.url(`/v1/ol/payments/verify/${reference}`), { token: heldPayer.accessToken })
  ).body.data;
  t.is(verified.status, 'succeeded');
  t.is((await completedEvents(held, payment_id)).length, 1);
  const [webhook] = await sandboxWebhooks(held, reference);
  const late = await postWebhook(held, webhook!.body);
  t.is(late.status, 200);
  t.deepEqual(late.body.data, { received: true, duplicate: false });
  t.is((await completedEvents(held, payment_id)).length, 1);
  t.deepEqual(await sql(held, 'SELECT effect FROM ol.payment_webhook_events WHERE event_id = $1', [webhook!.id]), [
    { effect: 'no_change' },
  ]);
});

// --- The webhook's signature and replays --------------------------------------------------------

/** A payment paid at the sandbox whose webhook is held back, with the body the sandbox signed. */
async function paidWithHeldWebhook() {
  const { payment_id, reference } = await initiatePayment(held, feeRequest(heldPayer.userId));
  await payCheckout(held, reference);
  const [webhook] = await sandboxWebhooks(held, reference);
  return { paymentId: payment_id, reference, body: webhook!.body, eventId: webhook!.id };
}

const flipLastDigit = (hex: string) => hex.slice(0, -1) + (hex.endsWith('0') ? '1' : '0');

test('a webhook with a wrong, missing or malformed signature is 401 and changes nothing', async (t) => {
  const { paymentId, body, eventId } = await paidWithHeldWebhook();
  const attempts = [
    sign('not-the-secret-key', body),
    null,
    '',
    'abc',
    flipLastDigit(sign(devPaymentSecretKey, body)),
    sign(devPaymentSecretKey, body).slice(0, 64),
  ];
  for (const signature of attempts) {
    const res = await postWebhook(held, body, signature);
    t.is(res.status, 401, `signature ${JSON.stringify(signature)}`);
    t.is(res.body.error.code, 'payment.webhook_signature_invalid');
  }
  t.is((await paymentRow(held, paymentId)).status, 'pending');
  t.is((await completedEvents(held, paymentId)).length, 0);
  t.is((await sql(held, 'SELECT 1 FROM ol.payment_webhook_events WHERE event_id = $1', [eventId])).length, 0);
});

test('the signature covers the exact raw bytes: the same JSON re-serialised or with a changed amount is refused', async (t) => {
  const { paymentId, body } = await paidWithHeldWebhook();
  const signature = sign(devPaymentSecretKey, body);
  const reformatted = JSON.stringify(JSON.parse(body), null, 2);
  t.is((await postWebhook(held, reformatted, signature)).status, 401);
  const tampered = body.replace('"amount":"1500000"', '"amount":"1"');
  t.not(tampered, body);
  t.is((await postWebhook(held, tampered, signature)).status, 401);
  t.is((await paymentRow(held, paymentId)).status, 'pending');
  // The untouched bytes with their signature are accepted.
  t.is((await postWebhook(held, body, signature)).status, 200);
  t.is((await paymentRow(held, paymentId)).status, 'succeeded');
});

test('a replayed webhook is acknowledged as a duplicate and has no second effect', async (t) => {
  const { paymentId, body, eventId } = await paidWithHeldWebhook();
  t.deepEqual((await postWebhook(held, body)).body.data, { received: true, duplicate: false });
  for (let i = 0; i < 3; i++)
    t.deepEqual((await postWebhook(held, body)).body.data, { received: true, duplicate: true });
  t.is((await completedEvents(held, paymentId)).length, 1);
  t.deepEqual(await sql(held, 'SELECT effect FROM ol.payment_webhook_events WHERE event_id = $1', [eventId]), [
    { effect: 'applied' },
  ]);
  const changes = await sql(
    held,
    `SELECT 1 FROM ol.payment_status_changes WHERE payment_id = $1 AND to_status = 'succeeded'`,
    [paymentId],
  );
  t.is(changes.length, 1);
});

test('a signed success for another amount is acknowledged but refused: the payment stays pending', async (t) => {
  const { paymentId, body } = await paidWithHeldWebhook();
  const forged = JSON.parse(body);
  forged.id = newId();
  forged.data.amount = '100';
  const res = await postWebhook(held, JSON.stringify(forged));
  t.is(res.status, 200);
  t.is((await paymentRow(held, paymentId)).status, 'pending');
  t.is((await completedEvents(held, paymentId)).length, 0);
  t.deepEqual(await sql(held, 'SELECT effect FROM ol.payment_webhook_events WHERE event_id = $1', [forged.id]), [
    { effect: 'refused' },
  ]);
});

test('a signed body that is not a provider webhook is 422; an unknown reference is acknowledged and recorded', async (t) => {
  const notWebhook = JSON.stringify({ hello: 'world' });
  const res = await postWebhook(held, notWebhook);
  t.is(res.status, 422);
  t.is(res.body.error.code, 'validation.failed');
  const eventId = newId();
  const unknown = JSON.stringify({
    id: eventId,
    event: 'charge.success',
    data: { id: newId(), reference: 'PAY-UNKNOWN', amount: '1', currency: 'NGN' },
  });
  t.deepEqual((await postWebhook(held, unknown)).body.data, { received: true, duplicate: false });
  t.deepEqual(await sql(held, 'SELECT effect FROM ol.payment_webhook_events WHERE event_id = $1', [eventId]), [
    { effect: 'unknown_reference' },
  ]);
});

// --- Verify by reference ------------------------------------------------------------------------

test("verify-by-reference shows the payer's own payment only: anyone else gets 404, no token 401", async (t) => {
  const { payment_id, reference } = await initiatePayment(platform, feeRequest(payer.userId));
  const own = await verify(reference);
  t.is(own.status, 200);
  t.like(own.body.data, {
    paymentId: payment_id,
    status: 'pending',
    checkoutUrl: platform.url(`/v1/ol/payments/sandbox/checkout/${reference}`),
  });
  const stranger = await signUp(platform);
  const other = await verify(reference, stranger.accessToken);
  t.is(other.status, 404);
  t.is(other.body.error.code, 'http.not_found');
  t.is((await verify('PAY-NOSUCHPAYMENT')).status, 404);
  const anonymous = await call('GET', platform.url(`/v1/ol/payments/verify/${reference}`));
  t.is(anonymous.status, 401);
  t.is(anonymous.body.error.code, 'auth.unauthenticated');
});

// --- The hosted checkout page -------------------------------------------------------------------

test('the checkout page is HTML showing the amount, the purpose, the reference and the test cards', async (t) => {
  const { reference, checkout_url } = await initiatePayment(
    platform,
    feeRequest(payer.userId, { amount_minor: '1234567' }),
  );
  const page = await call('GET', checkout_url);
  t.is(page.status, 200);
  t.regex(String(page.headers['content-type']), /^text\/html/);
  t.regex(String(page.headers['content-security-policy']), /script-src 'self'/);
  t.regex(page.text, /₦12,345\.67/);
  t.regex(page.text, /CAP application fee/);
  t.true(page.text.includes(reference));
  t.regex(page.text, /4084 0840 8408 4081/);
  t.regex(page.text, /Insufficient funds/);
  t.notRegex(page.text, /<script>/, 'no inline script');
  const script = await call('GET', new URL('../assets/checkout.js', checkout_url).toString());
  t.is(script.status, 200);
  t.regex(String(script.headers['content-type']), /javascript/);
  const missing = await call('GET', platform.url('/v1/ol/payments/sandbox/checkout/PAY-NOSUCHPAYMENT'));
  t.is(missing.status, 404);
  t.regex(missing.text, /Checkout not found/);
});

test('RefundPayment refunds a succeeded payment once through the sandbox: refunding, then refunded by the signed refund webhook, payment.refunded once; other payments and bad requests are refused', async (t) => {
  const { payment_id, reference } = await initiatePayment(platform, feeRequest(payer.userId));
  const early = await refundPayment(platform, { payment_id, reason: 'too early' });
  t.is((early as grpc.ServiceError).code, grpc.status.FAILED_PRECONDITION, 'a pending payment is not refunded');
  await payCheckout(platform, reference);
  await eventually(
    'the payment succeeded',
    async () => (await paymentRow(platform, payment_id)).status === 'succeeded',
  );

  const [first, second] = await Promise.all([
    refundPayment(platform, { payment_id, reason: 'withdrawn' }),
    refundPayment(platform, { payment_id, reason: 'withdrawn' }),
  ]);
  t.like(first, { payment_id, status: 'refunding' });
  t.like(second, { payment_id, status: 'refunding' });
  await eventually(
    'the refund webhook is applied',
    async () => (await paymentRow(platform, payment_id)).status === 'refunded',
  );
  const refunds = (await sandboxWebhooks(platform, reference)).filter(
    (w) => JSON.parse(w.body).event === 'refund.processed',
  );
  t.is(refunds.length, 1, 'the provider was asked once');
  t.is(
    (
      await sql(platform, `SELECT 1 FROM ol.outbox WHERE type = 'payment.refunded' AND data->>'paymentId' = $1`, [
        payment_id,
      ])
    ).length,
    1,
  );
  t.is(
    (await postWebhook(platform, refunds[0]!.body)).body.data.duplicate,
    true,
    'a replayed refund webhook changes nothing',
  );
  t.like(await refundPayment(platform, { payment_id, reason: 'again' }), { status: 'refunded' });
  t.is((await sandboxTransaction(platform, reference)).body.data.status, 'refunded');

  t.is(
    ((await refundPayment(platform, { payment_id: newId(), reason: 'x' })) as grpc.ServiceError).code,
    grpc.status.NOT_FOUND,
  );
  t.is(
    ((await refundPayment(platform, { payment_id: 'nope', reason: '' })) as grpc.ServiceError).code,
    grpc.status.INVALID_ARGUMENT,
  );
});

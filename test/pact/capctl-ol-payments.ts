/**
 * capctl -> Orchestrator, payments: the calls `capctl pay` makes (the sandbox checkout's own API) and
 * the payment steps of the bundled scenario sandbox-payment.yaml. Registered into
 * capctl-ol.consumer.test.ts, which writes pacts/capctl-ol.json (one pact per consumer and provider).
 */
import type { TestFn } from 'ava';
import { MatchersV3, type PactV4 } from '@pact-foundation/pact';
import { capctl, configDir, errorBody, isoDateTime, mockGateway, runScenario, stepTests, ulid } from './support.ts';

const { fromProviderState, integer, regex, string } = MatchersV3;

const exampleReference = 'PAY-01J9Z8X7W6V5T4S3R2Q1P0PAY1';
const transactionPath = (suffix = '') =>
  fromProviderState(
    `/v1/ol/payments/sandbox/transactions/\${reference}${suffix}`,
    `/v1/ol/payments/sandbox/transactions/${exampleReference}${suffix}`,
  );
const reference = () => regex('^PAY-[0-9A-HJKMNP-TV-Z]{26}$', exampleReference);
const amount = { amountMinorUnits: regex('^[1-9][0-9]*$', '1500000'), currency: regex('^[A-Z]{3}$', 'NGN') };

/** The fields of a sandbox transaction capctl reads (the answer may carry more). */
function transaction(status: string, fields: Record<string, unknown>) {
  return {
    reference: reference(),
    transactionId: ulid(),
    status,
    amount,
    description: string('CAP application fee'),
    merchantName: string('CAP Platform'),
    createdAt: isoDateTime(),
    ...fields,
  };
}
const pending = transaction('pending', {
  gatewayResponse: null,
  card: null,
  paidAt: null,
  redirectUrl: null,
  webhook: null,
});
const approved = (webhookStatus: ReturnType<typeof regex> | string) =>
  transaction('success', {
    gatewayResponse: 'Approved',
    card: { brand: 'visa', last4: '4081' },
    paidAt: isoDateTime(),
    webhook: { status: webhookStatus, attempts: integer(1) },
  });
// Right after the charge the webhook is queued, or already acknowledged: the sandbox sends it at once.
const justQueued = regex('^(pending|delivered)$', 'pending');

export function capctlPaymentPacts(test: TestFn, olPact: () => PactV4): void {
  test.serial('capctl pay reads the pending checkout, then pays it with the approved test card', async (t) => {
    const cli = configDir(t);
    const ol = olPact();
    ol.addInteraction()
      .given('a pending payment')
      .uponReceiving('a read of a pending sandbox transaction')
      .withRequest('GET', transactionPath())
      .willRespondWith(200, (b) => b.jsonBody({ success: true, data: pending }));
    await ol
      .addInteraction()
      .given('a pending payment')
      .uponReceiving('a payment with the default test card at the sandbox checkout')
      .withRequest('POST', transactionPath('/pay'), (b) => b.jsonBody({}))
      .willRespondWith(200, (b) => b.jsonBody({ success: true, data: approved(justQueued) }))
      .executeTest(async (mock) => {
        const run = await capctl(t, cli.dir, 'pay', exampleReference, '--no-wait', '--base-url', mock.url, '--json');
        t.is(run.code, 0, run.stderr);
        t.like(JSON.parse(run.stdout), { reference: exampleReference, status: 'success', gatewayResponse: 'Approved' });
      });
  });

  test.serial("capctl pay --decline declines the checkout with the payer's bank", async (t) => {
    const cli = configDir(t);
    const ol = olPact();
    ol.addInteraction()
      .given('a pending payment')
      .uponReceiving('a read of a pending sandbox transaction')
      .withRequest('GET', transactionPath())
      .willRespondWith(200, (b) => b.jsonBody({ success: true, data: pending }));
    await ol
      .addInteraction()
      .given('a pending payment')
      .uponReceiving('a decline at the sandbox checkout')
      .withRequest('POST', transactionPath('/decline'))
      .willRespondWith(200, (b) =>
        b.jsonBody({
          success: true,
          data: transaction('failed', {
            gatewayResponse: "Declined by the payer's bank",
            card: null,
            paidAt: null,
            webhook: { status: justQueued, attempts: integer(0) },
          }),
        }),
      )
      .executeTest(async (mock) => {
        const run = await capctl(t, cli.dir, 'pay', exampleReference, '--decline', '--no-wait', '--base-url', mock.url);
        t.is(run.code, 0, run.stderr);
        t.regex(run.stdout, /^declined ₦15,000\.00 \(CAP application fee\): Declined by the payer's bank$/m);
      });
  });

  test.serial('capctl run opens the checkout page of a pending payment (HTML)', async (t) => {
    await olPact()
      .addInteraction()
      .given('a pending payment')
      .uponReceiving('a read of the sandbox checkout page')
      .withRequest(
        'GET',
        fromProviderState(
          '/v1/ol/payments/sandbox/checkout/${reference}',
          `/v1/ol/payments/sandbox/checkout/${exampleReference}`,
        ),
      )
      .willRespondWith(200, (b) =>
        b.headers({ 'Content-Type': regex('^text/html(;.*)?$', 'text/html; charset=utf-8') }),
      )
      .executeTest(async (mock) => {
        await runScenario(
          t,
          await mockGateway(t, { ol: mock.url }),
          `
name: checkout page
steps:
  - id: page
    http: { method: GET, path: /v1/ol/payments/sandbox/checkout/${exampleReference} }
    expect: { status: 200 }
`,
        );
      });
  });

  const verifyPath = fromProviderState(
    '/v1/ol/payments/verify/${reference}',
    `/v1/ol/payments/verify/${exampleReference}`,
  );
  stepTests(test, olPact, 'ol', [
    {
      rule: 'verify-by-reference shows the payer a pending payment with its facts',
      description: 'a verify of a pending payment by its payer',
      states: [['a pending payment']],
      method: 'GET',
      path: verifyPath,
      status: 200,
      response: {
        success: true,
        data: {
          paymentId: ulid(),
          reference: reference(),
          status: 'pending',
          purpose: 'cap_application',
          purposeReferenceId: ulid(),
          amount,
          beneficiaryCentreId: ulid(),
          provider: string('sandbox'),
          checkoutUrl: regex(
            '^https?://.+/payments/sandbox/checkout/PAY-[0-9A-HJKMNP-TV-Z]{26}$',
            `http://127.0.0.1:4000/v1/ol/payments/sandbox/checkout/${exampleReference}`,
          ),
          failureReason: null,
          createdAt: isoDateTime(),
          completedAt: null,
        },
      },
    },
    {
      rule: "verify-by-reference of someone else's payment is 404",
      description: "a verify of another user's payment",
      states: [['a pending payment'], ['a verified user']],
      method: 'GET',
      path: verifyPath,
      status: 404,
      response: errorBody('http.not_found'),
    },
    {
      rule: 'a checkout paid with an approved test card answers the charge',
      description: 'a payment with a given approved test card at the sandbox checkout',
      states: [['a pending payment']],
      method: 'POST',
      path: transactionPath('/pay'),
      signedIn: false,
      body: { cardNumber: '4084 0840 8408 4081', expiry: '12/30', cvv: '408' },
      status: 200,
      response: { success: true, data: approved(justQueued) },
    },
    {
      rule: 'a declining test card answers the decline',
      description: 'a payment with a declining test card at the sandbox checkout',
      states: [['a pending payment']],
      method: 'POST',
      path: transactionPath('/pay'),
      signedIn: false,
      body: { cardNumber: '4000000000009995' },
      status: 200,
      response: {
        success: true,
        data: transaction('failed', {
          gatewayResponse: 'Insufficient funds',
          card: { brand: 'visa', last4: '9995' },
          paidAt: null,
        }),
      },
    },
    {
      rule: 'a paid transaction shows its webhook acknowledged',
      description: 'a read of a paid sandbox transaction',
      states: [['a paid payment']],
      method: 'GET',
      path: transactionPath(),
      signedIn: false,
      status: 200,
      response: { success: true, data: approved('delivered') },
    },
    {
      rule: 'paying a paid checkout again is 409 payment.sandbox_transaction_closed',
      description: 'a second payment of a paid sandbox transaction',
      states: [['a paid payment']],
      method: 'POST',
      path: transactionPath('/pay'),
      signedIn: false,
      body: {},
      status: 409,
      response: errorBody('payment.sandbox_transaction_closed'),
    },
  ]);
}

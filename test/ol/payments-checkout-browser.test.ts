import test from 'ava';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { browserTest, browserUnavailable, launchChromium } from '../helpers/browser.ts';
import { call, eventually, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { completedEvents, feeRequest, initiatePayment, sandboxWebhooks } from '../helpers/payments.ts';
import { signUp, type SignedUpUser } from '../helpers/users.ts';

// The sandbox's hosted checkout page in a real browser (headless Chromium): a person opens the
// checkout URL InitiatePayment answered, pays or declines with the buttons, and is sent back.

const it = browserTest(test);
let platform: TestPlatform;
let payer: SignedUpUser;
let browser: Browser | undefined;
/** The merchant's return page: records where the browser came back with (not its favicon). */
const returns: URL[] = [];
const merchant = http.createServer((req, res) => {
  const url = new URL(req.url!, 'http://merchant.test');
  if (url.pathname === '/applications/done') returns.push(url);
  res
    .writeHead(200, { 'content-type': 'text/html' })
    .end('<!doctype html><title>Back at the merchant</title><h1>Thanks</h1>');
});
let returnUrl = '';

test.before(async () => {
  if (browserUnavailable()) return;
  await new Promise<void>((resolve) => merchant.listen(0, '127.0.0.1', resolve));
  returnUrl = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}/applications/done?from=checkout`;
  platform = await startTestPlatform();
  payer = await signUp(platform);
  browser = await launchChromium();
});
test.after.always(async () => {
  await browser?.close();
  await platform?.stop();
  merchant.close();
});

it('clicking pay on the checkout page completes the payment and returns the payer to the merchant', async (t) => {
  const { payment_id, reference, checkout_url } = await initiatePayment(
    platform,
    feeRequest(payer.userId, { amount_minor: '2500000', return_url: returnUrl }),
  );
  const page = await browser!.newPage();
  t.teardown(() => page.close());
  await page.goto(checkout_url);
  t.is(await page.locator('#amount').textContent(), '₦25,000.00');
  t.is(await page.locator('#description').textContent(), 'CAP application fee');
  t.regex((await page.locator('.test-cards').textContent()) ?? '', /4084 0840 8408 4081/);

  await Promise.all([
    page.waitForURL((url) => url.pathname === '/applications/done', { timeout: 20_000 }),
    page.locator('#pay').click(),
  ]);
  const back = returns.at(-1)!;
  t.is(back.searchParams.get('from'), 'checkout');
  t.is(back.searchParams.get('reference'), reference);
  t.is(back.searchParams.get('status'), 'success');

  await eventually(
    'the webhook is delivered',
    async () => (await sandboxWebhooks(platform, reference))[0]?.status === 'delivered',
  );
  const verified = await call('GET', platform.url(`/v1/ol/payments/verify/${reference}`), { token: payer.accessToken });
  t.like(verified.body.data, { paymentId: payment_id, status: 'succeeded' });
  t.is((await completedEvents(platform, payment_id)).length, 1);
});

it('the decline button shows the decline and, with no return URL, keeps the payer on the page', async (t) => {
  const { reference, checkout_url } = await initiatePayment(platform, feeRequest(payer.userId));
  const page = await browser!.newPage();
  t.teardown(() => page.close());
  await page.goto(checkout_url);
  await page.locator('#decline').click();
  await page.locator('#result-title', { hasText: 'Payment declined' }).waitFor();
  t.is(await page.locator('#result-detail').textContent(), "Declined by the payer's bank");
  t.true(await page.locator('#result-stay').isVisible());
  t.false(await page.locator('#card-form').isVisible());
  await eventually(
    'the decline is delivered',
    async () => (await sandboxWebhooks(platform, reference))[0]?.status === 'delivered',
  );
  // Opening the page again shows the outcome, not the form.
  await page.reload();
  t.is(await page.locator('#result-title').textContent(), 'Payment declined');
  t.false(await page.locator('#card-form').isVisible());
});

it('a card that is not a test card is refused on the page and the form stays open', async (t) => {
  const { reference, checkout_url } = await initiatePayment(platform, feeRequest(payer.userId));
  const page = await browser!.newPage();
  t.teardown(() => page.close());
  await page.goto(checkout_url);
  await page.locator('#card-number').fill('4242 4242 4242 4242');
  await page.locator('#pay').click();
  await page.locator('#form-error').waitFor({ state: 'visible' });
  t.regex((await page.locator('#form-error').textContent()) ?? '', /test cards/);
  t.true(await page.locator('#pay').isEnabled());
  t.deepEqual(await sandboxWebhooks(platform, reference), []);
});

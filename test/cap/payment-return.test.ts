import test from 'ava';
import { applicationTargets, candidateWithApplication, cap } from '../helpers/cap.ts';
import { ConfigError, resolveConfig } from '../../server/platform/config.ts';
import { call, sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { payCheckout, sandboxTransaction } from '../helpers/payments.ts';

// The way back from checkout (openapi/cap/payments.yaml, payApplication): CAP_WEB_URL's application
// page, or the caller's returnUrl on an allowed origin; the checkout sends the payer there with the
// payment's reference and status.
let platform: TestPlatform;
let targets: { centreId: string; sectorId: string; tradeId: string };
const web = 'https://cap-web.example.test';
const asCandidate = { 'X-CAP-PERSONA': 'candidate' };

test.before(async () => {
  platform = await startTestPlatform({ capWebUrl: web, corsOrigins: [web, 'https://partner.example.test'] });
  const { centreId, sectorId, tradeId } = await applicationTargets(platform, {
    sector: 'Welding',
    trade: 'Pipe Welding',
  });
  targets = { centreId, sectorId, tradeId };
});
test.after.always(() => platform?.stop());

const referenceOf = async (paymentId: string) =>
  (
    await sql<{ reference: string }>(platform, 'SELECT reference FROM cap.application_payments WHERE payment_id = $1', [
      paymentId,
    ])
  )[0]!.reference;

test.serial(
  'without a returnUrl the paid checkout sends the payer to the web app page of the application, with the reference and status',
  async (t) => {
    const { user, applicationId } = await candidateWithApplication(platform, targets);
    const paid = await cap(platform, user, 'POST', `/applications/${applicationId}/pay`, { headers: asCandidate });
    t.is(paid.status, 200, paid.text);
    const reference = await referenceOf(paid.body.data.paymentId);
    const done = await payCheckout(platform, reference);
    t.is(done.status, 200, done.text);
    const back = new URL(done.body.data.redirectUrl);
    t.is(`${back.origin}${back.pathname}`, `${web}/dashboard/applications/${applicationId}`);
    t.is(back.searchParams.get('reference'), reference);
    t.is(back.searchParams.get('status'), 'success');
    // The page itself carries it too, so a payer who reloads the closed checkout is sent back.
    const page = await call('GET', paid.body.data.checkoutUrl);
    t.true(
      page.text.includes(`data-redirect-url="${done.body.data.redirectUrl.replaceAll('&', '&#38;')}"`),
      page.text.slice(0, 400),
    );
  },
);

test.serial("a caller's returnUrl on an allowed origin is where the payer returns", async (t) => {
  const { user, applicationId } = await candidateWithApplication(platform, targets);
  const returnUrl = `https://partner.example.test/paid?app=${applicationId}`;
  const paid = await cap(platform, user, 'POST', `/applications/${applicationId}/pay`, {
    headers: asCandidate,
    json: { returnUrl },
  });
  t.is(paid.status, 200, paid.text);
  const reference = await referenceOf(paid.body.data.paymentId);
  await payCheckout(platform, reference);
  const back = new URL((await sandboxTransaction(platform, reference)).body.data.redirectUrl);
  t.is(back.origin, 'https://partner.example.test');
  t.is(back.searchParams.get('app'), applicationId);
  t.is(back.searchParams.get('reference'), reference);
});

test.serial(
  'a returnUrl on an origin the platform does not allow is 422 payment.return_url_not_allowed and starts nothing',
  async (t) => {
    const { user, applicationId } = await candidateWithApplication(platform, targets);
    // Not a web link at all: the document's link format refuses it; a link elsewhere: the origin rule.
    for (const [returnUrl, code] of [
      ['https://evil.example.test/steal', 'payment.return_url_not_allowed'],
      ['javascript:alert(1)', 'validation.failed'],
      ['not a url', 'validation.failed'],
    ]) {
      const refused = await cap(platform, user, 'POST', `/applications/${applicationId}/pay`, {
        headers: asCandidate,
        json: { returnUrl },
      });
      t.is(refused.status, 422, returnUrl);
      t.is(refused.body.error.code, code, returnUrl);
      t.is(refused.body.error.details[0].field, 'returnUrl');
    }
    t.deepEqual(
      await sql(platform, 'SELECT 1 FROM cap.application_payments WHERE application_id = $1', [applicationId]),
      [],
    );
  },
);

test('CAP_WEB_URL is an http(s) URL like the other URL settings (a trailing slash dropped)', (t) => {
  t.is(resolveConfig({}, { CAP_WEB_URL: 'https://app.example.org/' }).capWebUrl, 'https://app.example.org');
  t.is(resolveConfig({}, {}).capWebUrl, '');
  t.throws(() => resolveConfig({}, { CAP_WEB_URL: 'ftp://app.example.org' }), {
    instanceOf: ConfigError,
    message: /capWebUrl/,
  });
});

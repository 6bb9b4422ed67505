import test from 'ava';
import { applicationTargets, cap, onboard, paymentLedger } from '../helpers/cap.ts';
import { retainedAssessor } from '../helpers/assessors.ts';
import { call, eventually, sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { declineCheckout, payCheckout } from '../helpers/payments.ts';
import { pdfText } from '../helpers/pdf.ts';
import { signUp, type SignedUpUser } from '../helpers/users.ts';

// Paying for an application (openapi/cap/payments.yaml): the quote, InitiatePayment through the
// Orchestrator, the sandbox checkout, payment.completed back in CAP, the receipt and the wallet ledger.
let platform: TestPlatform;
let owner: SignedUpUser;
let admin: SignedUpUser;
let centreId: string;
let sectorId: string;
let tradeId: string;
const asCandidate = { 'X-CAP-PERSONA': 'candidate' };
const asCentre = () => ({ 'X-CAP-PERSONA': 'centre', 'X-CAP-CENTRE-ID': centreId });
const ngn = (minor: string) => ({ amountMinorUnits: minor, currency: 'NGN' });

test.before(async () => {
  platform = await startTestPlatform();
  ({ admin, owner, centreId, sectorId, tradeId } = await applicationTargets(platform, {
    sector: 'Electrical',
    trade: 'Electrical Installation',
  }));
});
test.after.always(() => platform?.stop());

const form = {
  personalInformation: {
    personalDetails: {
      firstName: 'Sule',
      lastName: 'Ibrahim',
      dob: '1988-02-01',
      gender: 'Male',
      nationality: 'Nigerian',
    },
    contactInformation: {
      emailAddress: 'sule@example.test',
      phoneNumber: { countryCode: '+234', number: '8031234567' },
    },
    residentialAddress: { country: 'Nigeria', state: 'Kano', address: '3 Zoo Road' },
  },
  experienceAndTrade: {
    unitIds: [],
    currentOccupation: { occupation: 'Electrician', yearsOfExperience: 8, employmentHistory: [] },
    reasonForSeekingRPL: 'Certification',
  },
  assessmentDeclaration: {
    infoProvidedIsAccurate: true,
    understandsDoesNotGuaranteeCertification: true,
    understandsThatNeedsToProvideSufficientEvidenceToDemonstrateCompetence: true,
    agreesToTermsAndPrivacyPolicy: true,
  },
};

/** A candidate with a submitted RPL application at the payment stage. */
async function awaitingPayment(): Promise<{ user: SignedUpUser; id: string }> {
  const user = await signUp(platform);
  await onboard(platform, user, 'candidate');
  const created = await cap(platform, user, 'POST', '/applications', {
    headers: asCandidate,
    json: { type: 'RPL', sectorId, tradeId, unitIds: [], centreId },
  });
  const id = created.body.data.id as string;
  await cap(platform, user, 'PATCH', `/applications/${id}`, { headers: asCandidate, json: form });
  const submitted = await cap(platform, user, 'POST', `/applications/${id}/submit`, { headers: asCandidate });
  if (submitted.status !== 200) throw new Error(submitted.text);
  return { user, id };
}

const referenceOf = async (paymentId: string) =>
  (
    await sql<{ reference: string }>(platform, 'SELECT reference FROM cap.application_payments WHERE payment_id = $1', [
      paymentId,
    ])
  )[0]!.reference;
const walletOf = async () =>
  (await cap(platform, owner, 'GET', '/centre/wallet', { headers: asCentre() })).body.data.balance;

test.serial(
  'without a centre price the quote is the platform floor; a price below the floor is refused, one above it is quoted',
  async (t) => {
    const { user, id } = await awaitingPayment();
    t.deepEqual(
      (await cap(platform, user, 'GET', `/applications/${id}/payment-quote`, { headers: asCandidate })).body.data,
      { amountMinorUnits: '2500000', currency: 'NGN', source: 'platform_floor' },
    );
    const low = await cap(platform, owner, 'POST', '/centre/pricing', {
      headers: asCentre(),
      json: { applicationType: 'RPL', price: ngn('100000') },
    });
    t.is(low.status, 422);
    t.is(low.body.error.code, 'pricing.below_floor');
    const set = await cap(platform, owner, 'PUT', '/centre/pricing', {
      headers: asCentre(),
      json: {
        items: [
          { applicationType: 'RPL', price: ngn('3000000') },
          { applicationType: 'NSQ', price: ngn('2000000') },
        ],
      },
    });
    t.is(set.status, 200, set.text);
    const prices = (await cap(platform, owner, 'GET', '/centre/pricing', { headers: asCentre() })).body.data;
    t.deepEqual(
      prices.map((p: { applicationType: string; price: unknown }) => [p.applicationType, p.price]),
      [
        ['NSQ', ngn('2000000')],
        ['RPL', ngn('3000000')],
      ],
    );
    t.deepEqual(
      (await cap(platform, user, 'GET', `/applications/${id}/payment-quote`, { headers: asCandidate })).body.data,
      { amountMinorUnits: '3000000', currency: 'NGN', source: 'centre' },
    );
  },
);

test.serial(
  'paying through the sandbox checkout moves the application on, gives a receipt and credits the wallet net of the 10% fee',
  async (t) => {
    const before = BigInt((await walletOf()).amountMinorUnits);
    const { user, id } = await awaitingPayment();
    const paid = await cap(platform, user, 'POST', `/applications/${id}/pay`, { headers: asCandidate });
    t.is(paid.status, 200, paid.text);
    t.regex(paid.body.data.checkoutUrl, /^http/);
    const again = await cap(platform, user, 'POST', `/applications/${id}/pay`, { headers: asCandidate });
    t.deepEqual(again.body.data, paid.body.data, 'a pending attempt is answered again, not charged twice');

    t.is((await payCheckout(platform, await referenceOf(paid.body.data.paymentId))).status, 200);
    await eventually(
      'the application leaves the payment stage',
      async () =>
        (await cap(platform, user, 'GET', `/applications/${id}`, { headers: asCandidate })).body.data
          .currentStageKey === 'folder_arrangement',
    );

    const receipt = (await cap(platform, user, 'GET', `/applications/${id}/receipt`, { headers: asCandidate })).body
      .data;
    t.like(receipt, {
      status: 'completed',
      paymentId: paid.body.data.paymentId,
      amount: ngn('3000000'),
      applicationType: 'RPL',
      candidateName: 'Sule Ibrahim',
      provider: 'sandbox',
    });
    t.truthy(receipt.paidAt);
    t.like(
      (await cap(platform, owner, 'GET', `/applications/${id}/receipt`, { headers: asCentre() })).body.data,
      { status: 'completed' },
      'the centre reads it too',
    );
    const stages = (await cap(platform, user, 'GET', `/applications/${id}/stages`, { headers: asCandidate })).body.data;
    t.like(stages[1], { stageKey: 'payment', status: 'successful', amountMinorUnits: '3000000', currency: 'NGN' });
    t.like(stages[2], { stageKey: 'folder_arrangement', status: 'in_progress' });

    t.is(BigInt((await walletOf()).amountMinorUnits) - before, 2700000n, 'gross 30,000 less the 10% fee');
    const ledger = await paymentLedger(platform, paid.body.data.paymentId);
    t.deepEqual(ledger, [
      { kind: 'application_payment', amount_minor: '3000000' },
      { kind: 'platform_fee', amount_minor: '-300000' },
    ]);
    t.like((await cap(platform, owner, 'GET', '/centre/payments/summary', { headers: asCentre() })).body.data, {
      completedCount: 1,
    });
    const listed = (await cap(platform, owner, 'GET', '/centre/payments?status=completed', { headers: asCentre() }))
      .body.data;
    t.like(listed[0], {
      applicationId: id,
      candidateName: 'Sule Ibrahim',
      amount: ngn('3000000'),
      receiptAvailable: true,
    });

    // Platform staff see every centre's payments and what the platform took.
    t.like((await cap(platform, admin, 'GET', '/admin/payments/summary')).body.data, {
      platformFees: ngn('300000'),
      walletDeposits: ngn('3000000'),
    });
    t.like((await cap(platform, admin, 'GET', '/admin/payments?status=completed')).body.data[0], {
      applicationId: id,
      centreId,
    });
    t.is((await cap(platform, owner, 'GET', '/admin/payments')).body.error.code, 'auth.permission_denied');
  },
);

test.serial(
  'a completed payment has a receipt PDF stored in the Orchestrator, the same document for the payer, the centre and platform staff, and nobody else',
  async (t) => {
    const { user, id } = await awaitingPayment();
    const pending = await cap(platform, user, 'POST', `/applications/${id}/pay`, { headers: asCandidate });
    const reference = await referenceOf(pending.body.data.paymentId);
    t.like(
      (await cap(platform, user, 'GET', `/applications/${id}/receipt`, { headers: asCandidate })).body.data,
      { status: 'pending', assetId: null, url: null },
      'no document before the payment completes',
    );
    await payCheckout(platform, reference);
    await eventually(
      'the payment completes in CAP',
      async () =>
        (await cap(platform, user, 'GET', `/applications/${id}/receipt`, { headers: asCandidate })).body.data.status ===
        'completed',
    );

    // Readers at once get one document.
    const [mine, centres, staff] = await Promise.all([
      cap(platform, user, 'GET', `/applications/${id}/receipt`, { headers: asCandidate }),
      cap(platform, owner, 'GET', `/applications/${id}/receipt`, { headers: asCentre() }),
      cap(platform, admin, 'GET', `/admin/payments/${id}/receipt`),
    ]);
    for (const reply of [mine, centres, staff]) t.is(reply.status, 200, reply.text);
    const assetId = mine.body.data.assetId as string;
    t.regex(assetId, /^[0-9A-HJKMNP-TV-Z]{26}$/);
    t.deepEqual([centres.body.data.assetId, staff.body.data.assetId], [assetId, assetId]);
    for (const reply of [mine, centres, staff]) {
      const file = await fetch(reply.body.data.url);
      t.is(file.status, 200);
      t.is(file.headers.get('content-type'), 'application/pdf');
      const text = await pdfText(new Uint8Array(await file.arrayBuffer()));
      for (const fact of ['Payment Receipt', 'Sule Ibrahim', reference, 'NGN', '30,000.00', 'RPL application fee'])
        t.true(text.includes(fact), `${fact} in ${text}`);
    }
    // The payer owns the asset in the Orchestrator's storage; another user cannot resolve it.
    const resolve = (who: SignedUpUser) =>
      call('POST', platform.url('/v1/ol/storage/resolve'), { token: who.accessToken, json: { assetIds: [assetId] } });
    t.is((await resolve(user)).body.data[0]?.assetId, assetId);
    const stranger = await signUp(platform);
    await onboard(platform, stranger, 'candidate');
    t.deepEqual((await resolve(stranger)).body.data ?? [], []);
    t.is(
      (await cap(platform, stranger, 'GET', `/applications/${id}/receipt`, { headers: asCandidate })).body.error.code,
      'auth.out_of_scope',
    );
    t.is(
      (await cap(platform, stranger, 'GET', `/admin/payments/${id}/receipt`)).body.error.code,
      'auth.permission_denied',
    );
    t.is((await cap(platform, admin, 'GET', '/admin/payments/01ARZ3NDEKTSV4RRFFQ69G5FAV/receipt')).status, 404);
    t.deepEqual(
      await sql(
        platform,
        `SELECT count(*)::int AS n FROM ol.storage_assets WHERE purpose = 'receipt' AND file_name = $1`,
        [`receipt-${reference}.pdf`],
      ),
      [{ n: 1 }],
      'one document, however many read it at once',
    );
  },
);

test.serial('after a declined checkout the next pay starts a new payment, and that one completes', async (t) => {
  const { user, id } = await awaitingPayment();
  const first = (await cap(platform, user, 'POST', `/applications/${id}/pay`, { headers: asCandidate })).body.data;
  await declineCheckout(platform, await referenceOf(first.paymentId));
  await eventually(
    'CAP hears the payment failed',
    async () =>
      (
        await sql<{ status: string }>(platform, 'SELECT status FROM cap.application_payments WHERE payment_id = $1', [
          first.paymentId,
        ])
      )[0]!.status === 'failed',
  );
  t.like((await cap(platform, user, 'GET', `/applications/${id}/receipt`, { headers: asCandidate })).body.data, {
    status: 'failed',
    paymentId: first.paymentId,
  });
  const second = (await cap(platform, user, 'POST', `/applications/${id}/pay`, { headers: asCandidate })).body.data;
  t.not(second.paymentId, first.paymentId);
  await payCheckout(platform, await referenceOf(second.paymentId));
  await eventually(
    'the application leaves the payment stage',
    async () =>
      (await cap(platform, user, 'GET', `/applications/${id}`, { headers: asCandidate })).body.data.currentStageKey ===
      'folder_arrangement',
  );
  t.like((await cap(platform, user, 'GET', `/applications/${id}/receipt`, { headers: asCandidate })).body.data, {
    status: 'completed',
    paymentId: second.paymentId,
  });
});

test.serial('only an application at the payment stage is paid (409), and only by its candidate', async (t) => {
  const { user, id } = await awaitingPayment();
  const stranger = await signUp(platform);
  await onboard(platform, stranger, 'candidate');
  t.is(
    (await cap(platform, stranger, 'POST', `/applications/${id}/pay`, { headers: asCandidate })).body.error.code,
    'auth.out_of_scope',
  );
  await sql(platform, `UPDATE cap.applications SET current_stage_key = 'interview' WHERE id = $1`, [id]);
  const late = await cap(platform, user, 'POST', `/applications/${id}/pay`, { headers: asCandidate });
  t.is(late.status, 409);
  t.is(late.body.error.code, 'application.not_in_stage');
  t.is(
    (await cap(platform, user, 'GET', `/applications/${id}/receipt`, { headers: asCandidate })).status,
    404,
    'no receipt before a payment',
  );
});

test.serial(
  "a withdrawal in another currency than the wallet's is 409 wallet.currency_mismatch and takes nothing",
  async (t) => {
    await sql(
      platform,
      `UPDATE cap.centres SET account_details = '{"bank":"Access Bank","accountNo":"0123456789"}' WHERE id = $1`,
      [centreId],
    );
    const before = await walletOf();
    t.is(before.currency, 'NGN');
    t.true(BigInt(before.amountMinorUnits) >= 100n);
    const res = await cap(platform, owner, 'POST', '/centre/wallet/withdraw', {
      headers: asCentre(),
      json: { amount: { amountMinorUnits: '100', currency: 'USD' } },
    });
    t.is(res.status, 409);
    t.is(res.body.error.code, 'wallet.currency_mismatch');
    t.deepEqual(res.body.error.details, [{ field: 'amount.currency', issue: "must be NGN, the wallet's currency" }]);
    t.deepEqual(await walletOf(), before);
    t.deepEqual(
      await sql(platform, `SELECT 1 FROM cap.wallet_entries WHERE centre_id = $1 AND kind = 'withdrawal'`, [centreId]),
      [],
    );
  },
);

test.serial(
  '20 concurrent withdrawals against a balance that covers 5: five succeed and the balance never goes below zero',
  async (t) => {
    await sql(
      platform,
      `UPDATE cap.centres SET account_details = '{"bank":"Access Bank","accountNo":"0123456789"}' WHERE id = $1`,
      [centreId],
    );
    const balance = BigInt((await walletOf()).amountMinorUnits);
    t.true(balance > 0n);
    const slice = balance / 5n;
    const remainder = balance - slice * 5n;
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        cap(platform, owner, 'POST', '/centre/wallet/withdraw', {
          headers: asCentre(),
          json: { amount: ngn(String(slice)) },
        }),
      ),
    );
    t.is(results.filter((r) => r.status === 200).length, 5);
    t.true(results.filter((r) => r.status !== 200).every((r) => r.body.error.code === 'wallet.insufficient_funds'));
    t.is((await walletOf()).amountMinorUnits, String(remainder));
  },
);

test.serial('a withdrawal needs the centre bank account (409 wallet.no_bank_account)', async (t) => {
  await sql(platform, `UPDATE cap.centres SET account_details = NULL WHERE id = $1`, [centreId]);
  const res = await cap(platform, owner, 'POST', '/centre/wallet/withdraw', {
    headers: asCentre(),
    json: { amount: ngn('1') },
  });
  t.is(res.status, 409);
  t.is(res.body.error.code, 'wallet.no_bank_account');
});

test.serial(
  "the centre dashboard counts this year's submitted applications, revenue by month, gender, stages and staff activity from real rows",
  async (t) => {
    const year = new Date().getUTCFullYear();
    const month = new Date().getUTCMonth() + 1;
    const [row] = await sql<{ n: number; revenue: string }>(
      platform,
      `SELECT (SELECT count(*)::int FROM cap.applications WHERE centre_id = $1 AND submitted_at IS NOT NULL) AS n,
            (SELECT coalesce(sum(amount_minor), 0)::text FROM cap.application_payments WHERE centre_id = $1 AND status = 'completed') AS revenue`,
      [centreId],
    );
    const { id } = await awaitingPayment();
    await sql(platform, `UPDATE cap.applications SET current_stage_key = 'folder_arrangement' WHERE id = $1`, [id]);
    await cap(platform, owner, 'POST', `/applications/${id}/review`, {
      headers: asCentre(),
      json: { decision: 'approve' },
    });
    await retainedAssessor(platform, admin, owner, centreId);
    const [retained] = await sql<{ n: number }>(
      platform,
      `SELECT count(*)::int AS n FROM cap.retained_requests WHERE centre_id = $1 AND status = 'approved'`,
      [centreId],
    );

    const res = await cap(platform, owner, 'GET', `/centre/dashboard?year=${year}&applicationType=RPL`, {
      headers: asCentre(),
    });
    t.is(res.status, 200, res.text);
    const data = res.body.data;
    t.like(data, {
      year,
      applicationType: 'RPL',
      kpis: { applications: row!.n + 1, staff: 1, assessors: retained!.n, revenue: ngn(row!.revenue) },
    });
    t.true(retained!.n >= 1);
    t.deepEqual(data.revenueByMonth.find((m: { month: number }) => m.month === month).amount, ngn(row!.revenue));
    t.is(data.revenueByMonth.length, 12);
    t.like(data.applicationsByTrade[0], { id: tradeId, name: 'Electrical Installation', count: row!.n + 1 });
    t.like(
      data.genderDistribution.find((g: { gender: string }) => g.gender === 'male'),
      { count: row!.n + 1 },
      "the form's 'Male'",
    );
    const [atInterview] = await sql<{ n: number }>(
      platform,
      `SELECT count(*)::int AS n FROM cap.applications WHERE centre_id = $1 AND status = 'in_progress' AND current_stage_key = 'interview'`,
      [centreId],
    );
    t.like(
      data.candidatesByStage.find((s: { stageKey: string }) => s.stageKey === 'interview'),
      { count: atInterview!.n },
    );
    t.like(data.staffActivity[0], {
      action: 'approve',
      role: 'super_admin',
      metadata: { applicationId: id, fromStage: 'folder_arrangement', toStage: 'interview' },
    });
    t.is(
      (await cap(platform, owner, 'GET', `/centre/dashboard?year=${year - 1}`, { headers: asCentre() })).body.data.kpis
        .applications,
      0,
      'another year has none',
    );

    const summary = (await cap(platform, owner, 'GET', '/centre/applications/summary', { headers: asCentre() })).body
      .data;
    t.is(summary.total, summary.pending + summary.ongoing + summary.completed + summary.archived);
    t.true(summary.ongoing >= 1);
  },
);

test.serial(
  "the centre's payments page by cursor (newest first, each once, the status filter kept); a cursor that is no payment of the list is 422",
  async (t) => {
    for (let i = 0; i < 2; i++) {
      const { user, id } = await awaitingPayment();
      t.is((await cap(platform, user, 'POST', `/applications/${id}/pay`, { headers: asCandidate })).status, 200);
    }
    const expected = await sql<{ application_id: string }>(
      platform,
      `SELECT application_id FROM cap.application_payments WHERE centre_id = $1 AND status = 'pending' ORDER BY id DESC`,
      [centreId],
    );
    t.true(expected.length >= 2);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await cap(
        platform,
        owner,
        'GET',
        `/centre/payments?status=pending&limit=1${cursor ? `&cursor=${cursor}` : ''}`,
        {
          headers: asCentre(),
        },
      );
      t.is(page.status, 200, page.text);
      seen.push(...page.body.data.map((p: { applicationId: string; status: string }) => p.applicationId));
      cursor = page.body.meta.pagination.nextCursor;
    } while (cursor && seen.length <= expected.length);
    t.deepEqual(
      seen,
      expected.map((row) => row.application_id),
    );

    const unknown = Buffer.from(JSON.stringify({ after: '01ARZ3NDEKTSV4RRFFQ69G5FAV' })).toString('base64url');
    const refused = await cap(platform, owner, 'GET', `/centre/payments?cursor=${unknown}`, { headers: asCentre() });
    t.is(refused.status, 422);
    t.is(refused.body.error.code, 'validation.failed');
    const [completed] = await sql<{ id: string }>(
      platform,
      `SELECT id FROM cap.application_payments WHERE centre_id = $1 AND status = 'completed'`,
      [centreId],
    );
    const otherFilter = Buffer.from(JSON.stringify({ after: completed!.id })).toString('base64url');
    t.is(
      (
        await cap(platform, owner, 'GET', `/centre/payments?status=pending&cursor=${otherFilter}`, {
          headers: asCentre(),
        })
      ).status,
      422,
      "a completed payment's cursor is not one of the pending list",
    );
  },
);

test.serial(
  'a centre with applications, prices or wallet entries is in use: deleting it is 409 centre.in_use',
  async (t) => {
    const res = await cap(platform, admin, 'DELETE', `/admin/centres/${centreId}`);
    t.is(res.status, 409);
    t.is(res.body.error.code, 'centre.in_use');
  },
);

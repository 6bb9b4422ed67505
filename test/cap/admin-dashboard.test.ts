import test from 'ava';
import { newId } from '../../server/platform/ids.ts';
import { stagesOf } from '../../server/cap/applications/lifecycle.ts';
import { applicationTargets, cap } from '../helpers/cap.ts';
import { sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { grantPlatformRole, signUp, type SignedUpUser } from '../helpers/users.ts';

// GET /admin/dashboard (openapi/cap/admin-dashboard.yaml): seeded rows across two UTC years and two
// trades; every figure is computed again here, straight from the rows, and compared.
let platform: TestPlatform;
let admin: SignedUpUser;
let trades: string[];

const day = 86_400_000;

test.before(async () => {
  platform = await startTestPlatform();
  const targets = await applicationTargets(platform, { sector: 'Hospitality', trade: 'Catering' });
  admin = targets.admin;
  const second = (
    await cap(platform, admin, 'POST', '/admin/trades', { json: { sectorId: targets.sectorId, name: 'Baking' } })
  ).body.data.id as string;
  trades = [targets.tradeId, second];
  const candidates = await Promise.all(Array.from({ length: 8 }, () => signUp(platform)));
  for (const c of candidates) await cap(platform, c, 'GET', '/me');
  // 36 applications: RPL and NSQ, every depth of progress, some finished, submitted across 2025 and
  // 2026 (one just before midnight on New Year's Eve, paid after it).
  for (let i = 0; i < 36; i++) {
    const type = i % 3 === 0 ? 'NSQ' : 'RPL';
    const stages = stagesOf[type];
    const depth = i % stages.length; // index of the stage reached; 0 = still a draft
    const submittedAt =
      i === 2 ? new Date('2025-12-31T23:30:00Z') : new Date(Date.UTC(2025 + (i % 2), (i * 5) % 12, 10 + (i % 15)));
    const ending =
      depth === stages.length - 1 && i % 2 === 0 ? 'certified' : depth >= 2 && i % 5 === 0 ? 'rejected' : null;
    const id = newId();
    await sql(
      platform,
      `INSERT INTO cap.applications (id, candidate_user_id, centre_id, type, status, current_stage_key, sector_id, trade_id, draft, submitted_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, '{}', $9, $10, $10)`,
      [
        id,
        candidates[i % 8]!.userId,
        targets.centreId,
        type,
        depth === 0 ? 'draft' : (ending ?? 'in_progress'),
        stages[depth],
        targets.sectorId,
        trades[Math.floor(i / 2) % 2],
        depth === 0 ? null : submittedAt,
        new Date(submittedAt.getTime() - day),
      ],
    );
    for (let k = 1; k <= depth; k++) {
      const action = k === 1 ? 'submit' : k === 2 ? 'payment_completed' : 'approve';
      await sql(
        platform,
        `INSERT INTO cap.application_moves (id, application_id, action, from_stage, to_stage, actor, created_at) VALUES ($1, $2, $3, $4, $5, 'centre', $6)`,
        [newId(), id, action, stages[k - 1], stages[k], new Date(submittedAt.getTime() + (k - 1) * day)],
      );
    }
    if (ending) {
      await sql(
        platform,
        `INSERT INTO cap.application_moves (id, application_id, action, from_stage, to_stage, actor, created_at) VALUES ($1, $2, $3, $4, $5, 'centre', $6)`,
        [
          newId(),
          id,
          ending === 'certified' ? 'certify' : 'reject',
          stages[depth],
          ending,
          new Date(submittedAt.getTime() + (depth + 1) * day),
        ],
      );
    }
    if (depth >= 2) {
      const paidAt = new Date(submittedAt.getTime() + 3_600_000);
      const amount = 50_000 + i * 100;
      const paymentId = `pay_${id}`;
      await sql(
        platform,
        `INSERT INTO cap.application_payments (id, application_id, centre_id, attempt, payment_id, reference, checkout_url, amount_minor, currency, price_source, status, initiated_at, paid_at)
         VALUES ($1, $2, $3, 1, $4, $4, 'https://pay.test', $5, 'NGN', 'centre', 'completed', $6, $6)`,
        [newId(), id, targets.centreId, paymentId, amount, paidAt],
      );
      await sql(
        platform,
        `INSERT INTO cap.wallet_entries (id, centre_id, kind, amount_minor, currency, payment_id, application_id, created_at) VALUES ($1, $2, 'platform_fee', $3, 'NGN', $4, $5, $6)`,
        [newId(), targets.centreId, -amount / 10, paymentId, id, paidAt],
      );
    }
  }
});
test.after.always(() => platform?.stop());

/** The figures again, from the rows, by other means (date ranges instead of extracted years). */
async function expected(year: number, tradeId: string | null) {
  const from = `${year}-01-01T00:00:00Z`;
  const to = `${year + 1}-01-01T00:00:00Z`;
  const scope = `submitted_at >= $1 AND submitted_at < $2 AND ($3::text IS NULL OR trade_id = $3)`;
  const one = async (text: string) => Object.values((await sql(platform, text, [from, to, tradeId]))[0]!)[0];
  const apps = await sql<{ id: string; type: string; status: string; current_stage_key: string; submitted_at: Date }>(
    platform,
    `SELECT * FROM cap.applications WHERE ${scope}`,
    [from, to, tradeId],
  );
  const moves = await sql<{ application_id: string; to_stage: string }>(
    platform,
    `SELECT application_id, to_stage FROM cap.application_moves WHERE application_id = ANY($1)`,
    [apps.map((a) => a.id)],
  );
  const stageKeys = [
    'payment',
    'folder_arrangement',
    'interview',
    'induction',
    'unit_assessment',
    'internal_verification',
    'external_verification',
    'certification',
  ];
  const paidIn = `status = 'completed' AND paid_at >= $1 AND paid_at < $2 AND application_id IN (SELECT id FROM cap.applications WHERE $3::text IS NULL OR trade_id = $3)`;
  return {
    kpis: {
      applications: apps.length,
      candidates: Number(await one(`SELECT count(DISTINCT candidate_user_id) FROM cap.applications WHERE ${scope}`)),
      certified: Number(
        await one(
          `SELECT count(*) FROM cap.application_moves WHERE action IN ('certify', 'certify_bypass') AND created_at >= $1 AND created_at < $2 AND application_id IN (SELECT id FROM cap.applications WHERE $3::text IS NULL OR trade_id = $3)`,
        ),
      ),
      centres: Number(
        (await sql<{ n: string }>(platform, `SELECT count(*) AS n FROM cap.centres WHERE status = 'approved'`))[0]!.n,
      ),
      assessors: Number(
        (
          await sql<{ n: string }>(
            platform,
            `SELECT count(*) AS n FROM cap.assessor_profiles WHERE status = 'approved'`,
          )
        )[0]!.n,
      ),
      revenue: {
        amountMinorUnits: String(
          await one(`SELECT coalesce(sum(amount_minor), 0) FROM cap.application_payments WHERE ${paidIn}`),
        ),
        currency: 'NGN',
      },
      platformFees: {
        amountMinorUnits: String(
          await one(
            `SELECT coalesce(-sum(amount_minor), 0) FROM cap.wallet_entries WHERE kind = 'platform_fee' AND created_at >= $1 AND created_at < $2 AND application_id IN (SELECT id FROM cap.applications WHERE $3::text IS NULL OR trade_id = $3)`,
          ),
        ),
        currency: 'NGN',
      },
    },
    applicationsByMonth: Array.from({ length: 12 }, (_, i) => ({
      month: i + 1,
      count: apps.filter((a) => a.submitted_at.getUTCMonth() === i).length,
    })),
    applicationsByType: ['RPL', 'NSQ'].map((type) => ({ type, count: apps.filter((a) => a.type === type).length })),
    atStage: stageKeys.map(
      (stageKey) => apps.filter((a) => a.status === 'in_progress' && a.current_stage_key === stageKey).length,
    ),
    reached: stageKeys.map(
      (stageKey) => new Set(moves.filter((m) => m.to_stage === stageKey).map((m) => m.application_id)).size,
    ),
  };
}

for (const [year, trade] of [
  [2025, null],
  [2026, null],
  [2025, 0],
  [2026, 1],
] as const) {
  test(`the figures of ${year}${trade === null ? '' : ` for trade ${trade + 1}`} equal those computed from the rows`, async (t) => {
    const tradeId = trade === null ? null : trades[trade]!;
    const res = await cap(
      platform,
      admin,
      'GET',
      `/admin/dashboard?year=${year}${tradeId ? `&tradeId=${tradeId}` : ''}`,
    );
    t.is(res.status, 200, res.text);
    const data = res.body.data;
    const want = await expected(year, tradeId);
    t.is(data.year, year);
    t.is(data.tradeId, tradeId);
    t.deepEqual(data.kpis, want.kpis);
    t.true(data.kpis.applications > 0, 'the seed has applications in this scope');
    if (tradeId)
      t.true(
        data.kpis.applications < (await expected(year, null)).kpis.applications,
        'the trade filter leaves the other trade out',
      );
    t.deepEqual(data.applicationsByMonth, want.applicationsByMonth);
    t.deepEqual(data.applicationsByType, want.applicationsByType);
    t.deepEqual(
      data.pipeline.atStage.map((s: { count: number }) => s.count),
      want.atStage,
    );
    t.deepEqual(
      data.pipeline.reached.map((s: { count: number }) => s.count),
      want.reached,
    );
    for (const [i, stage] of data.pipeline.reached.entries())
      t.true(stage.count >= data.pipeline.atStage[i].count, `${stage.stageKey}: reached >= at stage`);
    const revenue = data.revenueByMonth.reduce(
      (sum: bigint, m: { amount: { amountMinorUnits: string } }) => sum + BigInt(m.amount.amountMinorUnits),
      0n,
    );
    t.is(revenue.toString(), want.kpis.revenue.amountMinorUnits, 'the months add up to the year');
    t.is(
      data.applicationsByTrade.reduce((sum: number, row: { count: number }) => sum + row.count, 0),
      want.kpis.applications,
    );
  });
}

test("a payment made after midnight on New Year's Eve counts in the new UTC year", async (t) => {
  const [row] = await sql<{ paid: string }>(
    platform,
    `SELECT to_char(p.paid_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS paid FROM cap.application_payments p JOIN cap.applications a ON a.id = p.application_id WHERE a.submitted_at = '2025-12-31T23:30:00Z'`,
  );
  t.regex(row!.paid, /^2026-01-01/);
  const in2026 = (await cap(platform, admin, 'GET', '/admin/dashboard?year=2026')).body.data;
  t.not(in2026.revenueByMonth[0].amount.amountMinorUnits, '0');
});

test('the dashboard needs platform.dashboard.read (403 auth.permission_denied), and a year out of range is 422', async (t) => {
  const finance = await signUp(platform);
  await grantPlatformRole(platform, finance, 'platform_finance');
  const refused = await cap(platform, finance, 'GET', '/admin/dashboard');
  t.is(refused.status, 403);
  t.is(refused.body.error.code, 'auth.permission_denied');
  t.is((await cap(platform, admin, 'GET', '/admin/dashboard?year=1999')).status, 422);
  const thisYear = await cap(platform, admin, 'GET', '/admin/dashboard');
  t.is(thisYear.body.data.year, new Date().getUTCFullYear());
});

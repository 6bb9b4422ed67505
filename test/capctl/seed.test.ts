import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCapctl, startServe, type RunningServe } from '../helpers/cli.ts';
import { call, sql } from '../helpers/platform.ts';
import { testDatabase, type TestDatabase } from '../helpers/postgres.ts';

// capctl seed against a running capctl serve, as an admin seeds a fresh platform (seeds/README.md).
const freePorts = [
  '--port',
  '0',
  '--ol-port',
  '0',
  '--cap-port',
  '0',
  '--lms-port',
  '0',
  '--grpc-port',
  '0',
  '--lms-grpc-port',
  '0',
];
let database: TestDatabase;
let databaseUrl: string;
let serve: RunningServe;
test.before(async () => {
  database = await testDatabase();
  databaseUrl = database.url;
  serve = await startServe(['--no-service-ports', ...freePorts], { DATABASE_URL: databaseUrl });
});
test.after.always(async () => {
  await serve?.stop();
  await database?.drop();
});

const seed = (...args: string[]) =>
  runCapctl(['seed', '--base-url', serve.urls.gateway!, '--database-url', databaseUrl, ...args]);
const writeSeed = (text: string) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-seed-'));
  fs.writeFileSync(path.join(dir, 'bad.yaml'), text);
  return dir;
};

test.serial('a dry run on a fresh platform plans everything and writes nothing', async (t) => {
  const res = await seed('--dry-run', '--json');
  t.is(res.code, 0, res.stderr);
  const report = JSON.parse(res.stdout);
  t.true(report.dryRun);
  t.is(report.counts.sectors.created, 9);
  t.is(report.counts.trades.created, 29);
  t.deepEqual(await sql({ databaseUrl }, 'SELECT id FROM cap.sectors'), []);
});

test.serial(
  'seeding twice: the first run creates the catalogue, centres and people, the second changes nothing',
  async (t) => {
    const first = await seed('--json');
    t.is(first.code, 0, first.stderr + first.stdout);
    const created = JSON.parse(first.stdout).counts;
    t.like(created, {
      sectors: { created: 9 },
      trades: { created: 29 },
      nosDocuments: { created: 29 },
      centres: { created: 4 },
      centreStaff: { created: 3 },
      platformAdmins: { created: 1 },
    });
    t.like(created, { assessors: { created: 3 }, retainedRequests: { created: 5 } });
    const retained = await sql<{ n: number }>(
      { databaseUrl },
      `SELECT count(*)::int AS n FROM cap.retained_requests r JOIN cap.assessor_profiles p ON p.id = r.assessor_id WHERE r.status = 'approved' AND p.status = 'approved'`,
    );
    t.is(retained[0]!.n, 5, 'every seeded assessor is approved and retained by their centres');
    t.like(created, { lmsAdmins: { created: 1 }, lmsCourses: { created: 3 }, lmsLevelOfferings: { created: 1 } });

    const again = await seed();
    t.is(again.code, 0, again.stderr);
    t.regex(again.stdout, /nothing to change: the platform already matches the seeds/);
    t.regex(again.stdout, /sectors\s+0 created, 0 updated, 9 unchanged/);
    t.regex(again.stdout, /retainedRequests\s+0 created, 0 updated, 5 unchanged/);

    const sectors = (await call('GET', `${serve.urls.gateway}/v1/cap/sectors`)).body.data as Array<{
      slug: string;
      tradeCount: number;
    }>;
    t.is(sectors.length, 9);
    t.is(sectors.find((s) => s.slug === 'building-construction')!.tradeCount, 5);
    const centres = (await call('GET', `${serve.urls.gateway}/v1/cap/centres?limit=100`)).body.data;
    t.is(centres.length, 4);
    const [course] = await sql<{ status: string; package_asset_id: string }>(
      { databaseUrl },
      `SELECT c.status, i.package_asset_id FROM lms.lms_courses c JOIN lms.lms_items i ON i.course_id = c.id WHERE c.title = 'Workshop safety'`,
    );
    t.is(course!.status, 'published', 'the SCORM course is published with its package uploaded to storage');
    t.truthy(course!.package_asset_id);
    const [offering] = await sql<{ status: string; level: string; units: string[] }>(
      { databaseUrl },
      `SELECT o.status, l.level::text AS level, array_agg(u.reference_number ORDER BY u.reference_number) AS units
       FROM lms.lms_level_offerings o JOIN cap.qualification_levels l ON l.id = o.cap_qualification_level_id
       JOIN lms.lms_level_offering_courses m ON m.offering_id = o.id JOIN lms.lms_courses c ON c.id = m.course_id JOIN cap.units u ON u.id = c.unit_id
      WHERE o.title = 'Tiling, level 2' GROUP BY o.status, l.level`,
    );
    t.deepEqual(
      offering,
      { status: 'published', level: '2', units: ['TIL/L2/01', 'TIL/L2/02'] },
      'the level offering sells the courses of the seeded units of tiling level 2',
    );
  },
);

test.serial('a trade archived after seeding leaves the public catalogue; seeding again restores it', async (t) => {
  const [trade] = await sql<{ id: string; sector_id: string }>(
    { databaseUrl },
    `SELECT id, sector_id FROM cap.trades WHERE slug = 'tiling'`,
  );
  await sql({ databaseUrl }, `UPDATE cap.trades SET status = 'archived', archived_at = now() WHERE id = $1`, [
    trade!.id,
  ]);
  const sectors = (await call('GET', `${serve.urls.gateway}/v1/cap/sectors`)).body.data as Array<{
    id: string;
    tradeCount: number;
  }>;
  t.is(sectors.find((s) => s.id === trade!.sector_id)!.tradeCount, 4);
  t.is((await call('GET', `${serve.urls.gateway}/v1/cap/trades/${trade!.id}`)).status, 404);
  const again = await seed('--only', 'catalogue', '--json');
  t.is(JSON.parse(again.stdout).counts.trades.updated, 1);
  t.is((await call('GET', `${serve.urls.gateway}/v1/cap/trades/${trade!.id}`)).status, 200);
});

test('a bad seed file is refused before anything is written, with its file, line and column (exit 2)', async (t) => {
  const dir = writeSeed(
    'sector:\n  slug: Not A Slug\n  name: Broken\n  trades:\n    - { slug: ok-trade, name: Fine, colour: red }\n',
  );
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const res = await seed(dir);
  t.is(res.code, 2);
  t.regex(res.stderr, /bad\.yaml:2:9: sector\.slug: must be lowercase letters and digits joined by single hyphens/);
  t.regex(res.stderr, /bad\.yaml:5:37: sector\.trades\[0\]\.colour: unknown field/);
  t.is((await sql({ databaseUrl }, `SELECT id FROM cap.sectors WHERE name = 'Broken'`)).length, 0);
});

test('--only takes the seed kinds only (exit 2 otherwise)', async (t) => {
  const res = await seed('--only', 'banks');
  t.is(res.code, 2);
  t.regex(res.stderr, /--only takes catalogue, centres, people, assessors and lms, not banks/);
});

import test from 'ava';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { runCapctl, startServe, type RunningServe } from '../helpers/cli.ts';
import { candidateWithApplication } from '../helpers/cap.ts';
import { call, sql, type TestPlatform } from '../helpers/platform.ts';
import { testDatabase, type TestDatabase } from '../helpers/postgres.ts';

// capctl seed at scale and its plan (issue 28): the plan is what the run does, problems are found before
// the first write, and seeding never fails a sign-in.
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
const dirs: string[] = [];
test.before(async () => {
  database = await testDatabase();
  databaseUrl = database.url;
  serve = await startServe(['--no-service-ports', ...freePorts], { DATABASE_URL: databaseUrl });
  // The acting platform admin, as the bundled people.yaml makes it.
  const res = await seed(seedDir({}));
  if (res.code !== 0) throw new Error(res.stderr + res.stdout);
});
test.after.always(async () => {
  await serve?.stop();
  await database?.drop();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

function seed(...args: string[]) {
  return runCapctl(['seed', '--base-url', serve.urls.gateway!, '--database-url', databaseUrl, ...args]);
}
/** A folder of seed files, with the platform admin that `capctl seed` acts as. */
function seedDir(files: Record<string, unknown>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-seed-plan-'));
  dirs.push(dir);
  const people = {
    people: { platformAdmins: [{ name: 'Platform Admin', email: 'admin@example.test', password: 'Admin-pass-2024' }] },
  };
  for (const [file, data] of Object.entries({ 'people.yaml': people, ...files }))
    fs.writeFileSync(path.join(dir, file), typeof data === 'string' ? data : stringify(data));
  return dir;
}
const count = async (query: string, params: unknown[] = []) =>
  (await sql<{ n: number }>({ databaseUrl }, query, params))[0]!.n;

/** A small deterministic generator, so a failing case can be run again. */
function random(seedValue: number) {
  let a = seedValue;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    chance: (p: number) => next() < p,
  };
}

type Generated = { sectors: any[]; centres: any[] };
function generate(prefix: string, r: ReturnType<typeof random>): Generated {
  const sectors = Array.from({ length: r.int(1, 3) }, (_, s) => ({
    slug: `${prefix}-sector-${s}`,
    name: `Sector ${s}`,
    trades: Array.from({ length: r.int(1, 3) }, (_, t) => ({
      slug: `${prefix}-trade-${s}-${t}`,
      name: `Trade ${s}.${t}`,
      ...(r.chance(0.7)
        ? {
            nos: {
              title: `Trade ${s}.${t} (NOS)`,
              levels: Array.from({ length: r.int(1, 2) }, (_, l) => ({
                level: l + 1,
                purpose: `Level ${l + 1}.`,
                units: Array.from({ length: r.int(1, 2) }, (_, u) => ({
                  referenceNumber: `${prefix.toUpperCase()}/${s}${t}/L${l + 1}/0${u}`,
                  title: `Unit ${u}`,
                  learningOutcomes: [
                    {
                      reference: 'LO1',
                      description: 'Work',
                      performanceCriteria: [{ reference: 'PC1.1', description: 'Safely' }],
                    },
                  ],
                })),
              })),
            },
          }
        : {}),
    })),
  }));
  const centres = Array.from({ length: r.int(1, 3) }, (_, c) => ({
    name: `Centre ${c}`,
    registrationNo: `${prefix.toUpperCase()}-C${c}`,
    address: { country: 'Nigeria', state: 'Lagos', lga: 'Ikeja', address: `${c} Road` },
    superAdmin: { name: `Owner ${c}`, email: `owner${c}@${prefix}.example.test`, password: 'Owner-pass-2024' },
    staff: Array.from({ length: r.int(0, 2) }, (_, m) => ({
      name: `Member ${m}`,
      email: `m${m}.c${c}@${prefix}.example.test`,
      role: m === 0 ? 'regular_admin' : 'staff',
    })),
  }));
  return { sectors, centres };
}

/** Changes an admin might make to their seeds between runs: renames, new trades, staff and centres, a changed NOS. */
function mutate(seeds: Generated, prefix: string, r: ReturnType<typeof random>): Generated {
  const next: Generated = structuredClone(seeds);
  for (const sector of next.sectors) {
    if (r.chance(0.5)) sector.name += ' (renamed)';
    if (r.chance(0.3)) sector.description = 'Now described.';
    for (const trade of sector.trades) {
      if (r.chance(0.3)) trade.name += ' (renamed)';
      if (trade.nos && r.chance(0.4)) trade.nos.levels[0].units[0].title += ' (revised)';
    }
    if (r.chance(0.5)) sector.trades.push({ slug: `${sector.slug}-added`, name: 'Added trade' });
  }
  for (const centre of next.centres) {
    if (r.chance(0.5))
      centre.staff.push({
        name: 'Added member',
        email: `added.${centre.registrationNo.toLowerCase()}@${prefix}.example.test`,
        role: 'staff',
      });
  }
  if (r.chance(0.5)) {
    next.centres.push({
      name: 'Added centre',
      registrationNo: `${prefix.toUpperCase()}-ADDED`,
      superAdmin: { name: 'New Owner', email: `new.owner@${prefix}.example.test`, password: 'Owner-pass-2024' },
      staff: [],
    });
  }
  return next;
}

const files = (seeds: Generated) => ({
  ...Object.fromEntries(seeds.sectors.map((s) => [`${s.slug}.yaml`, { sector: s }])),
  'centres.yaml': { centres: seeds.centres },
});

test.serial(
  'the plan is the run: on generated seeds and platforms, a dry run plans exactly the changes the run then makes, and a second run has nothing to change',
  async (t) => {
    t.timeout(600_000);
    for (const caseSeed of [1, 2, 3]) {
      const r = random(caseSeed);
      const prefix = `gen${caseSeed}`;
      const first = generate(prefix, r);
      const initial = await seed('--json', seedDir(files(first)));
      t.is(initial.code, 0, initial.stderr + initial.stdout);
      // The platform moves on by itself too: an admin archives a seeded trade.
      if (r.chance(0.7))
        await sql({ databaseUrl }, `UPDATE cap.trades SET status = 'archived', archived_at = now() WHERE slug = $1`, [
          first.sectors[0].trades[0].slug,
        ]);

      const dir = seedDir(files(mutate(first, prefix, r)));
      const plan = await seed('--dry-run', '--json', dir);
      t.is(plan.code, 0, plan.stderr);
      const planned = JSON.parse(plan.stdout);
      const trades = await count('SELECT count(*)::int AS n FROM cap.trades');
      const staff = await count('SELECT count(*)::int AS n FROM cap.centre_staff');
      const run = await seed('--json', dir);
      t.is(run.code, 0, run.stderr);
      const done = JSON.parse(run.stdout);
      t.deepEqual(done.counts, planned.counts, `case ${caseSeed}: the counts of the plan and the run`);
      t.deepEqual(done.changes, planned.changes, `case ${caseSeed}: every change and field of the plan is the run's`);
      t.is(
        await count('SELECT count(*)::int AS n FROM cap.trades'),
        trades + (planned.counts.trades?.created ?? 0),
        'the planned new trades were made',
      );
      t.is(
        await count('SELECT count(*)::int AS n FROM cap.centre_staff'),
        staff + (planned.counts.centreStaff?.created ?? 0) + (planned.counts.centres?.created ?? 0),
        'the planned staff (and new centres’ super admins) were added',
      );
      for (const change of planned.changes.filter((c: any) => c.record === 'sectors' && c.diff?.name)) {
        t.is(
          await count('SELECT count(*)::int AS n FROM cap.sectors WHERE slug = $1 AND name = $2', [
            change.label,
            change.diff.name.to,
          ]),
          1,
          'a planned rename is what the platform then holds',
        );
      }
      const again = await seed(dir);
      t.is(again.code, 0, again.stderr);
      t.regex(
        again.stdout,
        /nothing to change: the platform already matches the seeds/,
        `case ${caseSeed}: existing staff are not planned as new`,
      );
    }
  },
);

test.serial(
  'seeding centres never fails a sign-in: new super admins are known as new, and progress is reported off a terminal',
  async (t) => {
    t.timeout(300_000);
    const centres = Array.from({ length: 12 }, (_, c) => ({
      name: `Scale centre ${c}`,
      registrationNo: `SCALE-${c}`,
      address: { country: 'Nigeria', state: 'Kano', lga: 'Nasarawa', address: `${c} Zoo Road` },
      superAdmin: { name: `Owner ${c}`, email: `owner${c}@scale.example.test`, password: 'Owner-pass-2024' },
      staff: [
        { name: `Admin ${c}`, email: `admin${c}@scale.example.test`, role: 'regular_admin' },
        { name: `Staff ${c}`, email: `staff${c}@scale.example.test`, role: 'staff' },
      ],
    }));
    const dir = seedDir({ 'centres.yaml': { centres } });
    const failuresBefore = await count(`SELECT count(*)::int AS n FROM ol.auth_failures WHERE kind = 'login'`);
    const res = await seed('--json', dir);
    t.is(res.code, 0, res.stderr);
    t.like(JSON.parse(res.stdout).counts, { centres: { created: 12 }, centreStaff: { created: 24 } });
    t.is(
      await count(`SELECT count(*)::int AS n FROM ol.auth_failures WHERE kind = 'login'`),
      failuresBefore,
      'no failed sign-in was made',
    );
    t.is(
      await count(
        `SELECT count(*)::int AS n FROM cap.centre_staff s JOIN cap.centres c ON c.id = s.centre_id WHERE c.registration_no LIKE 'SCALE-%' AND s.role = 'super_admin' AND s.status = 'active'`,
      ),
      12,
      'every super admin is active at their centre',
    );
    t.regex(
      res.stderr,
      /seeding: 12\/12 steps done in \d+ s\n$/,
      'off a terminal, progress comes as lines (every 5 s, and at the end)',
    );
    // The web client's centre settings read the centre from the super admin's centre onboarding.
    const login = await call('POST', `${serve.urls.gateway}/v1/ol/auth/login`, {
      json: { email: 'owner3@scale.example.test', password: 'Owner-pass-2024' },
    });
    const onboarding = await call('GET', `${serve.urls.gateway}/v1/cap/onboarding/centre`, {
      token: login.body.data.accessToken,
    });
    t.is(onboarding.body.data.status, 'completed');
    t.like(onboarding.body.data.data.centre, {
      centreInformation: { name: 'Scale centre 3', registrationNo: 'SCALE-3' },
      centreResidentialAddress: { country: 'Nigeria', state: 'Kano', lga: 'Nasarawa', address: '3 Zoo Road' },
    });
    const again = await seed(dir);
    t.regex(again.stdout, /nothing to change/);
    t.is(
      await count(`SELECT count(*)::int AS n FROM ol.auth_failures WHERE kind = 'login'`),
      failuresBefore,
      'a second run signs in no one with a wrong password either',
    );
  },
);

test.serial(
  'a trade moving to another sector is refused with its file and line before anything is written, unless --allow-identity-changes',
  async (t) => {
    const trade = { slug: 'moving-trade', name: 'Moving trade' };
    t.is(
      (await seed(seedDir({ 'a.yaml': { sector: { slug: 'home-sector', name: 'Home', trades: [trade] } } }))).code,
      0,
    );
    const dir = seedDir({
      'b.yaml':
        'sector:\n  slug: other-sector\n  name: Other\n  trades:\n    - slug: moving-trade\n      name: Moving trade\n',
    });
    const plan = await seed('--dry-run', dir);
    t.is(plan.code, 2);
    t.regex(
      plan.stderr,
      /b\.yaml:5:13: the trade moving-trade is in the sector home-sector on the platform, not other-sector/,
    );
    const refused = await seed(dir);
    t.is(refused.code, 2);
    t.is(
      await count(`SELECT count(*)::int AS n FROM cap.sectors WHERE slug = 'other-sector'`),
      0,
      'nothing was written, not even the new sector',
    );
    const moved = await seed('--allow-identity-changes', dir);
    t.is(moved.code, 0, moved.stderr);
    t.regex(moved.stdout, /updated: trades moving-trade\n\s+sector: "home-sector" -> "other-sector"/);
    t.is(
      await count(
        `SELECT count(*)::int AS n FROM cap.trades t JOIN cap.sectors s ON s.id = t.sector_id WHERE t.slug = 'moving-trade' AND s.slug = 'other-sector'`,
      ),
      1,
    );
  },
);

test.serial(
  'a NOS replaced under applications is refused with its file and line before anything is written, unless --allow-identity-changes',
  async (t) => {
    const nos = (unitTitle: string) => ({
      title: 'Plastering (NOS)',
      levels: [
        {
          level: 1,
          purpose: 'Level 1.',
          units: [
            {
              referenceNumber: 'PLS/L1/01',
              title: unitTitle,
              learningOutcomes: [
                {
                  reference: 'LO1',
                  description: 'Work',
                  performanceCriteria: [{ reference: 'PC1.1', description: 'Safely' }],
                },
              ],
            },
          ],
        },
      ],
    });
    const sector = (unitTitle: string) => ({
      sector: {
        slug: 'finishing',
        name: 'Finishing',
        trades: [{ slug: 'plastering', name: 'Plastering', nos: nos(unitTitle) }],
      },
    });
    const centres = {
      centres: [
        {
          name: 'Plaster Centre',
          registrationNo: 'PLS-0001',
          superAdmin: { name: 'Pat Owner', email: 'pat.owner@plaster.example.test', password: 'Owner-pass-2024' },
        },
      ],
    };
    t.is((await seed(seedDir({ 'finishing.yaml': sector('Prepare surfaces'), 'centres.yaml': centres }))).code, 0);
    // A candidate's application on the trade: the platform's NOS version is now in use.
    const platform = { url: (urlPath: string) => `${serve.urls.gateway}${urlPath}` } as TestPlatform;
    const [ids] = await sql<{ sectorId: string; tradeId: string; centreId: string }>(
      { databaseUrl },
      `SELECT t.sector_id AS "sectorId", t.id AS "tradeId", c.id AS "centreId" FROM cap.trades t, cap.centres c WHERE t.slug = 'plastering' AND c.registration_no = 'PLS-0001'`,
    );
    await candidateWithApplication(platform, ids!, { draft: true });
    const versions = () =>
      count(
        `SELECT count(*)::int AS n FROM cap.nos_documents d JOIN cap.trades t ON t.id = d.trade_id WHERE t.slug = 'plastering'`,
      );
    const before = await versions();

    const changed = seedDir({ 'finishing.yaml': sector('Prepare and prime surfaces') });
    for (const args of [['--dry-run', changed], [changed]]) {
      const refused = await seed(...args);
      t.is(refused.code, 2, refused.stdout);
      t.regex(
        refused.stderr,
        /finishing\.yaml:\d+:\d+: the NOS of plastering differs from the platform's version \d+, which applications use/,
      );
    }
    t.is(await versions(), before, 'no NOS version was written');
    const replaced = await seed('--allow-identity-changes', changed);
    t.is(replaced.code, 0, replaced.stderr);
    t.is(await versions(), before + 1, 'imported as the next version');
  },
);

test.serial(
  'every problem a file can have is found before the first write: a unit given twice, an unknown sector, state or LGA (exit 2, file:line:col)',
  async (t) => {
    const unit = (ref: string) =>
      `              - referenceNumber: ${ref}\n                title: A unit\n                learningOutcomes: []\n`;
    const dir = seedDir({
      'sector.yaml': `sector:\n  slug: checked-sector\n  name: Checked\n  trades:\n    - slug: checked-trade\n      name: Checked trade\n      nos:\n        title: Checked (NOS)\n        levels:\n          - level: 1\n            purpose: One.\n            units:\n${unit('CHK/01')}${unit('chk/01')}`,
      'assessors.yaml': stringify({
        assessors: [
          {
            email: 'unknown.sector@assessors.example.test',
            password: 'Assessor-pass-2024',
            personalDetails: {
              firstName: 'Ada',
              lastName: 'Obi',
              dob: '1980-01-01',
              gender: 'Female',
              nationality: 'Nigerian',
            },
            phoneNumber: { countryCode: '+234', number: '8030000000' },
            address: { country: 'Nigeria', state: 'Lagos', lga: 'Nowhere', address: '1 Road' },
            sectors: ['no-such-sector'],
          },
        ],
      }),
      'centres.yaml': stringify({
        centres: [
          {
            name: 'Bad state',
            registrationNo: 'BAD-STATE-1',
            address: { country: 'Nigeria', state: 'Atlantis', address: '1 Road' },
            superAdmin: { name: 'O', email: 'o@bad.example.test' },
          },
        ],
      }),
    });
    const res = await seed(dir);
    t.is(res.code, 2, res.stdout);
    t.regex(
      res.stderr,
      /sector\.yaml:16:34: sector\.trades\[0\]\.nos\.levels\[0\]\.units\[1\]\.referenceNumber: unit reference chk\/01 is given twice/,
    );
    t.regex(res.stderr, /assessors\.yaml:\d+:\d+: assessors\[0\]\.address\.lga: Nowhere is not an LGA of Lagos/);
    t.regex(res.stderr, /centres\.yaml:\d+:\d+: centres\[0\]\.address\.state: Atlantis is not a state of Nigeria/);
    const valid = seedDir({
      'assessors.yaml': stringify({
        assessors: [
          {
            email: 'unknown.sector@assessors.example.test',
            password: 'Assessor-pass-2024',
            personalDetails: {
              firstName: 'Ada',
              lastName: 'Obi',
              dob: '1980-01-01',
              gender: 'Female',
              nationality: 'Nigerian',
            },
            phoneNumber: { countryCode: '+234', number: '8030000000' },
            address: { country: 'Nigeria', state: 'Lagos', lga: 'Ikeja', address: '1 Road' },
            sectors: ['no-such-sector'],
          },
        ],
      }),
    });
    const unknown = await seed(valid);
    t.is(unknown.code, 2);
    t.regex(unknown.stderr, /assessors\.yaml:\d+:\d+: no seed file or the platform has the sector no-such-sector/);
    t.is(
      await count(`SELECT count(*)::int AS n FROM ol.users WHERE email = 'unknown.sector@assessors.example.test'`),
      0,
      "the assessor's account was not registered",
    );
    t.is(await count(`SELECT count(*)::int AS n FROM cap.sectors WHERE slug = 'checked-sector'`), 0);
  },
);

test.serial(
  "a super admin registered but never verified (a seed stopped between the two) is verified with the new code by the next seed, not the first mail's",
  async (t) => {
    const email = 'unverified-owner@seed.example.test';
    const registered = await call('POST', `${serve.urls.gateway}/v1/ol/auth/register`, {
      json: { email, password: 'Owner-pass-2024', intents: ['cap'] },
    });
    t.is(registered.status, 201);
    // The first registration's mail is in the mailbox before the seed runs.
    for (
      let i = 0;
      i < 100 &&
      !(await call('GET', `${serve.urls.gateway}/v1/ol/dev/mailbox?to=${encodeURIComponent(email)}`)).body.data.length;
      i++
    )
      await new Promise((resolve) => setTimeout(resolve, 50));
    const dir = seedDir({
      'centres.yaml': {
        centres: [
          {
            name: 'Unverified owner centre',
            registrationNo: 'UNVERIFIED-OWNER',
            superAdmin: { name: 'Owner', email, password: 'Owner-pass-2024' },
          },
        ],
      },
    });
    const run = await seed(dir);
    t.is(run.code, 0, run.stderr);
    t.is(
      await count(
        `SELECT count(*)::int AS n FROM cap.centre_staff s JOIN cap.centres c ON c.id = s.centre_id WHERE c.registration_no = 'UNVERIFIED-OWNER' AND s.role = 'super_admin' AND s.status = 'active'`,
      ),
      1,
    );
  },
);

test.serial('a seed killed halfway and run again completes with nothing made twice', async (t) => {
  t.timeout(300_000);
  const centres = Array.from({ length: 16 }, (_, c) => ({
    name: `Resumed centre ${c}`,
    registrationNo: `RESUME-${c}`,
    superAdmin: { name: `Owner ${c}`, email: `owner${c}@resume.example.test`, password: 'Owner-pass-2024' },
    staff: [{ name: `Staff ${c}`, email: `staff${c}@resume.example.test`, role: 'staff' }],
  }));
  const dir = seedDir({ 'centres.yaml': { centres } });
  const made = () => count(`SELECT count(*)::int AS n FROM cap.centres WHERE registration_no LIKE 'RESUME-%'`);
  const child = spawn(
    process.execPath,
    [path.resolve('bin/capctl'), 'seed', '--base-url', serve.urls.gateway!, '--database-url', databaseUrl, dir],
    { stdio: 'ignore' },
  );
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const deadline = Date.now() + 120_000;
  while ((await made()) < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  child.kill('SIGKILL');
  await exited;
  await new Promise((resolve) => setTimeout(resolve, 2000)); // requests already sent still land
  const halfway = await made();
  t.true(halfway >= 3 && halfway < 16, `killed with ${halfway} of 16 centres made`);

  const again = await seed('--json', dir);
  t.is(again.code, 0, again.stderr);
  const { created, updated, unchanged } = JSON.parse(again.stdout).counts.centres;
  t.is(created + updated + unchanged, 16);
  t.true(created <= 16 - halfway, 'the centres made before the kill are found, not made again');
  t.is(await made(), 16);
  const duplicates = await sql(
    { databaseUrl },
    `SELECT s.email FROM cap.centre_staff s JOIN cap.centres c ON c.id = s.centre_id WHERE c.registration_no LIKE 'RESUME-%' GROUP BY c.id, s.email HAVING count(*) > 1`,
  );
  t.deepEqual(duplicates, []);
  t.is(
    await count(
      `SELECT count(*)::int AS n FROM cap.centre_staff s JOIN cap.centres c ON c.id = s.centre_id WHERE c.registration_no LIKE 'RESUME-%'`,
    ),
    32,
    'a super admin and one staff member at each centre',
  );
  t.is(
    await count(
      `SELECT count(*)::int AS n FROM cap.centre_staff s JOIN cap.centres c ON c.id = s.centre_id WHERE c.registration_no LIKE 'RESUME-%' AND s.role = 'super_admin' AND s.status = 'active'`,
    ),
    16,
    "a half-made centre's invitation is accepted",
  );
  t.regex((await seed(dir)).stdout, /nothing to change/);
});

test.serial(
  'a platform reached by its URL alone (no database given) is seeded as a signed-in platform admin, with no failed sign-in, and a second run has nothing to change',
  async (t) => {
    t.timeout(300_000);
    const config = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-seed-remote-'));
    dirs.push(config);
    const env = { CAPCTL_CONFIG_DIR: config, DATABASE_URL: '' };
    const login = await runCapctl(
      [
        'login',
        '--base-url',
        serve.urls.gateway!,
        '--profile',
        'remote',
        '--email',
        'admin@example.test',
        '--password-stdin',
      ],
      env,
      'Admin-pass-2024\n',
    );
    t.is(login.code, 0, login.stderr);
    // The pieces that need accounts read: a candidate with an account and one without, a new centre,
    // an existing one gaining staff, and a sector with a trade.
    await seed(
      seedDir({
        'centres.yaml': {
          centres: [
            {
              name: 'Remote centre',
              registrationNo: 'REMOTE-1',
              superAdmin: { name: 'Remote Owner', email: 'owner@remote.example.test', password: 'Owner-pass-2024' },
            },
          ],
        },
      }),
    );
    const files = {
      'people.yaml': {
        people: {
          platformAdmins: [{ name: 'Platform Admin', email: 'admin@example.test', password: 'Admin-pass-2024' }],
          candidates: [
            { email: 'remote.new@remote.example.test', password: 'Candidate-pass-2024' },
            { email: 'owner@remote.example.test', password: 'Owner-pass-2024' },
          ],
        },
      },
      'remote.yaml': {
        sector: {
          slug: 'remote-sector',
          name: 'Remote sector',
          trades: [{ slug: 'remote-trade', name: 'Remote trade' }],
        },
      },
      'centres.yaml': {
        centres: [
          {
            name: 'Remote centre',
            registrationNo: 'REMOTE-1',
            superAdmin: { name: 'Remote Owner', email: 'owner@remote.example.test', password: 'Owner-pass-2024' },
            staff: [{ name: 'Remote Staff', email: 'staff@remote.example.test', role: 'staff' }],
          },
          {
            name: 'Second remote centre',
            registrationNo: 'REMOTE-2',
            superAdmin: { name: 'Second Owner', email: 'owner2@remote.example.test', password: 'Owner-pass-2024' },
          },
        ],
      },
    };
    const dir = seedDir(files);
    // No --database-url, no DATABASE_URL, and a data directory where no platform runs.
    const byUrl = (...args: string[]) =>
      runCapctl(
        [
          'seed',
          '--base-url',
          serve.urls.gateway!,
          '--profile',
          'remote',
          '--data-dir',
          path.join(config, 'none'),
          ...args,
        ],
        env,
      );
    const failuresBefore = await count(`SELECT count(*)::int AS n FROM ol.auth_failures WHERE kind = 'login'`);
    const plan = await byUrl('--dry-run', '--json', dir);
    t.is(plan.code, 0, plan.stderr + plan.stdout);
    const run = await byUrl('--json', dir);
    t.is(run.code, 0, run.stderr + run.stdout);
    t.deepEqual(JSON.parse(run.stdout).counts, JSON.parse(plan.stdout).counts, 'the plan is the run');
    t.like(JSON.parse(run.stdout).counts, {
      platformAdmins: { unchanged: 1 },
      candidates: { created: 1, unchanged: 1 },
      centres: { created: 1, unchanged: 1 },
      centreStaff: { created: 1 },
      trades: { created: 1 },
    });
    t.is(await count(`SELECT count(*)::int AS n FROM cap.centres WHERE registration_no LIKE 'REMOTE-%'`), 2);
    const again = await byUrl(dir);
    t.is(again.code, 0, again.stderr);
    t.regex(again.stdout, /nothing to change: the platform already matches the seeds/);
    t.is(
      await count(`SELECT count(*)::int AS n FROM ol.auth_failures WHERE kind = 'login'`),
      failuresBefore,
      'no failed sign-in was made',
    );
    // What no API does is refused in the plan, before anything is written, rather than done half.
    const grant = await byUrl(
      seedDir({
        'people.yaml': {
          people: {
            platformAdmins: [
              { name: 'Platform Admin', email: 'admin@example.test', password: 'Admin-pass-2024' },
              { name: 'Second Admin', email: 'second.admin@remote.example.test', password: 'Admin-pass-2024' },
            ],
          },
        },
      }),
    );
    t.is(grant.code, 2, grant.stdout);
    t.regex(
      grant.stderr,
      /people\.yaml:\d+:\d+: making second\.admin@remote\.example\.test a platform admin needs the platform's database/,
    );
    t.is(await count(`SELECT count(*)::int AS n FROM ol.users WHERE email = 'second.admin@remote.example.test'`), 0);
    // Without a signed-in admin and without the database, there is no one to read the platform as.
    const nobody = await runCapctl(
      ['seed', '--base-url', serve.urls.gateway!, '--data-dir', path.join(config, 'none'), dir],
      env,
    );
    t.is(nobody.code, 1, nobody.stdout);
    t.regex(nobody.stderr, /pass --profile/);
  },
);

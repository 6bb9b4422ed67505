// Seeding at an administrator's scale, as an admin does it: `capctl serve` (its own embedded PostgreSQL,
// development mode) in one process and `capctl seed` in another, on this machine. Times, each on a fresh
// platform where it says so:
//
//   1. the bundled seeds/ on a fresh platform
//   2. the bundled seeds/ again ("nothing to change")
//   3. a generated seed: N sectors with M trades each, every trade with a NOS (2 levels, 2 units each),
//      and C centres with a super admin and two staff each (3 people per centre), on top of 1
//   4. the generated seed again ("nothing to change")
//
// Every run must exit 0 and the platform must hold what was seeded (checked in its database). Loopback
// only; the whole benchmark gives up after BENCH_TIMEOUT_MS (default 15 minutes).
//
//   node --import=tsx bench/seed.ts [--sectors 50] [--trades 10] [--centres 1000] [--concurrency 8]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { stringify } from 'yaml';

const { values } = parseArgs({
  options: {
    sectors: { type: 'string', default: '50' },
    trades: { type: 'string', default: '10' },
    centres: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '8' },
  },
});
const sectorCount = Number(values.sectors);
const tradesPerSector = Number(values.trades);
const centreCount = Number(values.centres);
const timeoutMs = Number(process.env.BENCH_TIMEOUT_MS ?? 900_000);
const capctl = path.resolve('bin/capctl');

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-bench-seed-'));
const dataDir = path.join(work, 'data');
const seedDir = path.join(work, 'seeds');
fs.mkdirSync(seedDir);
writeGeneratedSeeds();

const serve = spawn(
  process.execPath,
  [
    capctl,
    'serve',
    '--data-dir',
    dataDir,
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
  ],
  {
    env: { ...process.env, LOG_LEVEL: 'error', DATABASE_URL: '' },
  },
);
const giveUp = setTimeout(() => {
  console.error(`benchmark did not finish within ${timeoutMs} ms`);
  serve.kill('SIGTERM');
  fs.rmSync(work, { recursive: true, force: true });
  process.exit(1);
}, timeoutMs);
giveUp.unref();
const gateway = await new Promise<string>((resolve, reject) => {
  let out = '';
  serve.stdout.on('data', (d) => {
    out += d;
    const line = out.split('\n').find((l) => l.startsWith('ready '));
    if (line)
      resolve(
        Object.fromEntries(
          line
            .slice(6)
            .split(' ')
            .map((p) => p.split('=') as [string, string]),
        ).gateway!,
      );
  });
  serve.on('exit', (code) => reject(new Error(`capctl serve exited with ${code} before ready`)));
});
const databaseUrl = fs.readFileSync(path.join(dataDir, 'database-url'), 'utf8').trim();

try {
  console.log(
    `seeding ${gateway} (capctl serve, embedded PostgreSQL, development mode), ${os.cpus().length} CPUs, load ${os.loadavg()[0]!.toFixed(1)}`,
  );
  await timed('bundled seeds/, fresh platform', []);
  await timed('bundled seeds/, again', [], /nothing to change/);
  await timed(
    `generated: ${sectorCount} sectors, ${sectorCount * tradesPerSector} trades with NOS, ${centreCount} centres with ${centreCount * 3} people`,
    [seedDir],
  );
  await timed('generated, again', [seedDir], /nothing to change/);
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const [row] = (
    await db.query(`SELECT (SELECT count(*) FROM cap.trades)::int AS trades, (SELECT count(*) FROM cap.centres)::int AS centres,
                           (SELECT count(*) FROM cap.centre_staff)::int AS staff, (SELECT count(*) FROM ol.users)::int AS users`)
  ).rows;
  await db.end();
  console.log(
    `the platform holds ${row.trades} trades, ${row.centres} centres, ${row.staff} centre staff, ${row.users} accounts`,
  );
  if (row.centres !== centreCount + 4 || row.staff < centreCount * 3)
    throw new Error('the platform does not hold what was seeded');
} finally {
  serve.kill('SIGTERM');
  await new Promise((resolve) => serve.on('exit', resolve));
  fs.rmSync(work, { recursive: true, force: true });
}

async function timed(label: string, paths: string[], expect?: RegExp): Promise<void> {
  const started = performance.now();
  const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [
      capctl,
      'seed',
      '--base-url',
      gateway,
      '--database-url',
      databaseUrl,
      '--concurrency',
      values.concurrency!,
      ...paths,
    ]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => {
      stderr += d;
      process.stderr.write(`    ${String(d).trimEnd()}\n`);
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (result.code !== 0)
    throw new Error(`${label}: capctl seed exited ${result.code}\n${result.stderr}${result.stdout}`);
  if (expect && !expect.test(result.stdout)) throw new Error(`${label}: expected ${expect}, got\n${result.stdout}`);
  console.log(`${label}: ${seconds} s`);
}

function writeGeneratedSeeds(): void {
  for (let s = 1; s <= sectorCount; s++) {
    const trades = Array.from({ length: tradesPerSector }, (_, t) => {
      const code = `B${s}T${t + 1}`;
      return {
        slug: `bench-sector-${s}-trade-${t + 1}`,
        name: `Bench trade ${s}.${t + 1}`,
        nos: {
          title: `Bench trade ${s}.${t + 1} (NOS)`,
          levels: [1, 2].map((level) => ({
            level,
            purpose: `Level ${level} of the bench trade.`,
            units: [1, 2].map((u) => ({
              referenceNumber: `${code}/L${level}/0${u}`,
              title: `Unit ${u} of level ${level}`,
              learningOutcomes: [
                {
                  reference: 'LO1',
                  description: 'Do the work',
                  performanceCriteria: [{ reference: 'PC1.1', description: 'Do it safely' }],
                },
              ],
            })),
          })),
        },
      };
    });
    fs.writeFileSync(
      path.join(seedDir, `sector-${s}.yaml`),
      stringify({ sector: { slug: `bench-sector-${s}`, name: `Bench sector ${s}`, trades } }),
    );
  }
  const centres = Array.from({ length: centreCount }, (_, c) => ({
    name: `Bench centre ${c + 1}`,
    registrationNo: `BENCH-${String(c + 1).padStart(5, '0')}`,
    address: { country: 'Nigeria', state: 'Lagos', lga: 'Ikeja', address: `${c + 1} Bench Road` },
    superAdmin: { name: `Owner ${c + 1}`, email: `owner${c + 1}@bench.example.test`, password: 'Bench-pass-2024' },
    staff: [
      { name: `Admin ${c + 1}`, email: `admin${c + 1}@bench.example.test`, role: 'regular_admin' },
      { name: `Staff ${c + 1}`, email: `staff${c + 1}@bench.example.test`, role: 'staff' },
    ],
  }));
  fs.writeFileSync(path.join(seedDir, 'centres.yaml'), stringify({ centres }));
  fs.writeFileSync(
    path.join(seedDir, 'people.yaml'),
    stringify({
      people: {
        platformAdmins: [{ name: 'Platform Admin', email: 'admin@example.test', password: 'Admin-pass-2024' }],
      },
    }),
  );
}

import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { projectPath } from '../../server/platform/paths.ts';
import { runCapctl, startServe, type RunningServe } from '../helpers/cli.ts';
import { sql } from '../helpers/platform.ts';
import { testDatabase, type TestDatabase } from '../helpers/postgres.ts';

// capctl seed export (issue 28): a platform's catalogue, centres and LMS courses written as seed files,
// which seed an empty platform to the same state.
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
const platforms: Array<{ database: TestDatabase; databaseUrl: string; serve: RunningServe }> = [];
const dirs: string[] = [];
test.before(async () => {
  for (let i = 0; i < 2; i++) {
    const database = await testDatabase();
    const databaseUrl = database.url;
    platforms.push({
      database,
      databaseUrl,
      serve: await startServe(['--no-service-ports', ...freePorts], { DATABASE_URL: databaseUrl }),
    });
  }
});
test.after.always(async () => {
  for (const p of platforms) {
    await p.serve.stop();
    await p.database.drop();
  }
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

const capctl = (p: (typeof platforms)[number], ...args: string[]) =>
  runCapctl([
    ...args,
    '--base-url',
    p.serve.urls.gateway!,
    ...(args[1] === 'export' ? [] : ['--database-url', p.databaseUrl]),
  ]);
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-seed-export-'));
  dirs.push(dir);
  return dir;
};
const read = (dir: string) =>
  Object.fromEntries(
    fs
      .readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => [
        path.relative(dir, path.join(e.parentPath, e.name)),
        fs.readFileSync(path.join(e.parentPath, e.name), 'utf8'),
      ]),
  );

test('an export seeds an empty platform to the same catalogue, centres and LMS courses: exporting that platform gives the same files', async (t) => {
  t.timeout(600_000);
  const [a, b] = platforms as [(typeof platforms)[number], (typeof platforms)[number]];
  const source = tempDir();
  fs.copyFileSync(projectPath('seeds', 'people.yaml'), path.join(source, 'people.yaml'));
  fs.copyFileSync(
    projectPath('seeds', 'catalogue', 'building-construction.yaml'),
    path.join(source, 'building-construction.yaml'),
  );
  fs.copyFileSync(projectPath('seeds', 'centres.yaml'), path.join(source, 'centres.yaml'));
  fs.copyFileSync(projectPath('seeds', 'lms.yaml'), path.join(source, 'lms.yaml'));
  const seeded = await capctl(a, 'seed', source);
  t.is(seeded.code, 0, seeded.stderr + seeded.stdout);

  const exportedA = tempDir();
  const exported = await capctl(a, 'seed', 'export', exportedA, '--json');
  t.is(exported.code, 0, exported.stderr);
  t.like(JSON.parse(exported.stdout), {
    sectors: 1,
    trades: 5,
    centres: 4,
    courses: 3,
    levelOfferings: 1,
    skipped: [],
  });
  const filesA = read(exportedA);
  t.deepEqual(Object.keys(filesA).sort(), ['catalogue/building-construction.yaml', 'centres.yaml', 'lms.yaml']);
  const lms = parse(filesA['lms.yaml']!).lms;
  const quiz = lms.courses.find((c: any) => c.title === 'Wall and floor tiling fundamentals');
  t.deepEqual(quiz.cap, { trade: 'tiling', level: 2, unit: 'TIL/L2/01' });
  t.true(
    quiz.modules[1].items[0].quiz.questions[0].choices.some((c: any) => c.correct),
    'quiz answers are exported',
  );
  t.is(lms.courses.find((c: any) => c.title === 'Workshop safety').modules[0].items[0].package, 'workshop-safety');
  const masonry = parse(filesA['catalogue/building-construction.yaml']!).sector.trades.find(
    (tr: any) => tr.slug === 'masonry',
  );
  t.true(
    masonry.nos.levels.length > 0 && masonry.nos.levels[0].units[0].learningOutcomes[0].performanceCriteria.length > 0,
    'the NOS with its levels, units, outcomes and criteria',
  );
  t.deepEqual(
    parse(filesA['centres.yaml']!)
      .centres.find((c: any) => c.registrationNo === 'CAP-LA-0001')
      .staff.map((s: any) => s.email)
      .sort(),
    ['ifeoma.nwosu@lagos-skills.example.test', 'tunde.bakare@lagos-skills.example.test'],
  );

  // Passwords are not exported: the admin moving the centres gives each super admin one.
  const target = tempDir();
  fs.cpSync(exportedA, target, { recursive: true });
  fs.copyFileSync(projectPath('seeds', 'people.yaml'), path.join(target, 'people.yaml'));
  const centres = parse(fs.readFileSync(path.join(target, 'centres.yaml'), 'utf8'));
  for (const centre of centres.centres) centre.superAdmin.password = 'Moved-pass-2024';
  fs.writeFileSync(path.join(target, 'centres.yaml'), stringify(centres));
  const lmsSeed = parse(fs.readFileSync(path.join(target, 'lms.yaml'), 'utf8'));
  for (const admin of lmsSeed.lms.admins) admin.password = 'Lms-admin-2024';
  fs.writeFileSync(path.join(target, 'lms.yaml'), stringify(lmsSeed));
  const into = await capctl(b, 'seed', target);
  t.is(into.code, 0, into.stderr + into.stdout);

  const exportedB = tempDir();
  t.is((await capctl(b, 'seed', 'export', exportedB)).code, 0);
  t.deepEqual(read(exportedB), filesA, 'the same catalogue, centres and LMS, field by field');
  const units = async (databaseUrl: string) =>
    (await sql<{ n: number }>({ databaseUrl }, 'SELECT count(*)::int AS n FROM cap.units'))[0]!.n;
  t.is(await units(b.databaseUrl), await units(a.databaseUrl));
});

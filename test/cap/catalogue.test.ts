import test from 'ava';
import { cap } from '../helpers/cap.ts';
import { call, sql, type TestPlatform } from '../helpers/platform.ts';
import { signUp, type SignedUpUser, platformWithAdmin } from '../helpers/users.ts';

// The public catalogue and its editing by platform admins (openapi/cap/catalogue.yaml, admin-catalogue.yaml).
let platform: TestPlatform;
let admin: SignedUpUser;
test.before(async () => ({ platform, admin } = await platformWithAdmin()));
test.after.always(() => platform?.stop());

const unique = () => Math.random().toString(36).slice(2, 8);
const publicGet = (path: string) => call('GET', platform.url(`/v1/cap${path}`));

async function sector(name = `Sector ${unique()}`) {
  const res = await cap(platform, admin, 'POST', '/admin/sectors', { json: { name } });
  if (res.status !== 201) throw new Error(res.text);
  return res.body.data as { id: string; slug: string };
}
async function trade(sectorId: string, name = `Trade ${unique()}`, extra: object = {}) {
  const res = await cap(platform, admin, 'POST', '/admin/trades', { json: { sectorId, name, ...extra } });
  if (res.status !== 201) throw new Error(res.text);
  return res.body.data as { id: string; slug: string; activeNosDocument: { id: string; version: number } };
}

const document = (title = 'Masonry (NOS)') => ({
  title,
  levels: [
    {
      level: 1,
      purpose: 'Works safely under supervision.',
      units: [
        {
          referenceNumber: 'MAS/L1/01',
          title: 'Follow health and safety practice on site',
          isMandatory: true,
          creditValue: 4,
          guidedLearningHours: 40,
          assessmentMethods: ['observation'],
          learningOutcomes: [
            {
              reference: 'LO1',
              description: 'Identify site hazards',
              performanceCriteria: [{ reference: 'PC1.1', description: 'Name the hazards' }],
            },
          ],
        },
      ],
    },
    { level: 2, purpose: 'Builds walls unsupervised.', units: [] },
  ],
});

const csvHeader =
  'level,level_purpose,unit_reference,unit_title,unit_mandatory,unit_credit_value,unit_guided_learning_hours,unit_purpose,unit_assessment_methods,outcome_reference,outcome_description,criterion_reference,criterion_description';

test('the public catalogue needs no bearer: sectors count only active trades, and an archived trade disappears everywhere', async (t) => {
  const s = await sector('Building and Construction ' + unique());
  const kept = await trade(s.id, 'Masonry');
  const archived = await trade(s.id, 'Tiling');
  t.is((await cap(platform, admin, 'POST', `/admin/trades/${archived.id}/archive`)).status, 200);

  const sectors = await publicGet('/sectors');
  t.is(sectors.status, 200);
  t.like(
    sectors.body.data.find((x: { id: string }) => x.id === s.id),
    { slug: s.slug, tradeCount: 1 },
  );
  const trades = (await publicGet(`/sectors/${s.id}/trades`)).body.data;
  t.deepEqual(
    trades.map((x: { id: string }) => x.id),
    [kept.id],
  );
  t.is((await publicGet(`/trades/${archived.id}`)).status, 404);
  t.is((await publicGet(`/trades/${archived.id}/units`)).status, 404);
  t.is((await publicGet(`/trades/${archived.id}/evidence-types`)).status, 404);

  const detail = (await publicGet(`/trades/${kept.id}`)).body.data;
  t.like(detail, {
    id: kept.id,
    sectorId: s.id,
    name: 'Masonry',
    activeNosDocument: { version: 1, status: 'active', title: 'Masonry (NOS)' },
  });
  t.deepEqual(
    detail.activeNosDocument.qualificationLevels.map((l: { level: number }) => l.level),
    [1, 2, 3, 4, 5],
    'a new trade has levels 1 to 5',
  );
  t.true((await publicGet(`/trades/${kept.id}/evidence-types`)).body.data.length > 0);
});

test('a NOS import supersedes the active document and keeps it; units are read by level with their outcomes', async (t) => {
  const s = await sector();
  const tr = await trade(s.id, 'Masonry');
  const imported = await cap(platform, admin, 'POST', `/admin/trades/${tr.id}/nos`, { json: document() });
  t.is(imported.status, 201, imported.text);
  t.like(imported.body.data, {
    version: 2,
    supersedes: 1,
    counts: { levels: 2, units: 1, learningOutcomes: 1, performanceCriteria: 1 },
  });

  const units = (await publicGet(`/trades/${tr.id}/units?level=1`)).body.data;
  t.is(units.length, 1);
  t.like(units[0], { referenceNumber: 'MAS/L1/01', isMandatory: true, creditValue: 4, level: 1 });
  t.deepEqual(units[0].structure.learningOutcomes[0].performanceCriteria, [
    { reference: 'PC1.1', description: 'Name the hazards' },
  ]);
  t.deepEqual((await publicGet(`/trades/${tr.id}/units?level=2`)).body.data, []);

  const versions = await sql<{ version: number; status: string }>(
    platform,
    `SELECT version, status FROM cap.nos_documents WHERE trade_id = $1 ORDER BY version`,
    [tr.id],
  );
  t.deepEqual(versions, [
    { version: 1, status: 'superseded' },
    { version: 2, status: 'active' },
  ]);

  // The export is the import shape: importing it again makes version 3 with the same content.
  const exported = (await cap(platform, admin, 'GET', `/admin/trades/${tr.id}`)).body.data.nos;
  const { id: _id, version: _version, ...again } = exported;
  const reimported = await cap(platform, admin, 'POST', `/admin/trades/${tr.id}/nos`, { json: again });
  t.like(reimported.body.data, { version: 3, supersedes: 2 });
  const {
    id: _id3,
    version: _v3,
    ...third
  } = (await cap(platform, admin, 'GET', `/admin/trades/${tr.id}`)).body.data.nos;
  t.deepEqual(third, again);
});

test('a CSV import with three bad rows reports all three with their rows and writes nothing', async (t) => {
  const s = await sector();
  const tr = await trade(s.id);
  const csv = [
    csvHeader,
    '1,Works safely,MAS/L1/01,Health and safety,yes,4,40,,observation;oral questioning,LO1,Identify hazards,PC1.1,Name the hazards',
    ',,MAS/L1/01,,,,,,,LO1,,PC1.2,', // row 3: no criterion description
    'nine,Bad level,MAS/L9/01,Title,yes,1,1,,,LO1,Outcome,PC1.1,Criterion', // row 4: level is not a number
    '2,Builds walls,MAS/L2/01,Walls,perhaps,3,30,,,LO1,Build walls,PC1.1,Lay bricks', // row 5: mandatory is not yes/no
  ].join('\n');
  const res = await cap(platform, admin, 'POST', `/admin/trades/${tr.id}/nos`, { json: { title: 'Masonry', csv } });
  t.is(res.status, 422, res.text);
  t.is(res.body.error.code, 'catalogue.nos_invalid');
  t.deepEqual(res.body.error.details.map((d: { field: string }) => d.field).sort(), [
    'body.csv.row[3].criterion_description',
    'body.csv.row[4].level',
    'body.csv.row[5].unit_mandatory',
  ]);
  const docs = await sql(platform, `SELECT version FROM cap.nos_documents WHERE trade_id = $1`, [tr.id]);
  t.is(docs.length, 1, 'only the stub remains');

  const good = [
    csvHeader,
    '1,Works safely,MAS/L1/01,Health and safety,yes,4,40,,observation,LO1,Identify hazards,PC1.1,Name the hazards',
    ',,,,,,,,,,,PC1.2,Wear PPE',
  ].join('\n');
  const dry = await cap(platform, admin, 'POST', `/admin/trades/${tr.id}/nos?dryRun=true`, { json: { csv: good } });
  t.is(dry.status, 200, dry.text);
  t.like(dry.body.data, {
    dryRun: true,
    version: 2,
    counts: { levels: 1, units: 1, learningOutcomes: 1, performanceCriteria: 2 },
  });
  t.is(
    (await sql(platform, `SELECT version FROM cap.nos_documents WHERE trade_id = $1`, [tr.id])).length,
    1,
    'a dry run writes nothing',
  );
  t.is((await cap(platform, admin, 'POST', `/admin/trades/${tr.id}/nos`, { json: { csv: good } })).status, 201);
});

test('a JSON document that repeats a level, a unit reference or a criterion is refused with every place named', async (t) => {
  const s = await sector();
  const tr = await trade(s.id);
  const doc = document();
  doc.levels[1]!.level = 1;
  doc.levels[1]!.units.push({ ...doc.levels[0]!.units[0]!, learningOutcomes: [] } as never);
  doc.levels[0]!.units[0]!.learningOutcomes[0]!.performanceCriteria.push({ reference: 'pc1.1', description: 'Again' });
  const res = await cap(platform, admin, 'POST', `/admin/trades/${tr.id}/nos`, { json: doc });
  t.is(res.status, 422);
  t.deepEqual(res.body.error.details.map((d: { field: string }) => d.field).sort(), [
    'body.levels[0].units[0].learningOutcomes[0].performanceCriteria[1].reference',
    'body.levels[1].level',
    'body.levels[1].units[0].referenceNumber',
  ]);
});

test('a sector is deleted only when it has no trades, archived ones included (409 catalogue.sector_not_empty)', async (t) => {
  const s = await sector();
  const tr = await trade(s.id);
  await cap(platform, admin, 'POST', `/admin/trades/${tr.id}/archive`);
  const refused = await cap(platform, admin, 'DELETE', `/admin/sectors/${s.id}`);
  t.is(refused.status, 409);
  t.is(refused.body.error.code, 'catalogue.sector_not_empty');
  const empty = await sector();
  t.is((await cap(platform, admin, 'DELETE', `/admin/sectors/${empty.id}`)).status, 200);
  t.is((await cap(platform, admin, 'GET', `/admin/sectors/${empty.id}`)).status, 404);
});

test('slugs are derived from names and kept unique; a slug asked for that is taken is 409 catalogue.slug_taken', async (t) => {
  const name = `Café & Bar ${unique()}`;
  const first = await sector(name);
  t.regex(first.slug, /^cafe-and-bar-[a-z0-9]+$/);
  const second = await sector(name);
  t.is(second.slug, `${first.slug}-2`);
  const taken = await cap(platform, admin, 'POST', '/admin/sectors', { json: { name: 'Other', slug: first.slug } });
  t.is(taken.status, 409);
  t.is(taken.body.error.code, 'catalogue.slug_taken');
  const bad = await cap(platform, admin, 'POST', '/admin/sectors', { json: { name: 'Other', slug: 'Not A Slug' } });
  t.is(bad.status, 422);
});

test('levels, units and learning outcomes are edited on the active NOS only; a superseded one is frozen (409 catalogue.nos_superseded)', async (t) => {
  const s = await sector();
  const tr = await trade(s.id, 'Plumbing', { levels: [1, 2] });
  const levels = (await cap(platform, admin, 'GET', `/admin/levels?tradeId=${tr.id}`)).body.data;
  t.deepEqual(
    levels.map((l: { level: number }) => l.level),
    [1, 2],
  );
  const level1 = levels[0];

  const unit = await cap(platform, admin, 'POST', `/admin/levels/${level1.id}/units`, {
    json: { referenceNumber: 'PLB/L1/01', title: 'Cut and join pipes', isMandatory: true },
  });
  t.is(unit.status, 201, unit.text);
  const again = await cap(platform, admin, 'POST', `/admin/levels/${level1.id}/units`, {
    json: { referenceNumber: 'plb/l1/01', title: 'Same reference', isMandatory: false },
  });
  t.is(again.body.error.code, 'catalogue.reference_taken');
  const outcome = await cap(platform, admin, 'POST', `/admin/units/${unit.body.data.id}/learning-outcomes`, {
    json: {
      reference: 'LO1',
      description: 'Join copper pipe',
      performanceCriteria: [{ reference: 'PC1.1', description: 'Solder a joint' }],
    },
  });
  t.is(outcome.status, 201, outcome.text);
  t.like(
    (await cap(platform, admin, 'PATCH', `/admin/units/${unit.body.data.id}`, { json: { creditValue: 6 } })).body.data,
    { creditValue: 6 },
  );
  t.is(
    (await cap(platform, admin, 'DELETE', `/admin/levels/${level1.id}`)).body.error.code,
    'catalogue.level_not_empty',
  );
  t.is(
    (await cap(platform, admin, 'POST', `/admin/trades/${tr.id}/levels`, { json: { level: 2, purpose: 'Again' } })).body
      .error.code,
    'catalogue.level_taken',
  );
  t.is(
    (await cap(platform, admin, 'POST', `/admin/trades/${tr.id}/levels`, { json: { level: 3, purpose: 'Supervises' } }))
      .status,
    201,
  );
  t.is((await cap(platform, admin, 'GET', `/admin/levels/${level1.id}/units`)).body.data.length, 1);

  // After an import the old document's rows are frozen for the applications that use them.
  await cap(platform, admin, 'POST', `/admin/trades/${tr.id}/nos`, { json: document('Plumbing (NOS)') });
  const frozen = await cap(platform, admin, 'PATCH', `/admin/units/${unit.body.data.id}`, {
    json: { title: 'Changed' },
  });
  t.is(frozen.status, 409);
  t.is(frozen.body.error.code, 'catalogue.nos_superseded');
  t.is(
    (await cap(platform, admin, 'DELETE', `/admin/learning-outcomes/${outcome.body.data.id}`)).body.error.code,
    'catalogue.nos_superseded',
  );
});

test('the admin catalogue needs platform.catalogue permissions, and an archived trade cannot change its NOS', async (t) => {
  const someone = await signUp(platform);
  t.is((await cap(platform, someone, 'GET', '/admin/sectors')).body.error.code, 'auth.permission_denied');
  t.is(
    (await cap(platform, someone, 'POST', '/admin/sectors', { json: { name: 'X' } })).body.error.code,
    'auth.permission_denied',
  );
  const s = await sector();
  const tr = await trade(s.id);
  await cap(platform, admin, 'POST', `/admin/trades/${tr.id}/archive`);
  t.is(
    (await cap(platform, admin, 'POST', `/admin/trades/${tr.id}/archive`)).body.error.code,
    'catalogue.trade_archived',
  );
  t.is(
    (await cap(platform, admin, 'POST', `/admin/trades/${tr.id}/nos`, { json: document() })).body.error.code,
    'catalogue.trade_archived',
  );
  t.is((await cap(platform, admin, 'POST', `/admin/trades/${tr.id}/restore`)).status, 200);
  t.is((await publicGet(`/trades/${tr.id}`)).status, 200);
});

test('admin lists page by cursor and search by name or slug', async (t) => {
  const tag = unique();
  const s = await sector(`Paged ${tag}`);
  for (let i = 0; i < 3; i++) await trade(s.id, `Paged trade ${tag} ${i}`);
  const first = await cap(platform, admin, 'GET', `/admin/trades?q=${tag}&limit=2`);
  t.is(first.body.data.length, 2);
  t.true(first.body.meta.pagination.hasMore);
  const second = await cap(
    platform,
    admin,
    'GET',
    `/admin/trades?q=${tag}&limit=2&cursor=${first.body.meta.pagination.nextCursor}`,
  );
  t.is(second.body.data.length, 1);
  t.false(second.body.meta.pagination.hasMore);
  t.like(second.body.data[0], {
    sectorName: `Paged ${tag}`,
    status: 'active',
    activeNosDocument: { version: 1, levelCount: 5, unitCount: 0 },
  });
  t.is((await cap(platform, admin, 'GET', `/admin/sectors?slug=${s.slug}`)).body.data.length, 1);
});

test('GET /centres lists approved centres only, without a bearer', async (t) => {
  const created = await cap(platform, admin, 'POST', '/admin/centres', {
    json: {
      name: `Approved ${unique()}`,
      registrationNo: `REG-${unique()}`,
      superAdmin: { name: 'Owner', email: `owner+${unique()}@example.test` },
    },
  });
  t.is(created.status, 201, created.text);
  const pending = await sql<{ id: string }>(
    platform,
    `INSERT INTO cap.centres (id, name, registration_no, status, created_at, updated_at) VALUES ('01J00000000000000000000000', 'Pending', 'P-1', 'pending', now(), now()) RETURNING id`,
  );
  const all: Array<{ id: string; status: string }> = [];
  let cursor: string | null = null;
  do {
    const page = await publicGet(`/centres?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    t.is(page.status, 200);
    all.push(...page.body.data);
    cursor = page.body.meta.pagination.nextCursor;
  } while (cursor);
  t.true(all.some((c) => c.id === created.body.data.id));
  t.false(all.some((c) => c.id === pending[0]!.id));
  t.true(all.every((c) => c.status === 'approved'));
});

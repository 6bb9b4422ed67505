import test from 'ava';
import { DataTypes, Model, QueryTypes, type ModelStatic, type Sequelize } from 'sequelize';
import { createSequelize } from '../../server/platform/db/database.ts';
import { instancesOf, savePrepared } from '../../server/platform/db/prepared.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';

// savePrepared and instancesOf: the CAP request path's model writes and reads as prepared statements.
// What they write and read must be what Sequelize's own save and findAll would.

let platform: TestPlatform;
let sequelize: Sequelize;
const attributes = {
  id: { type: DataTypes.STRING, primaryKey: true },
  status: { type: DataTypes.STRING, allowNull: false },
  profile: { type: DataTypes.JSONB, allowNull: true },
};
let Probe: ModelStatic<Model>;

test.before(async () => {
  platform = await startTestPlatform({ only: ['ol'] });
  sequelize = createSequelize(platform.databaseUrl, 'public', 2);
  Probe = sequelize.define('Probe', attributes, { tableName: 'save_probe', underscored: true });
  await Probe.sync();
});
test.after.always(async () => {
  await sequelize?.close();
  await platform?.stop();
});

const stored = async (id: string) =>
  (
    (await sequelize.query(`SELECT status, profile, updated_at FROM save_probe WHERE id = $1`, {
      bind: [id],
      type: QueryTypes.SELECT,
    })) as Array<{ status: string; profile: unknown; updated_at: Date }>
  )[0]!;

test('a prepared save writes the changed attributes and a new updatedAt, and leaves the instance as save does', async (t) => {
  await Probe.create({ id: 'a', status: 'draft', profile: { name: 'Ada' } });
  const before = await stored('a');
  const [probe] = await instancesOf(Probe, 'x.id = $1', ['a']);
  probe!.set({ status: 'submitted', profile: { name: 'Ada', trade: 'Masonry' } });
  await sequelize.transaction((transaction) => savePrepared(probe!, transaction));
  const after = await stored('a');
  t.is(after.status, 'submitted');
  t.deepEqual(after.profile, { name: 'Ada', trade: 'Masonry' });
  t.true(after.updated_at > before.updated_at);
  t.false(probe!.changed(), 'nothing left to save');
  t.is((probe!.get('updatedAt') as Date).getTime(), after.updated_at.getTime());
});

test('a prepared save of an unchanged instance writes nothing, and a JSON null is stored as SQL NULL', async (t) => {
  await Probe.create({ id: 'b', status: 'draft', profile: { name: 'Bola' } });
  const [probe] = await instancesOf(Probe, 'x.id = $1', ['b']);
  const untouched = await stored('b');
  await sequelize.transaction((transaction) => savePrepared(probe!, transaction));
  t.is((await stored('b')).updated_at.getTime(), untouched.updated_at.getTime());
  probe!.set({ profile: null });
  await sequelize.transaction((transaction) => savePrepared(probe!, transaction));
  const [row] = (await sequelize.query(`SELECT profile IS NULL AS "isNull" FROM save_probe WHERE id = 'b'`, {
    type: QueryTypes.SELECT,
  })) as Array<{ isNull: boolean }>;
  t.true(row?.isNull);
});

test('instancesOf builds the instances findAll would, in the order asked', async (t) => {
  await Probe.bulkCreate([
    { id: 'c1', status: 'listed', profile: { n: 1 } },
    { id: 'c2', status: 'listed', profile: null },
  ]);
  const read = await instancesOf(Probe, 'x.status = $1', ['listed'], { then: 'ORDER BY x.id DESC' });
  const found = await Probe.findAll({ where: { status: 'listed' }, order: [['id', 'DESC']] });
  t.deepEqual(
    read.map((probe) => probe.get({ plain: true })),
    found.map((probe) => probe.get({ plain: true })),
  );
  t.false(read[0]!.isNewRecord);
});

test('a model whose saves run hooks or validators is refused, not saved around them', async (t) => {
  const Validated = sequelize.define(
    'Validated',
    { ...attributes, status: { type: DataTypes.STRING, validate: { isIn: [['draft', 'submitted']] } } },
    { tableName: 'save_probe', underscored: true },
  );
  const Hooked = sequelize.define('Hooked', attributes, {
    tableName: 'save_probe',
    underscored: true,
    hooks: { beforeSave: () => undefined },
  });
  await Probe.create({ id: 'd', status: 'draft', profile: null });
  for (const model of [Validated, Hooked]) {
    const [probe] = await instancesOf(model, 'x.id = $1', ['d']);
    probe!.set({ status: 'bogus' });
    await t.throwsAsync(
      sequelize.transaction((transaction) => savePrepared(probe!, transaction)),
      { message: /has hooks or validators/ },
      model.name,
    );
  }
  t.is((await stored('d')).status, 'draft', 'nothing written');
});

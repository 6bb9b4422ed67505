import test from 'ava';
import { DataTypes, QueryTypes, UniqueConstraintError, type Model, type ModelStatic, type Sequelize } from 'sequelize';
import { createDatabase, createSequelize, dropDatabase } from '../../server/platform/db/database.ts';
import { createEventRuntime } from '../../server/platform/events/runtime.ts';
import { createEventTables } from '../../server/platform/events/tables.ts';
import { conflict } from '../../server/platform/http/errors.ts';
import { newId } from '../../server/platform/ids.ts';
import {
  checkMove,
  defineLifecycle,
  lifecycleWriter,
  modelStore,
  tableStore,
} from '../../server/platform/lifecycle.ts';
import { createLogger } from '../../server/platform/logger.ts';

// The kernel's lifecycle helper: the check (rules of the table) without a database, then the writer
// against a real database and a real outbox.

const parcel = defineLifecycle({
  subject: 'parcel',
  statuses: ['packed', 'sent', 'delivered', 'returned'],
  movers: ['clerk', 'courier'],
  moves: {
    pack: { from: [null], to: 'packed', by: ['clerk'] },
    send: { from: ['packed'], to: 'sent', by: ['clerk'], guards: ['addressed'] },
    deliver: { from: ['sent'], to: 'delivered', by: ['courier'], emits: 'notification.requested' },
    // One action, a move per status it starts from.
    undo: [
      { from: ['sent'], to: 'packed', by: ['clerk'] },
      { from: ['delivered'], to: 'returned', by: ['courier', 'clerk'] },
    ],
  },
  guards: {
    addressed: (facts: { address?: string }) =>
      facts.address
        ? undefined
        : { reason: 'the parcel has no address', details: [{ field: 'address', issue: 'is required' }] },
  },
});

const membership = defineLifecycle({
  subject: 'membership',
  statuses: ['active', 'suspended'],
  movers: ['admin'],
  moves: {
    suspend: { from: ['active'], to: 'suspended', by: ['admin'] },
    reinstate: { from: ['suspended'], to: 'active', by: ['admin'] },
  },
  idempotent: true,
});

/** Boxes packed into the parcels table with no history: a table store's plain inserts. */
const packing = defineLifecycle({
  subject: 'box',
  statuses: ['packed'],
  movers: ['clerk'],
  moves: { pack: { from: [null], to: 'packed', by: ['clerk'] } },
});

test('a move the table holds may be made by a mover it lists, when its guards hold', (t) => {
  const verdict = checkMove(parcel, 'packed', 'send', 'clerk', { address: 'Lagos' });
  t.like(verdict, { ok: true, from: 'packed', to: 'sent', unchanged: false });
});

test('a move the table does not hold is refused as no_move', (t) => {
  t.like(checkMove(parcel, 'delivered', 'send', 'clerk', { address: 'Lagos' }), {
    ok: false,
    refusal: { kind: 'no_move', reason: 'a delivered parcel cannot send' },
  });
  t.like(checkMove(parcel, 'packed', 'nonsense' as never, 'clerk'), { ok: false, refusal: { kind: 'no_move' } });
});

test('a mover the move does not list is refused as wrong_mover, before any guard is read', (t) => {
  t.like(checkMove(parcel, 'packed', 'send', 'courier'), {
    ok: false,
    refusal: { kind: 'wrong_mover', reason: 'only clerk may send a packed parcel' },
  });
});

test('a guard that does not hold refuses the move, naming the guard, with its reason and details', (t) => {
  t.deepEqual(checkMove(parcel, 'packed', 'send', 'clerk', {}), {
    ok: false,
    refusal: {
      kind: 'guard_failed',
      action: 'send',
      guard: 'addressed',
      reason: 'the parcel has no address',
      details: [{ field: 'address', issue: 'is required' }],
    },
  });
});

test('an action with a move per starting status takes the move of the status the subject is in', (t) => {
  t.like(checkMove(parcel, 'sent', 'undo', 'clerk'), { ok: true, to: 'packed' });
  t.like(checkMove(parcel, 'delivered', 'undo', 'courier'), { ok: true, to: 'returned' });
  t.like(checkMove(parcel, 'sent', 'undo', 'courier'), { ok: false, refusal: { kind: 'wrong_mover' } });
});

test('a subject is created by a move from nothing (null), and only by such a move', (t) => {
  t.like(checkMove(parcel, null, 'pack', 'clerk'), { ok: true, from: null, to: 'packed' });
  t.like(checkMove(parcel, null, 'send', 'clerk', { address: 'x' }), {
    ok: false,
    refusal: { kind: 'no_move', reason: 'a new parcel cannot send' },
  });
  t.like(checkMove(parcel, 'packed', 'pack', 'clerk'), { ok: false, refusal: { kind: 'no_move' } });
});

test('in an idempotent lifecycle an action on a subject already in its target status is allowed and changes nothing', (t) => {
  t.like(checkMove(membership, 'suspended', 'suspend', 'admin'), { ok: true, to: 'suspended', unchanged: true });
  t.like(checkMove(membership, 'active', 'suspend', 'admin'), { ok: true, to: 'suspended', unchanged: false });
  // Without the flag, the same repeat is refused.
  t.like(checkMove(parcel, 'sent', 'send', 'clerk', { address: 'x' }), { ok: false, refusal: { kind: 'no_move' } });
});

test('a table naming an unknown status, an unknown mover or a guard without a check fails when it is defined', (t) => {
  const base = { subject: 'thing', statuses: ['a', 'b'], movers: ['m'] };
  t.throws(() => defineLifecycle({ ...base, moves: { go: { from: ['a'], to: 'c', by: ['m'] } } }), {
    message: /go names the unknown status c/,
  });
  t.throws(() => defineLifecycle({ ...base, moves: { go: { from: ['a'], to: 'b', by: ['x'] } } }), {
    message: /go names the unknown mover x/,
  });
  t.throws(() => defineLifecycle({ ...base, moves: { go: { from: ['a'], to: 'b', by: ['m'], guards: ['ready'] } } }), {
    message: /guard ready, which has no check/,
  });
});

test('a writer for a lifecycle that publishes needs the outbox and the event data', (t) => {
  t.throws(() => lifecycleWriter(parcel, { store: tableStore('x') }), {
    message: /needs events and eventData/,
  });
});

// ---- the writer, on a real database -----------------------------------------------------------------

interface ParcelRow extends Model {
  id: string;
  status: string;
  address: string | null;
}

let sequelize: Sequelize;
let Parcel: ModelStatic<ParcelRow>;
let databaseName: string;
const adminUrl = process.env.TEST_DATABASE_URL!;
const runtime = { value: undefined as ReturnType<typeof createEventRuntime> | undefined };

test.before(async () => {
  databaseName = `test_${newId().toLowerCase()}`;
  const url = await createDatabase(adminUrl, databaseName);
  sequelize = createSequelize(url, 'probe', 2);
  await sequelize.query('CREATE SCHEMA probe');
  await createEventTables(sequelize.getQueryInterface(), 'probe');
  await sequelize.query(
    `CREATE TABLE probe.parcels (id text PRIMARY KEY, status text NOT NULL, address text, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL)`,
  );
  await sequelize.query(
    `CREATE TABLE probe.parcel_moves (id text PRIMARY KEY, parcel_id text NOT NULL, action text NOT NULL, from_status text, to_status text NOT NULL, mover text NOT NULL, note text)`,
  );
  Parcel = sequelize.define<ParcelRow>(
    'Parcel',
    { id: { type: DataTypes.STRING, primaryKey: true }, status: DataTypes.STRING, address: DataTypes.STRING },
    { tableName: 'parcels' },
  );
  runtime.value = createEventRuntime(url, createLogger('silent'));
});
test.after.always(async () => {
  await sequelize?.close();
  if (databaseName) await dropDatabase(adminUrl, databaseName);
});

function writer() {
  return lifecycleWriter<typeof parcel, ParcelRow, string>(parcel, {
    store: modelStore(Parcel),
    events: runtime.value!.forService('probe', 'probe', sequelize),
    eventData: (type, subject, applied) => ({ parcelId: subject.id, type, from: applied.from, to: applied.to }),
    history: (transaction, entry) =>
      sequelize.query('INSERT INTO probe.parcel_moves VALUES ($1, $2, $3, $4, $5, $6, $7)', {
        bind: [newId(), entry.subject.id, entry.action, entry.from, entry.to, entry.by, entry.note ?? null],
        transaction,
      }),
    refuse: (refusal) => conflict(`parcel.${refusal.kind}`, refusal.reason),
  });
}

const rows = <T extends object>(text: string, bind: unknown[]) =>
  sequelize.query<T>(text, { type: QueryTypes.SELECT, bind });

test.serial('the writer creates a subject in its first status and records the move in its history', async (t) => {
  const id = newId();
  const created = await sequelize.transaction((transaction) =>
    writer().create(transaction, 'pack', { id, address: null }, { by: 'clerk', note: 'counter 3' }),
  );
  t.is(created?.status, 'packed');
  t.deepEqual(await rows(`SELECT status FROM probe.parcels WHERE id = $1`, [id]), [{ status: 'packed' }]);
  t.deepEqual(
    await rows(`SELECT action, from_status, to_status, mover, note FROM probe.parcel_moves WHERE parcel_id = $1`, [id]),
    [{ action: 'pack', from_status: null, to_status: 'packed', mover: 'clerk', note: 'counter 3' }],
  );
});

test.serial(
  "a move writes the status with its other changes, its history row and its events in the caller's transaction",
  async (t) => {
    const id = newId();
    const parcels = writer();
    const parcelRow = (await sequelize.transaction((transaction) =>
      parcels.create(transaction, 'pack', { id, address: null }, { by: 'clerk' }),
    ))!;
    await sequelize.transaction(async (transaction) => {
      await parcels.move(transaction, parcelRow, 'send', {
        by: 'clerk',
        facts: { address: 'Ikeja' },
        changes: { address: 'Ikeja' },
      });
      await parcels.move(transaction, parcelRow, 'deliver', { by: 'courier', event: { signedBy: 'Ada' } });
    });
    t.deepEqual(await rows(`SELECT status, address FROM probe.parcels WHERE id = $1`, [id]), [
      { status: 'delivered', address: 'Ikeja' },
    ]);
    t.deepEqual(
      (
        await rows<{ action: string }>(`SELECT action FROM probe.parcel_moves WHERE parcel_id = $1 ORDER BY id`, [id])
      ).map((r) => r.action),
      ['pack', 'send', 'deliver'],
    );
    const events = await rows<{ type: string; data: Record<string, unknown> }>(
      `SELECT type, data FROM probe.outbox WHERE data->>'parcelId' = $1`,
      [id],
    );
    t.deepEqual(events, [
      {
        type: 'notification.requested',
        data: { parcelId: id, type: 'notification.requested', from: 'sent', to: 'delivered', signedBy: 'Ada' },
      },
    ]);
  },
);

test.serial("a refused move throws the service's error and writes nothing", async (t) => {
  const id = newId();
  const parcels = writer();
  const parcelRow = (await sequelize.transaction((transaction) =>
    parcels.create(transaction, 'pack', { id, address: null }, { by: 'clerk' }),
  ))!;
  const error = await t.throwsAsync(
    sequelize.transaction((transaction) => parcels.move(transaction, parcelRow, 'send', { by: 'clerk', facts: {} })),
  );
  t.like(error, { code: 'parcel.guard_failed', message: 'the parcel has no address' });
  t.deepEqual(await rows(`SELECT status FROM probe.parcels WHERE id = $1`, [id]), [{ status: 'packed' }]);
  t.is((await rows(`SELECT 1 FROM probe.parcel_moves WHERE parcel_id = $1`, [id])).length, 1);
});

test.serial('an idempotent repeat writes nothing, not even the changes that would go with the move', async (t) => {
  const members = lifecycleWriter(membership, {
    store: tableStore<{ id: string; status: string }>('probe.parcels'),
  });
  const id = newId();
  await sequelize.query(
    `INSERT INTO probe.parcels (id, status, created_at, updated_at) VALUES ($1, 'suspended', now(), now())`,
    { bind: [id] },
  );
  const row = { id, status: 'suspended' };
  const applied = await sequelize.transaction((transaction) =>
    members.move(transaction, row, 'suspend', { by: 'admin', changes: { address: 'moved' } }),
  );
  t.like(applied, { from: 'suspended', to: 'suspended', changed: false });
  t.deepEqual(await rows(`SELECT status, address FROM probe.parcels WHERE id = $1`, [id]), [
    { status: 'suspended', address: null },
  ]);
  const reinstated = await sequelize.transaction((transaction) =>
    members.move(transaction, row, 'reinstate', { by: 'admin' }),
  );
  t.like(reinstated, { from: 'suspended', to: 'active', changed: true });
  t.is(row.status, 'active', 'the table store keeps the row it was given in step');
  t.deepEqual(await rows(`SELECT status FROM probe.parcels WHERE id = $1`, [id]), [{ status: 'active' }]);
});

test.serial('a create that ignores duplicates inserts nothing when the row breaks a unique key', async (t) => {
  const packs = lifecycleWriter(packing, { store: tableStore('probe.parcels') });
  const id = newId();
  for (const address of ['first', 'second']) {
    await sequelize.transaction((transaction) =>
      packs.create(transaction, 'pack', { id, address }, { by: 'clerk', ignoreDuplicates: true }),
    );
  }
  t.deepEqual(await rows(`SELECT status, address FROM probe.parcels WHERE id = $1`, [id]), [
    { status: 'packed', address: 'first' },
  ]);
  // A create that records history cannot ignore duplicates: the row it did not insert would have no history.
  await t.throwsAsync(
    sequelize.transaction((transaction) =>
      writer().create(transaction, 'pack', { id, address: null }, { by: 'clerk', ignoreDuplicates: true }),
    ),
    { message: /cannot ignore duplicates/ },
  );
});

test.serial(
  "a table store's insert that breaks a unique key throws Sequelize's UniqueConstraintError, which writers catch",
  async (t) => {
    const packs = lifecycleWriter(packing, { store: tableStore('probe.parcels') });
    const id = newId();
    await sequelize.transaction((transaction) => packs.create(transaction, 'pack', { id }, { by: 'clerk' }));
    await t.throwsAsync(
      sequelize.transaction((transaction) => packs.create(transaction, 'pack', { id }, { by: 'clerk' })),
      { instanceOf: UniqueConstraintError },
    );
    t.is((await rows(`SELECT 1 FROM probe.parcels WHERE id = $1`, [id])).length, 1);
  },
);

// Each refusal, through the writer: a 409 with the service's code for its kind, and nothing written
// (status, history, events).
const refusals = [
  {
    name: 'a move the table does not hold',
    from: 'delivered',
    action: 'send',
    by: 'clerk',
    facts: { address: 'Yaba' },
    code: 'parcel.no_move',
    reason: 'a delivered parcel cannot send',
  },
  {
    name: 'a mover the move does not list',
    from: 'sent',
    action: 'deliver',
    by: 'clerk',
    facts: undefined,
    code: 'parcel.wrong_mover',
    reason: 'only courier may deliver a sent parcel',
  },
  {
    name: 'a guard that does not hold',
    from: 'packed',
    action: 'send',
    by: 'clerk',
    facts: {},
    code: 'parcel.guard_failed',
    reason: 'the parcel has no address',
  },
] as const;

for (const refused of refusals) {
  test.serial(
    `the writer refuses ${refused.name} with a 409 and its code, recording no history and publishing nothing`,
    async (t) => {
      const id = newId();
      await sequelize.query(
        `INSERT INTO probe.parcels (id, status, created_at, updated_at) VALUES ($1, $2, now(), now())`,
        { bind: [id, refused.from] },
      );
      const parcelRow = (await Parcel.findByPk(id))!;
      const error = await t.throwsAsync(
        sequelize.transaction((transaction) =>
          writer().move(transaction, parcelRow, refused.action, {
            by: refused.by,
            facts: refused.facts as { address?: string } | undefined,
          }),
        ),
      );
      t.like(error, { status: 409, code: refused.code, message: refused.reason });
      t.deepEqual(await rows(`SELECT status FROM probe.parcels WHERE id = $1`, [id]), [{ status: refused.from }]);
      t.deepEqual(await rows(`SELECT 1 FROM probe.parcel_moves WHERE parcel_id = $1`, [id]), []);
      t.deepEqual(await rows(`SELECT 1 FROM probe.outbox WHERE data->>'parcelId' = $1`, [id]), []);
    },
  );
}

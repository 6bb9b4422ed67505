import test from 'ava';
import pg from 'pg';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { Caller } from '../../server/cap/people/models.ts';
import { createCallerCache, type CallerCache } from '../../server/platform/db/caller-cache.ts';
import { createSequelize } from '../../server/platform/db/database.ts';
import { newId } from '../../server/platform/ids.ts';
import { createLogger } from '../../server/platform/logger.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';

// The callers a service keeps between requests (server/platform/db/caller-cache.ts), against the real
// database and CAP's triggers (cap migration 0020). `sequelize` plays CAP's own pool; `outside` is any
// other connection. The LMS's and the Orchestrator's triggers are checked through their requests
// (test/lms/kept-callers.test.ts, test/ol/kept-sessions.test.ts).
// Serial: a change to everyone (a centre renamed, the listener lost) would reach the other tests.

let platform: TestPlatform;
let sequelize: Sequelize;
let callers: CallerCache<Caller>;
test.before(async () => {
  platform = await startTestPlatform({ only: ['ol', 'cap'] });
  sequelize = createSequelize(platform.databaseUrl, 'cap', 4);
  callers = createCallerCache<Caller>(sequelize, { schema: 'cap', logger: createLogger('silent') });
  await callers.start();
});
test.after.always(async () => {
  await callers?.stop();
  await sequelize?.close();
  await platform?.stop();
});

async function outside(text: string, values: unknown[]): Promise<void> {
  const client = new pg.Client({ connectionString: platform.databaseUrl });
  await client.connect();
  await client.query(text, values).finally(() => client.end());
}

/** A CAP user, and a read of them through the cache that counts the loads it makes. */
async function aUser() {
  const userId = newId();
  await sequelize.query(
    `INSERT INTO cap.users (user_id, email, created_at, updated_at) VALUES ($1, $2, now(), now())`,
    {
      bind: [userId, `${userId.toLowerCase()}@example.test`],
    },
  );
  await callers.settled(); // the insert's own notification, so that it cannot drop the first kept read
  let loads = 0;
  const load = async () => {
    loads += 1;
    const [user] = await sequelize.query<{ email: string }>('SELECT email FROM cap.users WHERE user_id = $1', {
      bind: [userId],
      type: QueryTypes.SELECT,
    });
    return { user, standing: {} } as unknown as Caller;
  };
  return {
    userId,
    read: (during?: () => Promise<void>) =>
      callers.read(userId, async () => {
        const caller = await load();
        await during?.();
        return caller;
      }),
    loads: () => loads,
  };
}

const setEmail = (userId: string, email: string) =>
  `UPDATE cap.users SET email = '${email}' WHERE user_id = '${userId}'`;

test.serial('a caller that was read is kept: the next read of the same user loads nothing', async (t) => {
  const user = await aUser();
  await user.read();
  await user.read();
  t.is(user.loads(), 1);
});

test.serial(
  "a user's reads by part (a session each) are kept apart, and a change to the user drops them all",
  async (t) => {
    const user = await aUser();
    let loads = 0;
    const read = (part: string) =>
      callers.read(user.userId, async () => (loads++, { part }) as unknown as Caller, part);
    t.like(await read('first'), { part: 'first' });
    t.like(await read('second'), { part: 'second' });
    t.like(await read('first'), { part: 'first' });
    t.is(loads, 2, 'each part read once');
    await outside(setEmail(user.userId, 'parts@example.test'), []);
    await callers.settled();
    t.is(callers.kept(user.userId, 'first'), undefined);
    t.is(callers.kept(user.userId, 'second'), undefined);
  },
);

test.serial('a full cache drops the users kept longest first', async (t) => {
  const small = createCallerCache<Caller>(sequelize, { schema: 'cap', logger: createLogger('silent'), capacity: 2 });
  await small.start();
  t.teardown(() => small.stop());
  const value = {} as Caller;
  await small.read('a', async () => value);
  await small.read('b', async () => value, 'one');
  await small.read('b', async () => value, 'two');
  t.is(small.kept('a'), undefined, 'a went to make room for the second part of b');
  t.truthy(small.kept('b', 'one'));
  await small.read('c', async () => value);
  t.is(small.kept('b', 'one'), undefined, 'b, with both its parts, went for c');
  t.is(small.kept('b', 'two'), undefined);
  t.truthy(small.kept('c'));
});

test.serial(
  'a change made through the pool drops the caller before it commits, and the caller is not kept until the transaction ends',
  async (t) => {
    const user = await aUser();
    await user.read();
    await sequelize.transaction(async (transaction) => {
      await sequelize.query(setEmail(user.userId, 'changing@example.test'), { transaction });
      const during = await user.read();
      t.not(during!.user.email, 'changing@example.test', 'another session does not see the uncommitted change');
      await user.read();
      t.is(user.loads(), 3, 'dropped at once, and each read while the change is open loads again');
    });
    t.is((await user.read())!.user.email, 'changing@example.test', 'the first read after the commit sees the change');
    // The commit's own notification drops the user once more when it arrives; kept from then on.
    await callers.settled();
    await user.read();
    const loads = user.loads();
    await user.read();
    t.is(user.loads(), loads, 'and is kept again');
  },
);

test.serial('a rolled-back change lets the caller be kept again, as it was', async (t) => {
  const user = await aUser();
  await user.read();
  await t.throwsAsync(
    sequelize.transaction(async (transaction) => {
      await sequelize.query(setEmail(user.userId, 'never@example.test'), { transaction });
      throw new Error('rolled back');
    }),
  );
  const after = await user.read();
  await user.read();
  t.not(after!.user.email, 'never@example.test');
  t.is(user.loads(), 2, 'a rolled-back change notifies nobody');
});

test.serial('a read that ran while its user changed is not kept', async (t) => {
  const user = await aUser();
  await user.read(() => sequelize.query(setEmail(user.userId, 'meanwhile@example.test')).then(() => undefined));
  t.is((await user.read())!.user.email, 'meanwhile@example.test');
  t.is(user.loads(), 2);
});

test.serial(
  'a change made outside CAP drops the caller when the database notifies it; settled() waits for that',
  async (t) => {
    const user = await aUser();
    await user.read();
    await outside(setEmail(user.userId, 'outside@example.test'), []);
    await callers.settled();
    t.is((await user.read())!.user.email, 'outside@example.test');
    t.is(user.loads(), 2);
  },
);

test.serial(
  "a centre's new name or status drops every kept caller; another edit of the centre drops nobody",
  async (t) => {
    const user = await aUser();
    const centreId = newId();
    await outside(
      `INSERT INTO cap.centres (id, name, registration_no, status, created_at, updated_at) VALUES ($1, 'Callers Centre', $1, 'pending', now(), now())`,
      [centreId],
    );
    await callers.settled();
    await user.read();
    await outside(`UPDATE cap.centres SET updated_at = now() WHERE id = $1`, [centreId]);
    await callers.settled();
    await user.read();
    t.is(user.loads(), 1, 'a touch that changes neither name nor status');
    await sequelize.query(`UPDATE cap.centres SET name = 'Callers Centre, renamed' WHERE id = $1`, {
      bind: [centreId],
    });
    await user.read();
    t.is(user.loads(), 2, 'a new name: everyone is read again');
  },
);

test.serial('a kept caller is frozen: a handler cannot change what the next request reads', async (t) => {
  const user = await aUser();
  const caller = (await user.read())!;
  t.throws(() => {
    (caller.user as { email: string }).email = 'changed@example.test';
  });
});

test.serial('nothing is kept while the listening connection is down; keeping resumes when it is back', async (t) => {
  const user = await aUser();
  await outside(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'cap-callers' AND datname = current_database()`,
    [],
  );
  await eventually('the cache has lost its listener', async () => {
    const before = user.loads();
    await user.read();
    await user.read();
    return user.loads() === before + 2;
  });
  await eventually('the cache listens again and keeps callers', async () => {
    const before = user.loads();
    await user.read();
    await user.read();
    return user.loads() <= before + 1;
  });
  await outside(setEmail(user.userId, 'relistened@example.test'), []);
  await callers.settled();
  t.is((await user.read())!.user.email, 'relistened@example.test', 'and hears changes again');
});

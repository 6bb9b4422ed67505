import test from 'ava';
import { cap } from '../helpers/cap.ts';
import { call, type TestPlatform } from '../helpers/platform.ts';
import { signUp, type SignedUpUser, platformWithAdmin } from '../helpers/users.ts';

// Versioned platform config and documents (openapi/cap/platform-config.yaml).
let platform: TestPlatform;
let admin: SignedUpUser;
test.before(async () => ({ platform, admin } = await platformWithAdmin()));
test.after.always(() => platform?.stop());

const ngn = (minor: string) => ({ amountMinorUnits: minor, currency: 'NGN' });

test.serial(
  'the config starts at version 1 (floors NGN 25,000 RPL and 15,000 NSQ, fee 10%); a change publishes version 2, and the same change again publishes nothing',
  async (t) => {
    const first = (await cap(platform, admin, 'GET', '/admin/platform-config')).body.data;
    t.like(first, { version: 1, floors: { RPL: ngn('2500000'), NSQ: ngn('1500000') }, feeBasisPoints: 1000 });
    const changed = await cap(platform, admin, 'PATCH', '/admin/platform-config', {
      json: { floors: { RPL: ngn('3000000') }, feeBasisPoints: 1250 },
    });
    t.is(changed.status, 200, changed.text);
    t.like(changed.body.data, {
      version: 2,
      published: true,
      floors: { RPL: ngn('3000000'), NSQ: ngn('1500000') },
      feeBasisPoints: 1250,
    });
    const again = await cap(platform, admin, 'PATCH', '/admin/platform-config', { json: { feeBasisPoints: 1250 } });
    t.like(again.body.data, { version: 2, published: false });
    const versions = (await cap(platform, admin, 'GET', '/admin/platform-config/versions')).body.data;
    t.deepEqual(
      versions.map((v: { version: number }) => v.version),
      [2, 1],
    );
  },
);

test('a negative floor or a fee over 100% is 422; changing the config needs platform.config.write', async (t) => {
  t.is(
    (await cap(platform, admin, 'PATCH', '/admin/platform-config', { json: { floors: { NSQ: ngn('-1') } } })).status,
    422,
  );
  t.is(
    (await cap(platform, admin, 'PATCH', '/admin/platform-config', { json: { feeBasisPoints: 10001 } })).status,
    422,
  );
  const someone = await signUp(platform);
  t.is(
    (await cap(platform, someone, 'PATCH', '/admin/platform-config', { json: { feeBasisPoints: 0 } })).body.error.code,
    'auth.permission_denied',
  );
});

test('documents are published as new versions; the newest terms are public and come with the platform config', async (t) => {
  t.is((await call('GET', platform.url('/v1/cap/admin/terms'))).status, 404, 'none published yet');
  const first = await cap(platform, admin, 'POST', '/admin/policies/terms/versions', {
    json: { title: 'Terms of use', body: 'Version one.' },
  });
  t.is(first.status, 201);
  t.like(first.body.data, { kind: 'terms', version: 1 });
  await cap(platform, admin, 'POST', '/admin/policies/terms/versions', {
    json: { title: 'Terms of use', body: 'Version two.' },
  });
  const current = await call('GET', platform.url('/v1/cap/admin/terms'));
  t.like(current.body.data, { version: 2, body: 'Version two.' });
  t.like(
    (await cap(platform, admin, 'GET', '/admin/platform-config')).body.data.terms,
    { version: 2, body: 'Version two.' },
    'the config read carries the terms in force',
  );
  const versions = (await cap(platform, admin, 'GET', '/admin/policies/terms/versions')).body.data;
  t.deepEqual(
    versions.map((v: { version: number }) => v.version),
    [2, 1],
  );
  t.deepEqual((await cap(platform, admin, 'GET', '/admin/policies/privacy/versions')).body.data, []);
});

import test from 'ava';
import { call, captureLogs, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp, type SignedUpUser } from '../helpers/users.ts';

// Reference data of the Orchestrator (openapi/ol/reference.yaml): banks, the account-name lookup
// and its cache, and address data.
let platform: TestPlatform;
let user: SignedUpUser;
const logs = captureLogs();
test.before(async () => {
  platform = await startTestPlatform({}, { logger: logs.logger });
  user = await signUp(platform);
});
test.after.always(() => platform?.stop());

const ol = (path: string) => platform.url(`/v1/ol${path}`);
const registryLookups = () =>
  logs.lines.filter((line) => line.includes('bank account lookup sent to the sandbox bank registry')).length;

test('GET /banks lists Nigerian banks as the client reads them, public and cacheable for a day', async (t) => {
  const res = await call('GET', ol('/banks?country=NG'));
  t.is(res.status, 200);
  t.is(res.headers['cache-control'], 'public, max-age=86400');
  const gtb = res.body.data.find((bank: { code: string }) => bank.code === '058');
  t.deepEqual(gtb, {
    id: 'NG-058',
    name: 'Guaranty Trust Bank',
    slug: 'guaranty-trust-bank',
    code: '058',
    type: 'commercial',
    currency: 'NGN',
    country: 'NG',
  });
  t.deepEqual((await call('GET', ol('/banks'))).body.data, res.body.data, 'Nigeria is the default');
  t.deepEqual((await call('GET', ol('/banks?country=GH'))).body.data, []);
});

test('GET /banks names the country by its name in any case or its ISO code, with the same reply (the real client sends country=nigeria)', async (t) => {
  const byCode = await call('GET', ol('/banks?country=NG'));
  for (const country of ['nigeria', 'Nigeria', 'NIGERIA', 'ng', 'NGA']) {
    const res = await call('GET', ol(`/banks?country=${country}`));
    t.is(res.status, 200, `${country}: ${res.text}`);
    t.deepEqual(res.body.data, byCode.body.data, country);
  }
  t.deepEqual((await call('GET', ol('/banks?country=ghana'))).body.data, []);
  const nowhere = await call('GET', ol('/banks?country=atlantis'));
  t.is(nowhere.status, 422);
  t.is(nowhere.body.error.code, 'validation.failed');
  t.is(nowhere.body.error.details[0].field, 'query.country');
});

test.serial(
  'a second identical account lookup is answered from the cache without asking the bank registry',
  async (t) => {
    const body = { accountNumber: '0123456789', bankCode: '044' };
    const before = registryLookups();
    const first = await call('POST', ol('/banks/resolve'), { token: user.accessToken, json: body });
    t.is(first.status, 200, first.text);
    t.like(first.body.data, { accountNumber: '0123456789', bankCode: '044', bankName: 'Access Bank' });
    t.regex(first.body.data.accountName, /^[A-Z]+ [A-Z]+ [A-Z]+$/);
    t.regex(String(first.headers['cache-status']), /fwd=miss/);
    const second = await call('POST', ol('/banks/resolve'), { token: user.accessToken, json: body });
    t.is(second.headers['cache-status'], 'capctl-ol; hit');
    t.is(second.body.data.accountName, first.body.data.accountName);
    t.is(registryLookups() - before, 1, 'the registry was asked once');
  },
);

test.serial(
  'an account the bank does not hold is 422 bank.account_not_found, and the miss is remembered too',
  async (t) => {
    const body = { accountNumber: '1234560000', bankCode: '058' };
    const before = registryLookups();
    const res = await call('POST', ol('/banks/resolve'), { token: user.accessToken, json: body });
    t.is(res.status, 422);
    t.is(res.body.error.code, 'bank.account_not_found');
    await call('POST', ol('/banks/resolve'), { token: user.accessToken, json: body });
    t.is(registryLookups() - before, 1);
  },
);

test('the lookup needs a bearer, a 10-digit number and a bank code GET /banks lists', async (t) => {
  t.is(
    (await call('POST', ol('/banks/resolve'), { json: { accountNumber: '0123456789', bankCode: '044' } })).status,
    401,
  );
  const short = await call('POST', ol('/banks/resolve'), {
    token: user.accessToken,
    json: { accountNumber: '12345', bankCode: '044' },
  });
  t.is(short.status, 422);
  const unknown = await call('POST', ol('/banks/resolve'), {
    token: user.accessToken,
    json: { accountNumber: '0123456789', bankCode: '999' },
  });
  t.is(unknown.status, 422);
  t.is(unknown.body.error.details[0].field, 'body.bankCode');
});

test('Nigeria has 37 states (36 and the FCT) and 774 local government areas, by the names clients store', async (t) => {
  const countries = (await call('GET', ol('/address/countries'))).body.data;
  t.true(countries.length >= 249);
  t.deepEqual(
    countries.find((c: { code: string }) => c.code === 'NG'),
    { code: 'NG', name: 'Nigeria' },
  );
  const states = await call('GET', ol('/address/countries/NG/states'));
  t.is(states.headers['cache-control'], 'public, max-age=86400');
  t.is(states.body.data.length, 37);
  t.true(states.body.data.some((s: { name: string }) => s.name === 'Federal Capital Territory'));
  let total = 0;
  for (const { name } of states.body.data) {
    const lgas = await call('GET', ol(`/address/countries/ng/states/${encodeURIComponent(name)}/lgas`));
    t.is(lgas.status, 200, name);
    total += lgas.body.data.length;
  }
  t.is(total, 774);
  const lagos = (await call('GET', ol('/address/countries/NG/states/lagos/lgas'))).body.data.map(
    (l: { name: string }) => l.name,
  );
  t.true(lagos.includes('Ikeja'));
  t.is((await call('GET', ol('/address/countries/NG/states/Atlantis/lgas'))).status, 404);
  t.is((await call('GET', ol('/address/countries/XX/states'))).status, 404);
  t.deepEqual((await call('GET', ol('/address/countries/GH/states'))).body.data, []);
});

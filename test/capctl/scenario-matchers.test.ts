import test from 'ava';
import { checkExpectation, matchFailure } from '../../cli/scenarios/matchers.ts';

const success = {
  success: { test: (status: number) => status >= 200 && status < 300, description: 'a 2xx status' },
  error: { test: (status: number) => status >= 400, description: 'an error status (4xx or 5xx)' },
};

test('a plain value matches by deep equality', (t) => {
  t.is(matchFailure('a', 'a'), undefined);
  t.is(matchFailure(1, 1), undefined);
  t.is(matchFailure(1, '1'), '1');
  t.is(matchFailure({ a: [1, { b: null }] }, { a: [1, { b: null }] }), undefined);
  t.is(matchFailure([1, 2], [2, 1]), '[1,2]');
  t.is(matchFailure(null, undefined), 'null');
});

test('type matches string, number, boolean, array, object and null', (t) => {
  const samples: Array<[string, unknown]> = [
    ['string', 's'],
    ['number', 1.5],
    ['boolean', false],
    ['array', []],
    ['object', {}],
    ['null', null],
  ];
  for (const [type, value] of samples) {
    t.is(matchFailure({ type }, value), undefined, type);
    for (const [, other] of samples.filter(([name]) => name !== type)) {
      t.is(matchFailure({ type }, other), `type ${type}`);
    }
  }
});

test('regex matches strings only', (t) => {
  t.is(matchFailure({ regex: '^[0-9A-Z]{26}$' }, '01K0000000000000000000000A'), undefined);
  t.is(matchFailure({ regex: '^a' }, 'ba'), 'a string matching /^a/');
  t.is(matchFailure({ regex: '1' }, 1), 'a string matching /1/');
});

test('present checks whether the path exists; null counts as present', (t) => {
  t.is(matchFailure({ present: true }, null), undefined);
  t.is(matchFailure({ present: true }, undefined), 'present');
  t.is(matchFailure({ present: false }, undefined), undefined);
  t.is(matchFailure({ present: false }, 0), 'absent');
});

test('length and minLength apply to arrays and strings', (t) => {
  t.is(matchFailure({ length: 2 }, [1, 2]), undefined);
  t.is(matchFailure({ length: 3 }, 'abc'), undefined);
  t.is(matchFailure({ length: 2 }, [1]), 'length 2');
  t.is(matchFailure({ minLength: 1 }, [1, 2]), undefined);
  t.is(matchFailure({ minLength: 1 }, []), 'length >= 1');
  t.is(matchFailure({ minLength: 0 }, undefined), 'length >= 0');
  t.is(matchFailure({ length: 1 }, { length: 1 }), 'length 1');
});

test('equals compares objects that look like matchers', (t) => {
  t.is(matchFailure({ equals: { type: 'admin' } }, { type: 'admin' }), undefined);
  t.is(matchFailure({ equals: { type: 'admin' } }, { type: 'user' }), '{"type":"admin"}');
});

test('some finds an item of an array whose paths all match, wherever it stands in the list', (t) => {
  const list = [
    { id: 'a', paid: false },
    { id: 'b', paid: true, receipt: { url: '/r/b' } },
  ];
  t.is(matchFailure({ some: { id: 'b', paid: true, 'receipt.url': { regex: '^/r/' } } }, list), undefined);
  t.is(matchFailure({ some: { id: 'a', paid: true } }, list), 'an item with {"id":"a","paid":true}');
  t.is(matchFailure({ some: { id: 'a' } }, []), 'an item with {"id":"a"}');
  t.is(matchFailure({ some: { id: 'a' } }, { id: 'a' }), 'an item with {"id":"a"}', 'only an array has items');
});

test('keywords combine, and every failed one is named', (t) => {
  t.is(matchFailure({ type: 'array', minLength: 1 }, [1]), undefined);
  t.is(matchFailure({ type: 'string', regex: '^x' }, 5), 'type string, a string matching /^x/');
});

test('without an expected status any 2xx passes', (t) => {
  t.deepEqual(checkExpectation(undefined, { status: 204, body: undefined }, success), []);
  t.deepEqual(checkExpectation({}, { status: 404, body: undefined }, success), [
    { target: 'status', expected: 'a 2xx status', actual: 404 },
  ]);
});

test('status may be one code or a list', (t) => {
  t.deepEqual(checkExpectation({ status: [200, 201] }, { status: 201, body: {} }, success), []);
  t.deepEqual(checkExpectation({ status: 200 }, { status: 201, body: {} }, success), [
    { target: 'status', expected: '200', actual: 201 },
  ]);
});

test('code is compared with error.code of the envelope', (t) => {
  const body = { success: false, error: { code: 'auth.out_of_scope', message: 'no' }, requestId: 'r' };
  t.deepEqual(checkExpectation({ status: 403, code: 'auth.out_of_scope' }, { status: 403, body }, success), []);
  t.deepEqual(checkExpectation({ status: 403, code: 'auth.persona_not_held' }, { status: 403, body }, success), [
    { target: 'code', expected: '"auth.persona_not_held"', actual: 'auth.out_of_scope' },
  ]);
});

test('body matchers are keyed by paths into the body and report expected against actual', (t) => {
  const body = { data: { user: { email: 'a@x' }, items: [{ id: 'i1' }] } };
  const expectation = {
    body: { 'data.user.email': 'b@x', 'data.items[0].id': { type: 'string' }, 'data.missing': { present: true } },
  };
  t.deepEqual(checkExpectation(expectation, { status: 200, body }, success), [
    { target: 'body data.user.email', expected: '"b@x"', actual: 'a@x' },
    { target: 'body data.missing', expected: 'present', actual: undefined },
  ]);
});

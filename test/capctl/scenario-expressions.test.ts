import test from 'ava';
import {
  evaluate,
  ExpressionError,
  parseTemplate,
  referencesIn,
  type ExpressionContext,
} from '../../cli/scenarios/expressions.ts';
import { generators } from '../../cli/scenarios/generators.ts';
import { getPath, parsePath } from '../../cli/scenarios/paths.ts';

const context: ExpressionContext = {
  vars: { email: 'a@example.test', count: 3, flags: { on: true }, list: [1, 2] },
  env: { HOME_DIR: '/home/qa' },
  actors: { alice: { email: 'alice@example.test', password: 'pw' } },
  steps: {
    login: {
      status: 200,
      headers: { 'x-request-id': 'req-1' },
      body: { data: { accessToken: 'tok', users: [{ id: 'u1' }, { id: 'u2' }] } },
      token: 'tok',
    },
  },
};

test('a string that is exactly one expression keeps the value type', (t) => {
  t.is(evaluate('${vars.count}', context), 3);
  t.deepEqual(evaluate('${vars.flags}', context), { on: true });
  t.deepEqual(evaluate('${ vars.list }', context), [1, 2]);
  t.is(evaluate('${steps.login.status}', context), 200);
});

test('expressions inside longer strings are interpolated as text', (t) => {
  t.is(evaluate('to ${vars.email} (${vars.count})', context), 'to a@example.test (3)');
  t.is(evaluate('flags=${vars.flags}', context), 'flags={"on":true}');
});

test('every root reads its own values', (t) => {
  t.is(evaluate('${env.HOME_DIR}', context), '/home/qa');
  t.is(evaluate('${actors.alice.email}', context), 'alice@example.test');
  t.is(evaluate('${steps.login.token}', context), 'tok');
  t.is(evaluate('${steps.login.body.data.users[1].id}', context), 'u2');
  t.is(evaluate('${steps.login.headers.x-request-id}', context), 'req-1');
});

test('objects and arrays are evaluated deeply; other values pass through', (t) => {
  t.deepEqual(evaluate({ a: ['${vars.count}', 'x${vars.count}'], b: 1, c: null, d: false }, context), {
    a: [3, 'x3'],
    b: 1,
    c: null,
    d: false,
  });
});

test('$${ writes a literal ${', (t) => {
  t.is(evaluate('cost $${vars.count}', context), 'cost ${vars.count}');
  t.is(evaluate('$5', context), '$5');
});

test('a reference to a missing value fails with the expression', (t) => {
  const error = t.throws(() => evaluate('${steps.login.body.data.refreshToken}', context), {
    instanceOf: ExpressionError,
  });
  t.is(error!.message, '${steps.login.body.data.refreshToken} has no value');
});

test('malformed expressions and unknown roots are rejected when parsed', (t) => {
  t.throws(() => parseTemplate('${vars.x'), { message: /unclosed expression/ });
  t.throws(() => parseTemplate('${vars..x}'), { message: /malformed expression/ });
  t.throws(() => parseTemplate('${secrets.x}'), { message: /unknown expression root "secrets"/ });
  t.throws(() => parseTemplate('${vars}'), { message: /names no value under vars/ });
  t.throws(() => parseTemplate('${gen.uuid}'), { message: /unknown generator/ });
});

test('references are found in every string of a value, with where they are', (t) => {
  const found = referencesIn({ http: { path: '/v1/ol/${vars.a}', body: ['${steps.s.x}'] } });
  t.deepEqual(
    found.map(({ reference, at }) => [reference.root, reference.path, at]),
    [
      ['vars', ['a'], ['http', 'path']],
      ['steps', ['s', 'x'], ['http', 'body', 0]],
    ],
  );
});

test('gen.email yields a unique lower-case address each time', (t) => {
  const first = evaluate('${gen.email}', context) as string;
  const second = evaluate('${gen.email}', context) as string;
  t.regex(first, /^qa\+[0-9a-z]{26}@example\.test$/);
  t.not(first, second);
});

test('gen.ulid yields a ULID', (t) => {
  t.regex(generators.ulid!(), /^[0-9A-HJKMNP-TV-Z]{26}$/);
});

test('gen.nin yields 11 digits starting with 100, which the sandbox verifies', (t) => {
  for (let i = 0; i < 50; i += 1) t.regex(generators.nin!(), /^100\d{8}$/);
});

test('dotted paths read keys and array indexes', (t) => {
  t.deepEqual(parsePath('data[0].id'), ['data', 0, 'id']);
  t.deepEqual(parsePath('[1]'), [1]);
  t.is(getPath({ data: [{ id: 'x' }] }, parsePath('data[0].id')), 'x');
  t.is(getPath({ data: [] }, parsePath('data[0].id')), undefined);
  t.is(getPath({ data: 'text' }, parsePath('data.length')), undefined);
  for (const bad of ['', 'a.', '.a', 'a..b', 'a[x]', 'a b']) t.throws(() => parsePath(bad), undefined, bad);
});

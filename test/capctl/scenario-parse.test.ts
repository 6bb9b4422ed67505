import test from 'ava';
import { parseScenario, ScenarioFileError } from '../../cli/scenarios/parse.ts';

const parse = (text: string, options = {}) => parseScenario(text, 'case.yaml', options);

/** The problems a file is rejected with, as `line:column: message`. */
function problems(text: string, options = {}): string[] {
  try {
    parse(text, options);
  } catch (err) {
    if (!(err instanceof ScenarioFileError)) throw err;
    return err.problems.map((p) => `${p.position.line}:${p.position.column}: ${p.message}`);
  }
  throw new Error('the scenario was accepted');
}

const valid = `name: sign up
description: a candidate signs up
vars:
  email: \${gen.email}
actors:
  alice: { email: "\${vars.email}", password: secret, persona: candidate }
steps:
  - id: register
    http:
      method: POST
      path: /v1/ol/auth/register
      body: { email: "\${vars.email}", password: secret }
    expect:
      status: 201
      body:
        data.email: \${vars.email}
        data.userId: { type: string, regex: "^[0-9A-Z]{26}$" }
    capture: { userId: body.data.userId }
  - id: otp
    mail: { to: "\${vars.email}", wait: 5s, since: register }
    capture: { code: body.otp }
  - id: me
    as: alice
    http: { operation: cap.getMe }
    retry: { until: { status: 200 }, times: 3, interval: 200ms }
    expect: { body: { data.userId: "\${steps.register.userId}" } }
  - id: pause
    wait: 500ms
  - id: provision
    grpc: { method: IdentityService.ProvisionAccount, request: { email: "\${gen.email}" } }
`;

test('a well-formed scenario parses into its document', (t) => {
  const scenario = parse(valid);
  t.is(scenario.name, 'sign up');
  t.deepEqual(
    scenario.steps.map((s) => s.id),
    ['register', 'otp', 'me', 'pause', 'provision'],
  );
  t.deepEqual(scenario.steps[0]!.capture, { userId: 'body.data.userId' });
  t.deepEqual(scenario.locate(['steps', 2, 'http', 'operation']), { line: 24, column: 24 });
});

test('command-line variables override the file and count as defined', (t) => {
  const scenario = parse(
    'name: x\nvars: { a: 1 }\nsteps:\n  - { id: s, http: { method: GET, path: "/v1/ol/${vars.b}" } }\n',
    {
      vars: { a: '2', b: 'healthz' },
    },
  );
  t.deepEqual(scenario.vars, { a: '2', b: 'healthz' });
});

test('YAML syntax errors are reported with line and column', (t) => {
  t.deepEqual(problems('name: x\nsteps:\n  - id: a\n   http: GET\n'), [
    '4:1: YAML syntax: Sequence item without - indicator',
  ]);
  t.deepEqual(problems('name: x\nname: y\nsteps: []\n'), ['2:1: YAML syntax: Map keys must be unique']);
});

test('an unknown field is rejected at its key, naming the allowed fields', (t) => {
  const text = 'name: x\nsteps:\n  - id: a\n    http: { method: GET, path: /v1/ol/x }\n    expect:\n      staus: 200\n';
  t.deepEqual(problems(text), [
    '6:7: steps[0].expect.staus: unknown field (expected one of: status, code, headers, body, jmespath, maxDuration, schema)',
  ]);
  t.deepEqual(problems('name: x\nsteps: [{ id: a, wait: 1s }]\ntitle: y\n'), [
    '3:1: title: unknown field (expected one of: name, description, vars, actors, groups, rows, steps)',
  ]);
});

test('every structural problem of a file is reported at once, in file order', (t) => {
  const text = [
    'name: x',
    'steps:',
    '  - id: a',
    '    http: { methd: GET, path: /v1/ol/x }',
    '  - id: b',
    '    wait: 2 seconds',
    '  - name: no id',
    '    wait: 1s',
    '',
  ].join('\n');
  t.deepEqual(problems(text), [
    '4:13: steps[0].http.methd: unknown field (expected one of: operation, method, path, params, query, headers, body, upload)',
    '6:11: steps[1].wait: must be a duration such as 500ms, 2s or 1m',
    '7:5: steps[2]: missing field "id"',
  ]);
});

test('a file must be a mapping with at least one step', (t) => {
  t.deepEqual(problems(''), ['1:1: a scenario file must be a mapping with name and steps']);
  t.deepEqual(problems('- a\n'), ['1:1: a scenario file must be a mapping with name and steps']);
  t.deepEqual(problems('name: x\nsteps: []\n'), ['2:8: steps: must be a list of at least one step']);
  t.deepEqual(problems('steps: [{ id: a, wait: 1s }]\n'), ['1:1: missing field "name"']);
});

test('a step needs exactly one action', (t) => {
  t.deepEqual(problems('name: x\nsteps:\n  - id: a\n    name: nothing\n'), [
    '3:5: steps[0]: a step needs one action: http, grpc, mail, event or wait (or use: a group)',
  ]);
  t.deepEqual(problems('name: x\nsteps:\n  - { id: a, wait: 1s, mail: { to: x } }\n'), [
    '3:5: steps[0]: a step has only one action; choose one of http, grpc, mail, event, wait or use',
  ]);
});

test('values of the wrong type or shape are rejected where they stand', (t) => {
  const text = [
    'name: x',
    'steps:',
    '  - id: a',
    '    http: { method: FETCH, path: /api/x }',
    '    expect: { status: "200", body: { data.x: { type: strin } } }',
    '    retry: { until: {}, times: 500 }',
    '',
  ].join('\n');
  t.deepEqual(problems(text), [
    '4:21: steps[0].http.method: must be one of: GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS',
    '4:34: steps[0].http.path: must start with a service prefix: /v1/ol, /v1/cap or /v1/lms',
    '5:23: steps[0].expect.status: must be a status code or a list of status codes',
    '5:54: steps[0].expect.body["data.x"].type: must be one of: string, number, boolean, array, object, null',
    '6:32: steps[0].retry.times: must be <= 100',
  ]);
});

test('a matcher object may hold only matcher keywords', (t) => {
  const text =
    'name: x\nsteps:\n  - id: a\n    wait: 1s\n  - id: b\n    http: { method: GET, path: /v1/ol/x }\n    expect: { body: { data: { type: object, name: y } } }\n';
  t.deepEqual(problems(text), [
    '7:45: steps[1].expect.body.data.name: unknown field (expected one of: type, regex, present, length, minLength, equals, some)',
  ]);
});

test('step ids are unique and actors must exist', (t) => {
  const text = [
    'name: x',
    'steps:',
    '  - { id: a, wait: 1s }',
    '  - { id: a, as: bob, http: { method: GET, path: /v1/ol/x } }',
    '',
  ].join('\n');
  t.deepEqual(problems(text), ['4:11: steps[1].id: duplicate step id "a"', '4:18: steps[1].as: no actor named "bob"']);
});

test('references to later, unknown or own steps are rejected before anything runs', (t) => {
  const text = [
    'name: x',
    'steps:',
    '  - id: first',
    '    http: { method: GET, path: "/v1/ol/${steps.second.body}" }',
    '  - id: second',
    '    http: { method: GET, path: "/v1/ol/${steps.nope.status}/${steps.second.status}" }',
    '',
  ].join('\n');
  t.deepEqual(problems(text), [
    '4:32: steps[0].http.path: ${steps.second.body}: step "second" has not run yet at this point',
    '6:32: steps[1].http.path: ${steps.nope.status}: no step with id "nope"',
    '6:32: steps[1].http.path: ${steps.second.status}: step "second" has not run yet at this point',
  ]);
});

test("a step reference names the response or one of that step's captures", (t) => {
  const text = [
    'name: x',
    'steps:',
    '  - { id: a, http: { method: GET, path: /v1/ol/x }, capture: { token: body.data.token } }',
    '  - { id: b, http: { method: GET, path: "/v1/ol/${steps.a.token}/${steps.a.tokn}" } }',
    '',
  ].join('\n');
  t.deepEqual(problems(text), [
    '4:41: steps[1].http.path: ${steps.a.tokn}: step "a" offers status, headers, body, token',
  ]);
});

test('unknown expression roots, generators, variables, actors and unset environment variables are rejected', (t) => {
  const text = [
    'name: x',
    'vars:',
    '  a: ${foo.bar}',
    '  b: ${gen.phone}',
    '  c: ${env.CAPCTL_TEST_SURELY_UNSET}',
    'actors:',
    '  al: { email: "${vars.zz}", password: x }',
    'steps:',
    '  - { id: s, http: { method: GET, path: "/v1/ol/${actors.al.persona}/${actors.bo.email}" } }',
    '',
  ].join('\n');
  t.deepEqual(problems(text, { env: {} }), [
    '3:6: vars.a: unknown expression root "foo" in "${foo.bar}" (use vars, steps, env, actors, gen, params)',
    '4:6: vars.b: unknown generator "${gen.phone}" (use gen.email, gen.ulid, gen.nin)',
    '5:6: vars.c: ${env.CAPCTL_TEST_SURELY_UNSET}: environment variable CAPCTL_TEST_SURELY_UNSET is not set',
    '7:16: actors.al.email: ${vars.zz}: no variable "zz" (vars or --var)',
    '9:41: steps[0].http.path: ${actors.al.persona}: actor al has no persona',
    '9:41: steps[0].http.path: ${actors.bo.email}: no actor named "bo"',
  ]);
});

test('vars may use only env and generators; actors also vars', (t) => {
  const text = 'name: x\nvars:\n  a: x\n  b: ${vars.a}\nsteps: [{ id: s, wait: 1s }]\n';
  t.deepEqual(problems(text), ['4:6: vars.b: ${vars.a}: only env, gen can be used here']);
});

test('malformed expressions and paths are rejected', (t) => {
  const text = [
    'name: x',
    'steps:',
    '  - id: s',
    '    http: { method: GET, path: "/v1/ol/${vars.x" }',
    '    expect: { body: { "data..id": 1, d: { regex: "(" } } }',
    '    capture: { status: body.x, y: data.x }',
    '  - id: t',
    '    http: { method: GET, path: /v1/ol/x }',
    '    expect: { body: { data: { some: { "a[": 1, b: { regex: ")" } } } } }',
    '',
  ].join('\n');
  t.deepEqual(problems(text), [
    '4:32: steps[0].http.path: unclosed expression in "/v1/ol/${vars.x"',
    '5:23: steps[0].expect.body["data..id"]: malformed path "data..id"',
    '5:38: steps[0].expect.body.d: invalid regex: Invalid regular expression: /(/: Unterminated group',
    '6:16: steps[0].capture.status: capture name "status" is reserved (status, headers, body)',
    '6:35: steps[0].capture.y: "data.x" must start with status, headers, body',
    '9:39: steps[1].expect.body.data.some["a["]: malformed path "a["',
    "9:48: steps[1].expect.body.data.some.b: invalid regex: Invalid regular expression: /)/: Unmatched ')'",
  ]);
});

test('an http step takes an operation or a method and path, with every path parameter given', (t) => {
  const text = [
    'name: x',
    'steps:',
    '  - { id: a, http: { operation: cap.getMe, method: GET } }',
    '  - { id: b, http: { path: /v1/ol/x } }',
    '  - { id: c, http: { method: GET, path: "/v1/cap/a/{id}", params: { idd: 1 } } }',
    '',
  ].join('\n');
  t.deepEqual(problems(text), [
    '3:22: steps[0].http.operation: give either operation or method and path, not both',
    '4:20: steps[1].http: an http step needs operation, or method and path',
    '5:41: steps[2].http.path: path parameter {id} has no value in params',
    '5:69: steps[2].http.params.idd: path has no {idd}',
  ]);
});

test('a wait step takes nothing else, and mail.since names this or an earlier step', (t) => {
  const text = [
    'name: x',
    'steps:',
    '  - { id: a, wait: 1s, expect: { status: 200 } }',
    '  - { id: b, mail: { to: x, since: c } }',
    '  - { id: c, mail: { to: x, since: c } }',
    '',
  ].join('\n');
  t.deepEqual(problems(text), [
    '3:24: steps[0].expect: a wait step takes no "expect"',
    '4:36: steps[1].mail.since: "c" is not this step or an earlier one',
  ]);
});

test('a bad command-line variable expression is a usage error', (t) => {
  const file = 'name: x\nsteps: [{ id: s, wait: 1s }]\n';
  const vars = { a: '${nope.x}', b: '${steps.s.status}', c: '${env.CAPCTL_TEST_SURELY_UNSET}', d: '${gen.nin}' };
  const error = t.throws(() => parse(file, { vars, env: {} }));
  t.is(error!.name, 'UsageError');
  t.deepEqual(error!.message.split('\n'), [
    'variable a: unknown expression root "nope" in "${nope.x}" (use vars, steps, env, actors, gen, params)',
    'variable b: ${steps.s.status}: only env, gen can be used here',
    'variable c: ${env.CAPCTL_TEST_SURELY_UNSET}: environment variable CAPCTL_TEST_SURELY_UNSET is not set',
  ]);
});

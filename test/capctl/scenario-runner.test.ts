import { createServer } from 'node:net';
import anyTest, { type TestFn } from 'ava';
import { UsageError } from '../../cli/output.ts';
import { UnreachableError } from '../../cli/output.ts';
import { pollDelayMs } from '../../cli/scenarios/actions.ts';
import { parseScenario } from '../../cli/scenarios/parse.ts';
import { runScenarios, type RunOptions, type RunReport, type StepResult } from '../../cli/scenarios/runner.ts';
import { startFakePlatform, type FakePlatform } from './scenario-fake-platform.ts';

const test = anyTest as TestFn<{ platform: FakePlatform }>;

test.beforeEach(async (t) => {
  t.context.platform = await startFakePlatform();
});
test.afterEach.always(async (t) => {
  await t.context.platform.close();
});

const actors = `actors:
  alice: { email: alice@example.test, password: right-password, persona: centre, centre: c-1 }
  mallory: { email: mallory@example.test, password: wrong-password }
`;

function run(t: { context: { platform: FakePlatform } }, yaml: string, options: Partial<RunOptions> = {}) {
  const scenario = parseScenario(`name: case\n${actors}${yaml}`, 'case.yaml');
  return runScenarios([scenario], { baseUrl: t.context.platform.url, ...options });
}

const steps = (report: RunReport) => report.scenarios[0]!.steps;
const step = (report: RunReport, id: string) => steps(report).find((s) => s.id === id) as StepResult;
const echoed = (result: StepResult) => (result.response?.body as { data: { headers: Record<string, string> } }).data;

test('an actor logs in once, on first use, and sends its persona and centre to CAP only', async (t) => {
  const report = await run(
    t,
    `steps:
  - { id: anonymous, http: { method: GET, path: /v1/ol/healthz } }
  - id: cap
    as: alice
    http: { operation: cap.getMe }
    expect: { body: { data.email: alice@example.test, data.persona: centre, data.centreId: c-1 } }
  - id: ol
    as: alice
    http: { method: POST, path: /v1/ol/echo, body: {} }
    expect:
      body:
        data.headers.authorization: { regex: "^Bearer access-alice" }
        data.headers.x-cap-persona: { present: false }
        data.headers.x-cap-centre-id: { present: false }
`,
  );
  t.is(report.exitCode, 0, JSON.stringify(report, null, 2));
  t.is(t.context.platform.calls.login, 1);
});

test("a step's headers override the actor's and null removes one", async (t) => {
  const report = await run(
    t,
    `steps:
  - id: echo
    as: alice
    http:
      method: POST
      path: /v1/cap/echo
      headers: { X-CAP-PERSONA: assessor, x-cap-centre-id: null, x-extra: 7 }
    expect:
      status: 200
`,
  );
  const headers = echoed(step(report, 'echo')).headers;
  t.is(headers['x-cap-persona'], 'assessor');
  t.false('x-cap-centre-id' in headers);
  t.is(headers['x-extra'], '7');
});

test('a 401 refreshes the tokens once and replays the request once', async (t) => {
  const report = await run(
    t,
    `steps:
  - { id: before, as: alice, http: { operation: cap.getMe } }
  - { id: expire, http: { method: POST, path: /v1/ol/test/expire-tokens } }
  - { id: after, as: alice, http: { operation: cap.getMe } }
  - { id: again, as: alice, http: { operation: cap.getMe } }
`,
  );
  t.is(report.exitCode, 0);
  t.deepEqual([t.context.platform.calls.login, t.context.platform.calls.refresh], [1, 1]);
});

test('when the refresh is refused the 401 stands', async (t) => {
  const report = await run(
    t,
    `steps:
  - { id: before, as: alice, http: { operation: cap.getMe } }
  - { id: expire, http: { method: POST, path: /v1/ol/test/expire-tokens, body: { refreshToo: true } } }
  - { id: after, as: alice, http: { operation: cap.getMe } }
`,
  );
  t.is(report.exitCode, 1);
  t.deepEqual(step(report, 'after').mismatches, [{ target: 'status', expected: 'a 2xx status', actual: 401 }]);
  t.is(t.context.platform.calls.refresh, 1);
});

test('an actor that cannot log in fails the step and shows the login exchange without the password', async (t) => {
  const report = await run(t, 'steps:\n  - { id: me, as: mallory, http: { operation: cap.getMe } }\n');
  const me = step(report, 'me');
  t.is(me.status, 'failed');
  t.is(me.message, 'cannot log in as actor mallory (mallory@example.test)');
  t.deepEqual(me.request?.body, { email: 'mallory@example.test', password: '[redacted]' });
  t.is(me.response?.status, 401);
});

test('captures feed later steps and keep their type', async (t) => {
  const report = await run(
    t,
    `steps:
  - id: count
    http: { method: GET, path: /v1/cap/counter }
    capture: { n: body.data.count, requestStatus: status }
  - id: echo
    http: { method: POST, path: /v1/cap/echo, body: { n: "\${steps.count.n}", text: "n=\${steps.count.n}", whole: "\${steps.count.body.data}" } }
    expect:
      body:
        data.body.n: 1
        data.body.text: n=1
        data.body.whole: { count: 1 }
        data.headers.content-type: application/json
`,
  );
  t.is(report.exitCode, 0, JSON.stringify(steps(report), null, 2));
});

test('retry repeats the step until its condition holds', async (t) => {
  const report = await run(
    t,
    `steps:
  - id: poll
    http: { method: GET, path: /v1/cap/counter }
    retry: { until: { body: { data.count: 3 } }, times: 5, interval: 10ms }
    expect: { body: { data.count: 3 } }
`,
  );
  t.is(report.exitCode, 0);
  t.is(step(report, 'poll').attempts, 3);
});

test('a retry whose condition never holds fails with the difference', async (t) => {
  const report = await run(
    t,
    `steps:
  - id: poll
    http: { method: GET, path: /v1/cap/counter }
    retry: { until: { body: { data.count: 9 } }, times: 2, interval: 10ms }
`,
  );
  t.is(report.exitCode, 1);
  t.like(step(report, 'poll'), {
    attempts: 2,
    mismatches: [{ target: 'retry until body data.count', expected: '9', actual: 2 }],
  });
});

test("an operation takes its method and path from the service's OpenAPI document", async (t) => {
  const report = await run(
    t,
    `steps:
  - id: item
    http: { operation: cap.getItem, params: { id: "a/b c" }, query: { tag: [x, y], on: true, none: null } }
    expect: { body: { data.id: "a/b c", data.query: { tag: [x, y], on: "true" } } }
`,
  );
  t.is(report.exitCode, 0, JSON.stringify(steps(report), null, 2));
});

test('an unknown operation, or one missing a path parameter, is a file error before any step runs', async (t) => {
  const error = await t.throwsAsync(
    run(
      t,
      'steps:\n  - { id: a, http: { method: GET, path: /v1/cap/counter } }\n  - { id: b, http: { operation: cap.nope } }\n',
    ),
    { instanceOf: UsageError },
  );
  t.is(error!.message, 'case.yaml:7:33: cap.nope: no such operationId in /v1/cap/openapi.json');
  t.is(t.context.platform.calls.requests, 2, 'only the health check and the OpenAPI document');
  await t.throwsAsync(run(t, 'steps:\n  - { id: a, http: { operation: cap.getItem } }\n'), {
    instanceOf: UsageError,
    message: 'case.yaml:6:33: cap.getItem (/v1/cap/items/{id}) needs params.id',
  });
});

test('a mail step waits for mail sent after the named step started and exposes its OTP', async (t) => {
  const report = await run(
    t,
    `steps:
  - { id: send, http: { method: POST, path: /v1/ol/test/send-mail, body: { to: bob@example.test, delayMs: 200 } } }
  - id: otp
    mail: { to: bob@example.test, wait: 3s, since: send }
    expect: { body: { subject: Your code } }
    capture: { code: body.otp }
  - { id: use, http: { method: POST, path: /v1/cap/echo, body: { otp: "\${steps.otp.code}" } }, expect: { body: { data.body.otp: "4321" } } }
`,
  );
  t.is(report.exitCode, 0, JSON.stringify(steps(report), null, 2));
});

test('a mail or event step waits 10 ms before its second look, then twice as long each time up to 250 ms', (t) => {
  // A fixed 250 ms between looks made every mail step last a quarter second, though mail arrives within tens of ms.
  t.deepEqual(
    Array.from({ length: 8 }, (_, attempt) => pollDelayMs(attempt)),
    [10, 20, 40, 80, 160, 250, 250, 250],
  );
});

test('mail sent before the named step does not count', async (t) => {
  const report = await run(
    t,
    `steps:
  - { id: send, http: { method: POST, path: /v1/ol/test/send-mail, body: { to: bob@example.test } } }
  - { id: pause, wait: 20ms }
  - { id: later, http: { method: GET, path: /v1/ol/healthz } }
  - { id: any, mail: { to: bob@example.test } }
  - { id: fresh, mail: { to: bob@example.test, wait: 100ms, since: later } }
`,
  );
  t.is(step(report, 'any').status, 'passed');
  t.is(step(report, 'fresh').message, 'no mail to bob@example.test sent after step later started within 100ms');
});

test('an event step waits for an event of its type whose data matches, and exposes it', async (t) => {
  const report = await run(
    t,
    `steps:
  - { id: other, http: { method: POST, path: /v1/ol/test/publish, body: { type: payment.completed, data: { paymentId: p-1 } } } }
  - { id: publish, http: { method: POST, path: /v1/ol/test/publish, body: { type: payment.completed, delayMs: 200, data: { paymentId: p-2, amount: { currency: NGN } } } } }
  - id: completed
    event: { service: ol, type: payment.completed, where: { paymentId: p-2 }, wait: 3s, since: publish }
    expect: { body: { data.amount.currency: NGN } }
    capture: { id: body.data.paymentId }
  - { id: none, event: { service: ol, type: payment.completed, where: { paymentId: p-3 }, wait: 100ms } }
`,
  );
  t.is(step(report, 'completed').status, 'passed', JSON.stringify(steps(report), null, 2));
  t.is(step(report, 'none').message, 'no payment.completed event from ol with paymentId=p-3 within 100ms');
});

test('the first failed step ends its scenario: the rest are skipped and the run exits 1', async (t) => {
  const report = await run(
    t,
    `steps:
  - id: wrong
    as: alice
    http: { method: POST, path: /v1/cap/echo, body: { a: 1 } }
    expect: { status: 200, body: { data.body.a: { type: string } } }
  - { id: next, wait: 1ms }
`,
  );
  t.is(report.exitCode, 1);
  const wrong = step(report, 'wrong');
  t.deepEqual(wrong.mismatches, [
    { target: 'status', expected: '200', actual: 201 },
    { target: 'body data.body.a', expected: 'type string', actual: 1 },
  ]);
  t.is(wrong.request?.headers.authorization, 'Bearer [redacted]');
  t.deepEqual(wrong.request?.body, { a: 1 });
  t.is(wrong.response?.status, 201);
  t.like(step(report, 'next'), { status: 'skipped', message: 'an earlier step failed' });
});

test('--only runs the named step and the steps it takes values from', async (t) => {
  const yaml = `steps:
  - { id: one, http: { method: GET, path: /v1/cap/counter }, capture: { n: body.data.count } }
  - { id: two, http: { method: GET, path: /v1/cap/counter } }
  - { id: three, http: { method: POST, path: /v1/cap/echo, body: { n: "\${steps.one.n}" } } }
`;
  const report = await run(t, yaml, { only: ['three'] });
  t.deepEqual(
    steps(report).map((s) => s.status),
    ['passed', 'skipped', 'passed'],
  );
  t.is(step(report, 'two').message, 'not selected by --only');
});

test('--skip drops the named step and the steps that take values from it', async (t) => {
  const yaml = `steps:
  - { id: one, http: { method: GET, path: /v1/cap/counter }, capture: { n: body.data.count } }
  - { id: two, http: { method: GET, path: /v1/cap/counter } }
  - { id: three, http: { method: POST, path: /v1/cap/echo, body: { n: "\${steps.one.n}" } } }
`;
  const report = await run(t, yaml, { skip: ['one'] });
  t.deepEqual(
    steps(report).map((s) => [s.status, s.message]),
    [
      ['skipped', 'skipped by --skip'],
      ['passed', undefined],
      ['skipped', 'uses step one, which does not run'],
    ],
  );
});

test('--only leaves out the scenarios that have none of the named steps', async (t) => {
  const scenarios = ['a', 'b'].map((name) =>
    parseScenario(`name: ${name}\nsteps:\n  - { id: ${name}-step, wait: 1ms }\n`, `${name}.yaml`),
  );
  const report = await runScenarios(scenarios, { baseUrl: t.context.platform.url, only: ['b-step'] });
  t.deepEqual(
    report.scenarios.map((s) => s.name),
    ['b'],
  );
});

test('--only or --skip naming no step of any scenario is a usage error', async (t) => {
  await t.throwsAsync(run(t, 'steps:\n  - { id: a, wait: 1ms }\n', { skip: ['b'] }), {
    instanceOf: UsageError,
    message: 'no scenario has a step "b"',
  });
});

test('a platform that stops answering during the run makes the run exit 3', async (t) => {
  const report = await run(
    t,
    `steps:
  - { id: stop, http: { method: POST, path: /v1/ol/test/shutdown } }
  - { id: next, http: { method: GET, path: /v1/ol/healthz } }
`,
  );
  t.is(report.exitCode, 3);
  t.is(report.scenarios[0]!.status, 'unreachable');
  t.regex(step(report, 'next').message!, /^cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)$/);
});

test('an unreachable platform fails before any step runs', async (t) => {
  const port = await closedPort();
  const scenario = parseScenario('name: x\nsteps:\n  - { id: a, wait: 1ms }\n', 'x.yaml');
  await t.throwsAsync(runScenarios([scenario], { baseUrl: `http://127.0.0.1:${port}` }), {
    instanceOf: UnreachableError,
    message: `cannot reach http://127.0.0.1:${port} (ECONNREFUSED)`,
  });
});

test('scenarios run in parallel up to the concurrency, each one step after another', async (t) => {
  const scenarios = ['a', 'b', 'c', 'd'].map((name) =>
    parseScenario(`name: ${name}\nsteps:\n  - { id: one, wait: 50ms }\n  - { id: two, wait: 10ms }\n`, `${name}.yaml`),
  );
  let running = 0;
  let most = 0;
  const order: string[] = [];
  const report = await runScenarios(scenarios, {
    baseUrl: t.context.platform.url,
    concurrency: 3,
    onEvent: (event) => {
      if (event.type === 'scenario-start') most = Math.max(most, ++running);
      if (event.type === 'scenario-end') running -= 1;
      if (event.type === 'step-end' && event.scenario.name === 'a') order.push(event.result.id);
    },
  });
  t.is(most, 3);
  t.deepEqual(order, ['one', 'two']);
  t.deepEqual(
    report.scenarios.map((s) => s.name),
    ['a', 'b', 'c', 'd'],
  );
});

test('twenty scenarios waiting at once on one stop signal raise no listener-leak warning', async (t) => {
  const scenarios = Array.from({ length: 20 }, (_, i) =>
    parseScenario(
      `name: s${i}\nsteps:\n  - { id: nothing, mail: { to: nobody@example.test, wait: 100ms } }\n  - { id: pause, wait: 50ms }\n`,
      `s${i}.yaml`,
    ),
  );
  const warnings: string[] = [];
  const listen = (warning: Error) => void warnings.push(`${warning.name}: ${warning.message}`);
  process.on('warning', listen);
  try {
    const stop = new AbortController();
    await runScenarios(scenarios, { baseUrl: t.context.platform.url, concurrency: 20, signal: stop.signal });
    await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
  } finally {
    process.off('warning', listen);
  }
  t.deepEqual(
    warnings.filter((w) => w.startsWith('MaxListenersExceededWarning')),
    [],
  );
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import anyTest, { type TestFn } from 'ava';
import { runCommand } from '../../cli/commands/run.action.ts';
import type { RunCommandOptions } from '../../cli/commands/run.action.ts';
import { closeGrpc } from '../../cli/scenarios/grpc-step.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { checkWellFormed } from '../helpers/xml.ts';

// The scenario format's features over the real platform, through `capctl run` as it runs in-process
// (runCommand): each test writes a scenario file, runs it and reads the exit code, the progress and
// the JSON report.

const test = anyTest as TestFn<{ dir: string }>;

let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform();
});
test.after.always(async () => {
  await closeGrpc();
  await platform?.stop();
});
test.beforeEach(async (t) => {
  t.context.dir = await mkdtemp(path.join(tmpdir(), 'capctl-features-'));
});
test.afterEach.always(async (t) => {
  await rm(t.context.dir, { recursive: true, force: true });
});

type Context = { context: { dir: string } };

async function file(t: Context, name: string, text: string): Promise<string> {
  const target = path.join(t.context.dir, name);
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, text);
  return target;
}

/** Runs files as `capctl run` does against the test platform (off a terminal); the JSON report when `json`. */
async function run(files: string[], extra: Partial<RunCommandOptions> = {}, quietMs?: number) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runCommand(
    files,
    { var: [], concurrency: 1, only: [], skip: [], baseUrl: platform.urls.gateway!, ...extra },
    {
      stdout: { write: (s: string) => stdout.push(s) },
      stderr: { write: (s: string) => stderr.push(s) },
      signals: new EventEmitter() as unknown as NodeJS.Process, // Ctrl-C is the child-process test's
      ...(quietMs ? { quietMs } : {}),
    },
  );
  const text = stdout.join('');
  return { code, stdout: text, stderr: stderr.join(''), report: extra.json ? JSON.parse(text) : undefined };
}

const steps = (report: { scenarios: Array<{ steps: any[] }> }): any[] => report.scenarios.flatMap((s) => s.steps);

test('expect.code without a status expects an error status, not a 2xx', async (t) => {
  const scenario = await file(
    t,
    'code.yaml',
    `name: an error code implies an error status
steps:
  - id: wrong-password
    http: { operation: ol.login, body: { email: nobody@example.test, password: Not-the-password-1 } }
    expect: { code: auth.invalid_credentials }
  - id: health-is-no-error
    http: { operation: ol.getHealthz }
    expect: { code: auth.invalid_credentials }
`,
  );
  const { code, report } = await run([scenario], { json: true });
  t.is(code, 1);
  const [login, health] = steps(report);
  t.is(login.status, 'passed');
  t.is(health.status, 'failed');
  t.deepEqual(health.mismatches[0], { target: 'status', expected: 'an error status (4xx or 5xx)', actual: 200 });
});

test('one YAML mistake in a flow mapping is one error at its line and column, with a hint, and nothing runs', async (t) => {
  const lines = ['name: one mistake', 'steps:'];
  for (let i = 0; i < 40; i++) {
    lines.push(
      `  - id: s${i}`,
      `    http: { operation: ol.getHealthz, headers: { x-step: ${i === 3 ? '${steps.s0.status}' : `"${i}"`} } }`,
    );
  }
  const scenario = await file(t, 'flow.yaml', `${lines.join('\n')}\n`);
  const error = await t.throwsAsync(run([scenario]));
  const message = error!.message;
  t.is(message.split('\n').length, 1, message);
  t.regex(message, new RegExp(`^${scenario.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:10:\\d+: YAML syntax: `));
  t.regex(message, /quote a value that contains/);
  t.regex(message, /more errors? after it/);
});

test('header and response-time assertions: names in any case, matchers, a time limit, each failure named', async (t) => {
  const scenario = await file(
    t,
    'headers.yaml',
    `name: headers and time
steps:
  - id: ok
    http: { operation: ol.getHealthz }
    expect:
      headers:
        Content-Type: { regex: "^application/json" }
        x-request-id: { type: string, minLength: 1 }
        x-powered-by: { present: false }
      maxDuration: 10s
  - id: wrong
    name: a sign-in (a password hash to check) within 1 ms
    http: { operation: ol.login, body: { email: nobody@example.test, password: Not-the-password-1 } }
    expect:
      code: auth.invalid_credentials
      headers: { content-type: text/html, x-missing: { present: true } }
      maxDuration: 1ms
`,
  );
  const { code, report } = await run([scenario], { json: true });
  t.is(code, 1);
  const [ok, wrong] = steps(report);
  t.is(ok.status, 'passed', JSON.stringify(ok.mismatches));
  t.like(wrong.mismatches[0], { target: 'header content-type', expected: '"text/html"' });
  t.regex(wrong.mismatches[0].actual, /^application\/json/);
  t.deepEqual(wrong.mismatches[1], { target: 'header x-missing', expected: 'present' });
  t.like(wrong.mismatches[2], { target: 'duration', expected: 'at most 1 ms' });
  t.regex(wrong.mismatches[2].actual, /^\d+ ms$/);
});

test('JMESPath captures and expectations find an array item by a field value, with expressions inside the query', async (t) => {
  const scenario = await file(
    t,
    'jmespath.yaml',
    `name: filters
vars: { bank: Zenith Bank }
steps:
  - id: banks
    http: { operation: ol.listBanks }
    capture:
      zenithCode: { jmespath: "body.data[?name=='\${vars.bank}'].code | [0]" }
      count: { jmespath: "length(body.data)" }
    expect:
      jmespath:
        "data[?name=='\${vars.bank}'] | length(@)": 1
        "data[?type=='commercial'].name": { type: array, minLength: 5 }
        "data[?name=='No Such Bank'] | [0]": { present: false }
  - id: use-them
    http: { operation: ol.listBanks }
    expect:
      jmespath:
        "data[?code=='\${steps.banks.zenithCode}'].name | [0]": \${vars.bank}
        "length(data)": \${steps.banks.count}
  - id: missing
    http: { operation: ol.listBanks }
    capture:
      none: { jmespath: "body.data[?name=='No Such Bank'].code | [0]" }
`,
  );
  const { code, report } = await run([scenario], { json: true });
  const [banks, useThem, missing] = steps(report);
  t.is(banks.status, 'passed', JSON.stringify(banks));
  t.is(useThem.status, 'passed', JSON.stringify(useThem));
  t.is(code, 1);
  t.deepEqual(missing.mismatches, [
    { target: 'capture none', expected: "a value at jmespath body.data[?name=='No Such Bank'].code | [0]" },
  ]);
});

test('a JMESPath query that does not parse is a file error at its line', async (t) => {
  const scenario = await file(
    t,
    'bad-query.yaml',
    'name: x\nsteps:\n  - id: a\n    http: { operation: ol.listBanks }\n    capture: { n: { jmespath: "body.data[?" } }\n',
  );
  await t.throwsAsync(run([scenario]), { message: /bad-query\.yaml:5:\d+: steps\[0\]\.capture\.n: JMESPath: / });
});

test('replies are checked against the schema their operation documents, by operationId or by method and path; a step can opt out', async (t) => {
  // Another implementation of the services: the real platform behind a proxy that breaks two replies.
  const proxy = await startProxy(platform.urls.gateway!, (path, body) => {
    if (path === '/v1/ol/healthz') return { ...body, data: { ...body.data, status: 42 } };
    if (path === '/v1/ol/banks')
      return {
        ...body,
        data: body.data.map(({ code: _, ...bank }: Record<string, unknown>) => ({ ...bank, extra: true })),
      };
    return body;
  });
  t.teardown(() => proxy.close());
  const scenario = await file(
    t,
    'schema.yaml',
    `name: replies against the documents
steps:
  - id: by-operation
    http: { operation: ol.getHealthz }
  - id: by-path
    http: { method: GET, path: /v1/ol/banks }
  - id: opted-out
    http: { operation: ol.getHealthz }
    expect: { schema: false }
  - id: conforming
    http: { operation: ol.listCountries }
`,
  );
  const { code, report } = await run([scenario], { json: true, baseUrl: proxy.url, continueOnError: true });
  t.is(code, 1);
  const [byOperation, byPath, optedOut, conforming] = steps(report);
  t.like(byOperation.mismatches[0], { target: 'schema', expected: 'the 200 reply ol.getHealthz documents' });
  t.regex(byOperation.mismatches[0].actual, /data\.status: must be one of: ok, ready/);
  t.is(byPath.mismatches[0].expected, 'the 200 reply ol.listBanks documents');
  t.regex(byPath.mismatches[0].actual, /data\[0\]: lacks the required field code/);
  t.is(optedOut.status, 'passed');
  t.is(conforming.status, 'passed');
  const unchecked = await run([scenario], { json: true, baseUrl: proxy.url, schemaCheck: false });
  t.is(unchecked.code, 0, 'capctl run --no-schema-check checks no reply');
});

/** An HTTP proxy to `target` that passes every JSON reply through `change` (by request path). */
async function startProxy(
  target: string,
  change: (path: string, body: any) => unknown,
): Promise<{ url: string; close(): Promise<void> }> {
  const { createServer } = await import('node:http');
  const { request } = await import('undici');
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([name]) => !['host', 'connection'].includes(name)),
    ) as Record<string, string>;
    const upstream = await request(`${target}${req.url}`, {
      method: req.method as 'GET',
      headers,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    const text = await upstream.body.text();
    const type = String(upstream.headers['content-type'] ?? '');
    const body =
      type.includes('json') && text
        ? JSON.stringify(change(new URL(req.url!, 'http://x').pathname, JSON.parse(text)))
        : text;
    res.writeHead(upstream.statusCode, {
      'content-type': type,
      'x-request-id': String(upstream.headers['x-request-id'] ?? ''),
    });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

test('continueOnFail and --continue-on-error go on after a failure; steps that take values from a failed one are skipped', async (t) => {
  const text = (continueOnFail: string) => `name: go on
steps:
  - id: broken
    http: { operation: ol.getHealthz }
    expect: { status: 201 }
    capture: { service: body.data.service }${continueOnFail}
  - id: independent
    http: { operation: ol.listCountries }
  - id: uses-broken
    http: { method: GET, path: "/v1/ol/healthz", query: { from: "\${steps.broken.service}" } }
  - id: uses-that
    http: { method: GET, path: "/v1/ol/healthz", headers: { x-from: "\${steps.uses-broken.status}" } }
  - id: also-broken
    http: { operation: ol.getHealthz }
    expect: { body: { data.service: cap } }
  - id: last
    http: { operation: ol.getHealthz }
`;
  const summary = (report: any) =>
    steps(report).map((s: any) => `${s.id}:${s.status}${s.status === 'skipped' ? ` (${s.message})` : ''}`);
  const stopping = await run([await file(t, 'stop.yaml', text(''))], { json: true });
  t.deepEqual(summary(stopping.report).slice(0, 2), ['broken:failed', 'independent:skipped (an earlier step failed)']);

  const flagged = await run([await file(t, 'flag.yaml', text('\n    continueOnFail: true'))], { json: true });
  t.is(flagged.code, 1);
  t.is(flagged.report.scenarios[0].status, 'failed');
  t.deepEqual(summary(flagged.report), [
    'broken:failed',
    'independent:passed',
    'uses-broken:skipped (uses step broken, which failed)',
    'uses-that:skipped (uses step uses-broken, which did not run)',
    'also-broken:failed',
    'last:skipped (an earlier step failed)',
  ]);

  const all = await run([await file(t, 'all.yaml', text(''))], { json: true, continueOnError: true });
  t.deepEqual(summary(all.report).slice(-2), ['also-broken:failed', 'last:passed']);
});

const signUpGroup = `groups:
  sign-up:
    description: register, read the code, verify
    params: [email, password]
    steps:
      - id: register
        http: { operation: ol.register, body: { email: "\${params.email}", password: "\${params.password}", intents: [cap] } }
        expect: { status: 201 }
        capture: { userId: body.data.userId }
      - id: otp
        mail: { to: "\${params.email}", wait: 10s, since: register }
      - id: verify
        http: { operation: ol.verifyAccount, body: { email: "\${params.email}", otp: "\${steps.otp.body.otp}", purpose: account_verify } }
        expect: { body: { data.user.userId: "\${steps.register.userId}" } }
`;

test("a step group runs its steps in place of each step that uses it, with that step's params and prefixed ids", async (t) => {
  const scenario = await file(
    t,
    'groups.yaml',
    `name: two people sign up through one group
vars: { ada: "\${gen.email}", bob: "\${gen.email}", password: Group-pass-2024 }
actors:
  ada: { email: "\${vars.ada}", password: "\${vars.password}" }
  bob: { email: "\${vars.bob}", password: "\${vars.password}" }
${signUpGroup}
steps:
  - id: ada
    name: Ada signs up
    use: sign-up
    with: { email: "\${vars.ada}", password: "\${vars.password}" }
  - id: bob
    use: sign-up
    with: { email: "\${vars.bob}", password: "\${vars.password}" }
  - id: ada-me
    as: ada
    http: { operation: cap.getMe }
    expect: { body: { data.userId: "\${steps.ada-register.userId}" } }
  - id: bob-me
    as: bob
    http: { operation: cap.getMe }
    expect: { body: { data.userId: "\${steps.bob-register.userId}", data.email: "\${vars.bob}" } }
`,
  );
  const { code, report } = await run([scenario], { json: true });
  t.is(
    code,
    0,
    JSON.stringify(
      steps(report).filter((s) => s.status !== 'passed'),
      null,
      2,
    ),
  );
  t.deepEqual(
    steps(report).map((s) => `${s.id} (${s.name})`),
    [
      'ada-register (Ada signs up › register)',
      'ada-otp (Ada signs up › otp)',
      'ada-verify (Ada signs up › verify)',
      'bob-register (bob › register)',
      'bob-otp (bob › otp)',
      'bob-verify (bob › verify)',
      'ada-me (ada-me)',
      'bob-me (bob-me)',
    ],
  );
});

test('a group used without a param, with an unknown one, or naming an unknown group is a file error at the line of each', async (t) => {
  const scenario = await file(
    t,
    'bad-groups.yaml',
    `name: bad uses
${signUpGroup}
steps:
  - id: a
    use: sign-up
    with: { email: a@example.test }
  - id: b
    use: sign-up
    with: { email: b@example.test, password: x, pasword: y }
  - id: c
    use: sign-in
`,
  );
  const error = await t.throwsAsync(run([scenario]));
  const lines = error!.message.split('\n').map((line) => line.slice(scenario.length + 1));
  t.deepEqual(lines, [
    '19:10: steps[0].use: group sign-up needs with.password',
    '23:49: steps[1].with.pasword: group sign-up has no param "pasword" (params: email, password)',
    '25:10: steps[2].use: no group named "sign-in" (groups: sign-up)',
  ]);
});

test('rows from the file, from a CSV file next to it, or from --data run the scenario once each, as separate runs in the report', async (t) => {
  const body = `steps:
  - id: banks
    http: { operation: ol.listBanks, query: { country: "\${vars.country}" } }
    expect:
      jmespath:
        "length(data) > \`0\`": \${vars.some}
`;
  const inline = await file(
    t,
    'inline.yaml',
    `name: banks per country\nvars: { some: true }\nrows:\n  - { country: NG, some: true }\n  - { country: GH, some: false }\n${body}`,
  );
  const first = await run([inline], { json: true });
  t.is(first.code, 0, JSON.stringify(first.report.scenarios, null, 2));
  t.deepEqual(
    first.report.scenarios.map((s: any) => [s.name, s.row, s.status]),
    [
      [
        'banks per country [row 1: country=NG, some=true]',
        { index: 1, values: { country: 'NG', some: true } },
        'passed',
      ],
      [
        'banks per country [row 2: country=GH, some=false]',
        { index: 2, values: { country: 'GH', some: false } },
        'passed',
      ],
    ],
  );

  await file(t, 'data/countries.csv', 'country,expected\nNG,yes\nGH,no\nKE,no\n');
  const csv = await file(
    t,
    'csv.yaml',
    `name: from csv\nrows: data/countries.csv\nsteps:\n  - id: banks\n    http: { operation: ol.listBanks, query: { country: "\${vars.country}" } }\n    expect:\n      jmespath: { "length(data) > \`0\` && 'yes' || 'no'": "\${vars.expected}" }\n`,
  );
  const second = await run([csv], { json: true, junit: path.join(t.context.dir, 'rows.xml') });
  t.is(second.code, 0, JSON.stringify(second.report.scenarios, null, 2));
  t.deepEqual(
    second.report.scenarios.map((s: any) => s.row.values.country),
    ['NG', 'GH', 'KE'],
  );
  const junit = await readFile(path.join(t.context.dir, 'rows.xml'), 'utf8');
  t.is(junit.match(/<testsuite /g)?.length, 3);

  const data = await file(t, 'other.csv', 'country,expected\nGH,yes\n');
  const third = await run([csv], { json: true, data });
  t.is(third.code, 1);
  t.is(third.report.scenarios.length, 1);
  t.is(third.report.scenarios[0].name, 'from csv [row 1: country=GH, expected=yes]');
});

test('rows that lack a value or name a bad variable are refused before anything runs', async (t) => {
  await file(t, 'bad.csv', 'country,expected\nNG,yes\nGH\n');
  const scenario = await file(
    t,
    'bad-rows.yaml',
    'name: x\nrows: bad.csv\nsteps:\n  - { id: a, http: { operation: ol.getHealthz } }\n',
  );
  await t.throwsAsync(run([scenario]), { message: /bad\.csv: / });
  const inline = await file(
    t,
    'bad-inline.yaml',
    'name: x\nrows:\n  - { a: 1 }\n  - { b: 2 }\nsteps:\n  - { id: a, http: { operation: ol.getHealthz } }\n',
  );
  await t.throwsAsync(run([inline]), { message: /bad-inline\.yaml:4:5: rows\[1\]: row 2 has b; every row needs a/ });
});

test('--only STEP also runs the steps that create the accounts it acts as; when they cannot be told, the login failure says why', async (t) => {
  const scenario = await file(
    t,
    'only.yaml',
    `name: only what me needs
vars: { email: "\${gen.email}", password: Only-pass-2024 }
actors:
  cand: { email: "\${vars.email}", password: "\${vars.password}" }
steps:
  - id: register
    http: { operation: ol.register, body: { email: "\${vars.email}", password: "\${vars.password}", intents: [cap] } }
    expect: { status: 201 }
  - id: unrelated
    http: { operation: ol.listCountries }
  - id: otp
    mail: { to: "\${vars.email}", wait: 10s, since: register }
  - id: verify
    http: { operation: ol.verifyAccount, body: { email: "\${vars.email}", otp: "\${steps.otp.body.otp}", purpose: account_verify } }
  - id: me
    as: cand
    http: { operation: cap.getMe }
`,
  );
  const { code, report } = await run([scenario], { json: true, only: ['me'] });
  t.is(code, 0, JSON.stringify(steps(report), null, 2));
  t.deepEqual(
    steps(report).map((s) => `${s.id}:${s.status}`),
    ['register:passed', 'unrelated:skipped', 'otp:passed', 'verify:passed', 'me:passed'],
  );

  // The account is made under another name for the same address: nothing ties it to the actor.
  const hidden = await file(
    t,
    'hidden.yaml',
    (await readFile(scenario, 'utf8'))
      .replace('cand: { email: "${vars.email}"', 'cand: { email: "${vars.same}"')
      .replace('vars: {', 'vars: { same: "${vars.email}",'),
  );
  const withHint = await run([hidden], {
    json: true,
    only: ['me'],
    var: ['email=hidden@example.test', 'same=hidden@example.test'],
  });
  t.is(withHint.code, 1);
  t.regex(
    steps(withHint.report).at(-1).message,
    /^cannot log in as actor cand \(hidden@example\.test\); steps left out by --only may be the ones that create this account$/,
  );
});

test('a --var that no scenario defines or uses is a usage error naming the variables there are', async (t) => {
  const scenario = await file(
    t,
    'vars.yaml',
    'name: x\nvars: { email: a@example.test }\nsteps:\n  - { id: a, http: { operation: ol.getHealthz, query: { x: "${vars.other}" } } }\n',
  );
  await t.throwsAsync(run([scenario], { var: ['emial=b@example.test', 'other=1'] }), {
    message: '--var emial: no scenario has a variable "emial" (email, other)',
  });
  t.is((await run([scenario], { var: ['email=b@example.test', 'other=1'] })).code, 0);
});

test('off a terminal, progress prints a line per step as it ends and, after a quiet spell, what still runs; with --json on stderr', async (t) => {
  const scenario = await file(
    t,
    'slow.yaml',
    'name: slow\nsteps:\n  - { id: first, http: { operation: ol.getHealthz } }\n  - { id: long, name: a long wait, wait: 1500ms }\n  - { id: last, http: { operation: ol.getHealthz } }\n',
  );
  const plainRun = await run([scenario], {}, 400);
  t.is(plainRun.code, 0);
  t.regex(plainRun.stdout, /^ {2}PASS first +\d+ ms\n {2}… running slow › a long wait \(\d s\)\n/m);
  t.regex(plainRun.stdout, /PASS long \(a long wait\)/);

  const json = await run([scenario], { json: true }, 400);
  t.is(json.report.exitCode, 0);
  t.regex(json.stderr, /PASS first/);
  t.regex(json.stderr, /… running slow › a long wait/);
  t.regex(json.stderr, /1 scenario: 1 passed, 0 failed/);
});

test('--verbose traces the request and response of passed steps in the progress, the JSON and the JUnit reports', async (t) => {
  const scenario = await file(
    t,
    'trace.yaml',
    'name: trace\nsteps:\n  - { id: health, http: { operation: ol.getHealthz } }\n',
  );
  const quiet = await run([scenario], { json: true });
  t.is(steps(quiet.report)[0].request, undefined);
  const junit = path.join(t.context.dir, 'trace.xml');
  const traced = await run([scenario], { json: true, verbose: true, junit });
  const [health] = steps(traced.report);
  t.like(health, {
    status: 'passed',
    request: { method: 'GET' },
    response: { status: 200, body: { success: true, data: { status: 'ok', service: 'ol' } } },
  });
  t.regex(traced.stderr, /PASS health .*\n {6}request: GET http:\/\/\S+\/v1\/ol\/healthz\n[\s\S]*response: 200/);
  const xml = await readFile(junit, 'utf8');
  t.notThrows(() => checkWellFormed(xml));
  t.regex(xml, /<system-out>request: GET [\s\S]*&quot;status&quot;: &quot;ok&quot;[\s\S]*<\/system-out>/);
});

test('--html writes one self-contained page: the summary, every step, a failure open with its request, response and differences', async (t) => {
  const scenario = await file(
    t,
    'html.yaml',
    'name: html <report> & more\nsteps:\n  - { id: ok, http: { operation: ol.getHealthz } }\n  - { id: wrong, http: { operation: ol.getHealthz }, expect: { body: { data.status: "<not ok>" } } }\n  - { id: after, http: { operation: ol.getHealthz } }\n',
  );
  const page = path.join(t.context.dir, 'report.html');
  const { code } = await run([scenario], { html: page });
  t.is(code, 1);
  const html = await readFile(page, 'utf8');
  t.regex(html, /^<!doctype html>/);
  t.notRegex(html, /<script|<link|src=|@import|url\(/i);
  t.regex(html, /<title>capctl run: failed<\/title>/);
  t.regex(html, /html &#60;report&#62; &#38; more/);
  t.regex(html, /<details open><summary><span class="badge failed">FAILED<\/span> wrong/);
  t.regex(html, /body data\.status {2}expected &#34;&#60;not ok&#62;&#34;, got &#34;ok&#34;/);
  t.regex(html, /request: GET http:\/\/\S+\/v1\/ol\/healthz/);
  t.regex(html, /<span class="badge skipped">SKIPPED<\/span> after <small>an earlier step failed<\/small>/);
});

test('Ctrl-C stops a real capctl run: the summary of what ran, a valid JUnit file listing those steps, exit 130', async (t) => {
  const scenario = await file(
    t,
    'interrupted.yaml',
    'name: cut short\nsteps:\n  - { id: first, http: { operation: ol.getHealthz } }\n  - { id: long, wait: 60s }\n  - { id: never, http: { operation: ol.getHealthz } }\n',
  );
  const other = await file(
    t,
    'not-started.yaml',
    'name: not started\nsteps:\n  - { id: health, http: { operation: ol.getHealthz } }\n',
  );
  const junit = path.join(t.context.dir, 'interrupted.xml');
  const json = path.join(t.context.dir, 'interrupted.html');
  const child = spawn(
    process.execPath,
    [
      path.resolve('bin/capctl'),
      'run',
      scenario,
      other,
      '--base-url',
      platform.urls.gateway!,
      '--junit',
      junit,
      '--html',
      json,
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      stdout += d;
      if (/PASS first/.test(stdout)) resolve();
    });
    void exited.then(() => reject(new Error(`capctl exited early: ${stdout}${stderr}`)));
  });
  const sent = Date.now();
  child.kill('SIGINT');
  const code = await exited;
  t.is(code, 130, `${stdout}\n${stderr}`);
  t.true(Date.now() - sent < 10_000, 'it stops at once, not after the 60 s wait');
  t.regex(stderr, /SIGINT: stopping/);
  t.regex(stdout, /^cut short +INTERRUPTED +3 +1 +0 +2 /m);
  t.regex(stdout, /1 scenario: 0 passed, 0 failed in [\d.]+ s; interrupted \(1 cut short\)/);
  const xml = await readFile(junit, 'utf8');
  t.notThrows(() => checkWellFormed(xml));
  t.is(xml.match(/<testsuite /g)?.length, 1);
  t.regex(xml, /<testcase name="first" classname="cut short" time="[\d.]+"\/>/);
  t.regex(xml, /<testcase name="long" [^>]*>\s*<skipped message="interrupted while it ran"\/>/);
  t.regex(xml, /<testcase name="never" [^>]*>\s*<skipped message="the run was interrupted"\/>/);
  t.regex(await readFile(json, 'utf8'), /<title>capctl run: interrupted<\/title>/);
});

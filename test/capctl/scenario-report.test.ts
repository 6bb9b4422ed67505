import test from 'ava';
import { ProgressPrinter } from '../../cli/scenarios/progress.ts';
import { jsonReport } from '../../cli/scenarios/report-json.ts';
import { junitReport } from '../../cli/scenarios/report-junit.ts';
import { describeFailure, plain, summaryTable } from '../../cli/scenarios/report-text.ts';
import { parseScenario } from '../../cli/scenarios/parse.ts';
import type { RunEvent, RunReport, ScenarioResult, StepResult } from '../../cli/scenarios/runner.ts';

const failedStep: StepResult = {
  id: 'me',
  name: 'read <me> & "check"',
  status: 'failed',
  durationMs: 12,
  attempts: 1,
  request: {
    method: 'GET',
    url: 'http://127.0.0.1:4000/v1/cap/me',
    headers: { accept: 'application/json', authorization: 'Bearer [redacted]' },
  },
  response: { status: 403, headers: {}, body: { success: false, error: { code: 'auth.out_of_scope', message: 'no' } } },
  mismatches: [
    { target: 'status', expected: '200', actual: 403 },
    { target: 'body data.email', expected: '"a@x"', actual: undefined },
  ],
};

const scenario = (name: string, status: ScenarioResult['status'], steps: StepResult[]): ScenarioResult => ({
  name,
  file: `fixtures/scenarios/${name}.yaml`,
  status,
  startedAt: '2026-01-01T00:00:00.000Z',
  durationMs: 40,
  steps,
});

const report: RunReport = {
  exitCode: 3,
  durationMs: 120,
  scenarios: [
    scenario('ok', 'passed', [{ id: 'a', name: 'a', status: 'passed', durationMs: 5, attempts: 1 }]),
    scenario('bad', 'failed', [
      failedStep,
      { id: 'b', name: 'b', status: 'skipped', durationMs: 0, attempts: 0, message: 'an earlier step failed' },
    ]),
    scenario('gone', 'unreachable', [
      {
        id: 'c',
        name: 'c',
        status: 'failed',
        durationMs: 3,
        attempts: 1,
        message: 'cannot reach http://127.0.0.1:4000 (ECONNREFUSED)',
      },
    ]),
  ],
};

test('a failure shows the request, the response and expected against actual per matcher', (t) => {
  t.deepEqual(describeFailure(failedStep, plain), [
    'request: GET http://127.0.0.1:4000/v1/cap/me',
    '  accept: application/json',
    '  authorization: Bearer [redacted]',
    'response: 403',
    '  {',
    '    "success": false,',
    '    "error": {',
    '      "code": "auth.out_of_scope",',
    '      "message": "no"',
    '    }',
    '  }',
    'expected vs actual:',
    '  status           expected 200, got 403',
    '  body data.email  expected "a@x", got (absent)',
  ]);
});

test('the summary table has one row per scenario and a closing count', (t) => {
  t.is(
    summaryTable(report, plain),
    [
      'Scenario  Result       Steps  Passed  Failed  Skipped    Time',
      'ok        PASSED           1       1       0        0  0.04 s',
      'bad       FAILED           2       0       1        1  0.04 s',
      'gone      UNREACHABLE      1       0       1        0  0.04 s',
      '',
      '3 scenarios: 1 passed, 2 failed in 0.12 s',
    ].join('\n'),
  );
});

test('the JSON report is valid JSON with per-step timings and the exchange of failed steps', (t) => {
  const parsed = JSON.parse(JSON.stringify(jsonReport(report)));
  t.like(parsed, {
    exitCode: 3,
    summary: { scenarios: 3, passed: 1, failed: 2, steps: { total: 4, passed: 1, failed: 2, skipped: 1 } },
  });
  const [ok, bad] = parsed.scenarios;
  t.deepEqual(ok.steps[0], { id: 'a', name: 'a', status: 'passed', durationMs: 5, attempts: 1 });
  t.is(bad.steps[0].request.headers.authorization, 'Bearer [redacted]');
  t.is(bad.steps[0].response.status, 403);
  t.deepEqual(bad.steps[0].mismatches[1], { target: 'body data.email', expected: '"a@x"' });
});

test('the JUnit report is well-formed XML: a testsuite per scenario, a testcase per step', (t) => {
  const xml = junitReport(report);
  t.notThrows(() => checkWellFormed(xml));
  t.regex(xml, /<testsuites name="capctl run" tests="4" failures="1" errors="1" skipped="1" time="0\.120">/);
  t.is(xml.match(/<testsuite /g)?.length, 3);
  t.is(xml.match(/<testcase /g)?.length, 4);
  t.regex(xml, /<testcase name="read &lt;me&gt; &amp; &quot;check&quot;" classname="bad" time="0\.012">/);
  t.regex(
    xml,
    /<failure message="status: expected 200, got 403; body data.email: expected &quot;a@x&quot;, got \(absent\)" type="expectation">/,
  );
  t.regex(xml, /<error message="cannot reach http:\/\/127.0.0.1:4000 \(ECONNREFUSED\)" type="unreachable">/);
  t.regex(xml, /<skipped message="an earlier step failed"\/>/);
});

test('characters XML cannot hold are dropped from the JUnit report', (t) => {
  const step: StepResult = { ...failedStep, name: 'bell\u0007 and nul\u0000' };
  const xml = junitReport({ ...report, scenarios: [scenario('odd', 'failed', [step])] });
  t.notThrows(() => checkWellFormed(xml));
  t.regex(xml, /name="bell and nul"/);
});

function events(): RunEvent[] {
  const a = parseScenario('name: a\nsteps:\n  - { id: a, wait: 1ms }\n', 'a.yaml');
  const b = parseScenario('name: b\nsteps:\n  - { id: b, wait: 1ms }\n', 'b.yaml');
  const result = report.scenarios[0]!;
  return [
    { type: 'run-start', scenarios: [a, b] },
    { type: 'scenario-start', scenario: a },
    { type: 'step-start', scenario: a, step: a.steps[0]! },
    { type: 'step-end', scenario: a, result: result.steps[0]! },
    { type: 'scenario-end', scenario: a, result },
  ];
}

const sink = (isTTY: boolean) => {
  const chunks: string[] = [];
  return { chunks, out: { isTTY, columns: 80, write: (text: string) => chunks.push(text) } };
};

test('without a TTY, progress is plain lines: no colours, no live line', (t) => {
  const { chunks, out } = sink(false);
  const printer = new ProgressPrinter(out, true, {});
  events().forEach(printer.handle);
  printer.finish(report);
  const text = chunks.join('');
  t.false(text.includes('\x1b'));
  t.true(text.startsWith('a  a.yaml\n  PASS a  5 ms\n\n'));
});

test('on a TTY with several scenarios, a live bar shows progress and the running step', (t) => {
  const { chunks, out } = sink(true);
  const printer = new ProgressPrinter(out, true, { NO_COLOR: '1' });
  events().forEach(printer.handle);
  t.true(chunks.includes('[--------------------] 0/2  a › a'));
  t.true(chunks.includes('[##########----------] 1/2  '));
  t.true(chunks.includes('\r\x1b[2K'));
});

/**
 * A small well-formedness check: one root element, properly nested tags, quoted attributes, and no bare
 * `<` or `&` in text or attribute values.
 */
function checkWellFormed(xml: string): void {
  const body = xml.replace(/^<\?xml [^?]*\?>\s*/, '');
  const token = /<\/([A-Za-z_][\w.-]*)\s*>|<([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"<]*")*)\s*(\/?)>|([^<]+)/gy;
  const entity = /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/;
  const open: string[] = [];
  let roots = 0;
  let match: RegExpExecArray | null;
  while (token.lastIndex < body.length) {
    const at = token.lastIndex;
    match = token.exec(body);
    if (!match) throw new Error(`unexpected markup at ${at}: ${body.slice(at, at + 40)}`);
    const [, close, name, attributes, selfClosing, text] = match;
    if (text !== undefined) {
      if (open.length === 0 && text.trim() !== '') throw new Error('text outside the root element');
      if (entity.test(text)) throw new Error(`bare & in text at ${at}`);
    } else if (close !== undefined) {
      if (open.pop() !== close) throw new Error(`mismatched </${close}> at ${at}`);
    } else {
      if (entity.test(attributes ?? '')) throw new Error(`bare & in attribute at ${at}`);
      if (open.length === 0) roots += 1;
      if (!selfClosing) open.push(name!);
    }
  }
  if (open.length > 0 || roots !== 1) throw new Error('unclosed elements or not exactly one root');
}

/** JUnit XML for CI: one testsuite per scenario, one testcase per step. */
import { describeExchange, describeFailure, mismatchText, plain } from './report-text.ts';
import type { RunReport, ScenarioResult, StepResult } from './runner.ts';

/** With `verbose`, a passed step's request and response are its `system-out`. */
export function junitReport(report: RunReport, verbose = false): string {
  const totals = counts(report.scenarios);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="capctl run" ${totals} time="${secs(report.durationMs)}">`,
    ...report.scenarios.map((scenario) => suite(scenario, verbose)),
    '</testsuites>',
    '',
  ].join('\n');
}

function suite(scenario: ScenarioResult, verbose: boolean): string {
  const attributes = `name="${xml(scenario.name)}" file="${xml(scenario.file)}" ${counts([scenario])}`;
  return [
    `  <testsuite ${attributes} time="${secs(scenario.durationMs)}" timestamp="${scenario.startedAt}">`,
    ...scenario.steps.map((step) => testcase(scenario, step, verbose)),
    '  </testsuite>',
  ].join('\n');
}

function testcase(scenario: ScenarioResult, step: StepResult, verbose: boolean): string {
  const name = `name="${xml(step.name)}" classname="${xml(scenario.name)}"`;
  const open = `    <testcase ${name} time="${secs(step.durationMs)}"`;
  if (step.status === 'passed') {
    const trace = verbose ? describeExchange(step) : [];
    return trace.length === 0
      ? `${open}/>`
      : `${open}>\n      <system-out>${xml(trace.join('\n'))}</system-out>\n    </testcase>`;
  }
  if (step.status === 'skipped') {
    return `${open}>\n      <skipped message="${xml(step.message ?? '')}"/>\n    </testcase>`;
  }
  const kind = failureKind(scenario);
  const message = step.message ?? step.mismatches?.map((m) => `${m.target}: ${mismatchText(m)}`).join('; ') ?? '';
  const type = kind === 'error' ? 'unreachable' : 'expectation';
  const details = xml(describeFailure(step, plain).join('\n'));
  return [
    `${open}>`,
    `      <${kind} message="${xml(message)}" type="${type}">${details}</${kind}>`,
    '    </testcase>',
  ].join('\n');
}

/** A step that could not reach the platform is an error; a wrong answer is a failure. */
const failureKind = (scenario: ScenarioResult) => (scenario.status === 'unreachable' ? 'error' : 'failure');

function counts(scenarios: ScenarioResult[]): string {
  const n = (predicate: (scenario: ScenarioResult, step: StepResult) => boolean) =>
    scenarios.reduce((sum, scenario) => sum + scenario.steps.filter((step) => predicate(scenario, step)).length, 0);
  const failed = (kind: string) => (scenario: ScenarioResult, step: StepResult) =>
    step.status === 'failed' && failureKind(scenario) === kind;
  const skipped = n((_, step) => step.status === 'skipped');
  return `tests="${n(() => true)}" failures="${n(failed('failure'))}" errors="${n(failed('error'))}" skipped="${skipped}"`;
}

const secs = (ms: number) => (ms / 1000).toFixed(3);

/** Escapes text for an attribute or element, dropping characters XML 1.0 cannot hold. */
export function xml(text: string): string {
  return text
    .replace(/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

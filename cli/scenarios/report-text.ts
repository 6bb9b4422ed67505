/** Text for people: a failed step in detail, and the summary table. Colour is the caller's choice. */
import type { HttpRequest, HttpResponse } from './http.ts';
import type { Mismatch } from './matchers.ts';
import type { RunReport, StepResult, StepStatus } from './runner.ts';

export interface Style {
  passed(text: string): string;
  failed(text: string): string;
  skipped(text: string): string;
  dim(text: string): string;
}

export const plain: Style = { passed: (t) => t, failed: (t) => t, skipped: (t) => t, dim: (t) => t };

const ansi = (open: number, close: number) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`;
export const coloured: Style = { passed: ansi(32, 39), failed: ansi(31, 39), skipped: ansi(33, 39), dim: ansi(2, 22) };

const labels: Record<StepStatus, string> = { passed: 'PASS', failed: 'FAIL', skipped: 'SKIP' };

export function statusLabel(status: StepStatus, style: Style): string {
  return style[status](labels[status]);
}

/** `id`, or `id (name)` when the step has a name of its own. */
export const stepLabel = (step: { id: string; name?: string }) =>
  step.name === undefined || step.name === step.id ? step.id : `${step.id} (${step.name})`;

/** One line per step: status, label padded to `width`, time (or why it was skipped). */
export function stepLine(step: StepResult, style: Style, width = 0): string {
  const detail =
    step.status === 'skipped'
      ? (step.message ?? '')
      : `${step.durationMs} ms${step.attempts > 1 ? `, ${step.attempts} attempts` : ''}`;
  return `  ${statusLabel(step.status, style)} ${stepLabel(step).padEnd(width)}  ${style.dim(detail)}`;
}

/** What a step sent and what came back (the trace of a passed step with --verbose). */
export function describeExchange(step: StepResult): string[] {
  return [...(step.request ? requestLines(step.request) : []), ...(step.response ? responseLines(step.response) : [])];
}

/** What a failed step sent, what came back, and how it differs from what was expected (one line each). */
export function describeFailure(step: StepResult, style: Style): string[] {
  const lines: string[] = [];
  if (step.message) lines.push(`error: ${step.message}`);
  if (step.request) lines.push(...requestLines(step.request));
  if (step.response) lines.push(...responseLines(step.response));
  if (step.mismatches?.length) {
    lines.push('expected vs actual:');
    const width = Math.max(...step.mismatches.map((m) => m.target.length));
    for (const m of step.mismatches) lines.push(`  ${m.target.padEnd(width)}  ${mismatchText(m, style)}`);
  }
  return lines;
}

export function mismatchText(m: Mismatch, style: Style = plain): string {
  const actual = m.actual === undefined ? '(absent)' : truncate(JSON.stringify(m.actual), 200);
  return `expected ${style.passed(m.expected)}, got ${style.failed(actual)}`;
}

function requestLines(req: HttpRequest): string[] {
  return [
    `request: ${req.method} ${req.url}`,
    ...Object.entries(req.headers).map(([name, value]) => `  ${name}: ${value}`),
    ...bodyLines(req.body),
  ];
}

function responseLines(res: HttpResponse): string[] {
  return [`response: ${res.status}`, ...bodyLines(res.body)];
}

function bodyLines(body: unknown): string[] {
  if (body === undefined) return [];
  const text = typeof body === 'string' ? body : JSON.stringify(body, null, 2);
  return truncate(text, 4000)
    .split('\n')
    .map((line) => `  ${line}`);
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/** The table printed after a run, one row per scenario, and a closing line. */
export function summaryTable(report: RunReport, style: Style): string {
  const header = ['Scenario', 'Result', 'Steps', 'Passed', 'Failed', 'Skipped', 'Time'];
  const rows = report.scenarios.map((s) => {
    const count = (status: StepStatus) => String(s.steps.filter((step) => step.status === status).length);
    const steps = String(s.steps.length);
    return [
      s.name,
      s.status.toUpperCase(),
      steps,
      count('passed'),
      count('failed'),
      count('skipped'),
      seconds(s.durationMs),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const format = (cells: string[]) =>
    cells.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  const colourRow = (line: string, status: string) => (status === 'PASSED' ? line : style.failed(line));
  const count = report.scenarios.length;
  const passed = report.scenarios.filter((s) => s.status === 'passed').length;
  const failed = report.scenarios.filter((s) => s.status !== 'passed' && s.status !== 'interrupted').length;
  const cut = count - passed - failed;
  const interrupted = report.interrupted
    ? `; interrupted${cut > 0 ? ` (${cut} cut short)` : ''}, the scenarios that had not started are left out`
    : '';
  const totals = `${count} scenario${count === 1 ? '' : 's'}: ${passed} passed, ${failed} failed in ${seconds(report.durationMs)}${interrupted}`;
  return [
    format(header),
    ...rows.map((row) => colourRow(format(row), row[1]!)),
    '',
    failed === 0 && !report.interrupted ? style.passed(totals) : style.failed(totals),
  ].join('\n');
}

export const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

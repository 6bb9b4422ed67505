/**
 * `capctl run --html FILE`: the run as one self-contained page (styles inline, no scripts, nothing
 * fetched), for a CI to keep as an artefact. Failed scenarios and steps open by default; every step
 * folds out its request, response and the differences from what was expected.
 */
import { describeExchange, describeFailure, plain, seconds, stepLabel } from './report-text.ts';
import type { RunReport, ScenarioResult, StepResult } from './runner.ts';

export function htmlReport(report: RunReport, generatedAt = new Date()): string {
  const steps = report.scenarios.flatMap((s) => s.steps);
  const count = (status: string) => steps.filter((step) => step.status === status).length;
  const passed = report.scenarios.filter((s) => s.status === 'passed').length;
  const verdict = report.interrupted ? 'interrupted' : report.exitCode === 0 ? 'passed' : 'failed';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>capctl run: ${verdict}</title>
<style>${style}</style>
</head>
<body>
<header>
<h1>capctl run <span class="badge ${verdict}">${verdict.toUpperCase()}</span></h1>
<p>${generatedAt.toISOString()} &middot; ${seconds(report.durationMs)} &middot; exit code ${report.exitCode}</p>
<p>${report.scenarios.length} scenario${report.scenarios.length === 1 ? '' : 's'}: ${passed} passed, ${report.scenarios.length - passed} not passed &middot;
${steps.length} steps: ${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped${report.interrupted ? ' &middot; interrupted: scenarios that had not started are left out' : ''}</p>
</header>
<table class="summary">
<thead><tr><th>Scenario</th><th>Result</th><th>Steps</th><th>Passed</th><th>Failed</th><th>Skipped</th><th>Time</th></tr></thead>
<tbody>
${report.scenarios.map(summaryRow).join('\n')}
</tbody>
</table>
${report.scenarios.map(scenarioSection).join('\n')}
</body>
</html>
`;
}

function summaryRow(scenario: ScenarioResult, index: number): string {
  const n = (status: string) => scenario.steps.filter((step) => step.status === status).length;
  return `<tr><td><a href="#s${index}">${html(scenario.name)}</a></td><td><span class="badge ${scenario.status}">${scenario.status.toUpperCase()}</span></td><td>${scenario.steps.length}</td><td>${n('passed')}</td><td>${n('failed')}</td><td>${n('skipped')}</td><td>${seconds(scenario.durationMs)}</td></tr>`;
}

function scenarioSection(scenario: ScenarioResult, index: number): string {
  const open = scenario.status === 'passed' ? '' : ' open';
  return `<details id="s${index}" class="scenario"${open}>
<summary><span class="badge ${scenario.status}">${scenario.status.toUpperCase()}</span> ${html(scenario.name)} <small>${html(scenario.file)} &middot; ${seconds(scenario.durationMs)} &middot; started ${html(scenario.startedAt)}</small></summary>
<ol class="steps">
${scenario.steps.map(stepItem).join('\n')}
</ol>
</details>`;
}

function stepItem(step: StepResult): string {
  const detail = step.status === 'failed' ? describeFailure(step, plain) : describeExchange(step);
  const time =
    step.status === 'skipped'
      ? html(step.message ?? '')
      : `${step.durationMs} ms${step.attempts > 1 ? `, ${step.attempts} attempts` : ''}`;
  const head = `<span class="badge ${step.status}">${step.status.toUpperCase()}</span> ${html(stepLabel(step))} <small>${time}</small>`;
  if (detail.length === 0) return `<li class="step">${head}</li>`;
  return `<li class="step"><details${step.status === 'failed' ? ' open' : ''}><summary>${head}</summary><pre>${html(detail.join('\n'))}</pre></details></li>`;
}

function html(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const style = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 72rem; padding: 0 1rem; color: #1d1d1f; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; }
header p { margin: .1rem 0; color: #555; }
table.summary { border-collapse: collapse; margin: 1rem 0 1.5rem; width: 100%; }
table.summary th, table.summary td { border-bottom: 1px solid #ddd; padding: .3rem .5rem; text-align: right; }
table.summary th:first-child, table.summary td:first-child, table.summary th:nth-child(2), table.summary td:nth-child(2) { text-align: left; }
details.scenario { border: 1px solid #ddd; border-radius: 6px; margin: .5rem 0; padding: .4rem .8rem; }
details.scenario > summary { cursor: pointer; font-weight: 600; }
summary small, li small { color: #666; font-weight: normal; margin-left: .5rem; }
ol.steps { margin: .5rem 0; padding-left: 1.5rem; }
li.step { margin: .15rem 0; }
li.step summary { cursor: pointer; }
pre { background: #f6f6f8; border-radius: 4px; overflow-x: auto; padding: .5rem .75rem; white-space: pre-wrap; word-break: break-word; }
.badge { border-radius: 4px; color: #fff; display: inline-block; font-size: .75rem; font-weight: 700; min-width: 4.5rem; padding: 0 .35rem; text-align: center; }
.passed { background: #1a7f37; } .failed, .unreachable { background: #cf222e; } .skipped { background: #9a6700; } .interrupted { background: #6e7781; }
`;

/** The machine report of `capctl run --json`. Requests and responses appear for failed steps, or for all with `verbose`. */
import type { RunReport } from './runner.ts';

export function jsonReport(report: RunReport, verbose = false): object {
  const steps = report.scenarios.flatMap((s) => s.steps);
  const count = (status: string) => steps.filter((step) => step.status === status).length;
  return {
    exitCode: report.exitCode,
    durationMs: report.durationMs,
    ...(report.interrupted ? { interrupted: true } : {}),
    summary: {
      scenarios: report.scenarios.length,
      passed: report.scenarios.filter((s) => s.status === 'passed').length,
      failed: report.scenarios.filter((s) => s.status !== 'passed').length,
      steps: { total: steps.length, passed: count('passed'), failed: count('failed'), skipped: count('skipped') },
    },
    scenarios: report.scenarios.map((scenario) => ({
      ...scenario,
      steps: scenario.steps.map(({ request, response, ...step }) =>
        verbose || step.status === 'failed'
          ? { ...step, ...(request ? { request } : {}), ...(response ? { response } : {}) }
          : step,
      ),
    })),
  };
}

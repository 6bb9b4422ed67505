/** `--only` and `--skip`: which steps of a scenario run, and why the others do not. */
import { referencesIn } from './expressions.ts';
import type { Scenario, Step } from './types.ts';

/** The ids of the earlier steps a step takes values from. */
export function dependenciesOf(step: Step): Set<string> {
  const { http, grpc, mail, event, expect, retry, capture } = step;
  const queries = [...Object.keys(expect?.jmespath ?? {}), ...Object.keys(retry?.until.jmespath ?? {})];
  const ids = referencesIn({ http, grpc, mail, event, expect, retry, capture, queries })
    .filter(({ reference }) => reference.root === 'steps')
    .map(({ reference }) => String(reference.path[0]));
  if (mail?.since !== undefined && mail.since !== step.id) ids.push(mail.since);
  if (event?.since !== undefined && event.since !== step.id) ids.push(event.since);
  return new Set(ids);
}

/**
 * Maps each step that will not run to the reason. `only` keeps the named steps and the steps they take
 * values from; `skip` drops the named steps and the steps that take values from them. Returns undefined
 * when `only` names no step of this scenario (the scenario is left out).
 */
export function unselectedSteps(
  scenario: Scenario,
  only: readonly string[],
  skip: readonly string[],
): Map<string, string> | undefined {
  const reasons = new Map<string, string>();
  const byId = new Map(scenario.steps.map((s) => [s.id, s]));
  if (only.length > 0) {
    const kept = new Set<string>();
    const keep = (id: string) => {
      if (kept.has(id) || !byId.has(id)) return;
      kept.add(id);
      for (const dependency of dependenciesOf(byId.get(id)!)) keep(dependency);
    };
    only.forEach(keep);
    if (kept.size === 0) return undefined;
    for (const step of scenario.steps) if (!kept.has(step.id)) reasons.set(step.id, 'not selected by --only');
  }
  for (const step of scenario.steps) {
    if (reasons.has(step.id)) continue;
    const missing = [...dependenciesOf(step)].find((id) => reasons.has(id));
    if (skip.includes(step.id)) reasons.set(step.id, 'skipped by --skip');
    else if (missing) reasons.set(step.id, `uses step ${missing}, which does not run`);
  }
  return reasons;
}

/** `--only` and `--skip`: which steps of a scenario run, and why the others do not. */
import { referencesIn } from './expressions.ts';
import type { Scenario, Step } from './types.ts';

export const notSelectedByOnly = 'not selected by --only';

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
      for (const creator of actorCreators(scenario, byId.get(id)!)) keep(creator);
    };
    only.forEach(keep);
    if (kept.size === 0) return undefined;
    for (const step of scenario.steps) if (!kept.has(step.id)) reasons.set(step.id, notSelectedByOnly);
  }
  for (const step of scenario.steps) {
    if (reasons.has(step.id)) continue;
    const missing = [...dependenciesOf(step)].find((id) => reasons.has(id));
    if (skip.includes(step.id)) reasons.set(step.id, 'skipped by --skip');
    else if (missing) reasons.set(step.id, `uses step ${missing}, which does not run`);
  }
  return reasons;
}

/**
 * The earlier steps that make the accounts a step acts as (`as`, `${actors.x...}`): those whose request
 * names the actor's email (as the actor writes it, e.g. `${vars.email}`, or `${actors.x.email}`) or its
 * password when that is a variable: registering, verifying, setting the password.
 */
export function actorCreators(scenario: Scenario, step: Step): string[] {
  const { http, grpc, mail, event, expect, retry } = step;
  const actors = new Set(
    referencesIn({ http, grpc, mail, event, expect, retry })
      .filter(({ reference }) => reference.root === 'actors')
      .map(({ reference }) => String(reference.path[0])),
  );
  if (step.as !== undefined) actors.add(step.as);
  const index = scenario.steps.indexOf(step);
  return [...actors].flatMap((name) => {
    const actor = scenario.actors?.[name];
    if (!actor) return [];
    const needles = [actor.email, `\${actors.${name}.email}`, `\${actors.${name}.password}`];
    if (actor.password.includes('${')) needles.push(actor.password);
    return scenario.steps
      .slice(0, index)
      .filter((earlier) =>
        stringsIn({ http: earlier.http, grpc: earlier.grpc, mail: earlier.mail }).some((text) =>
          needles.some((needle) => text.includes(needle)),
        ),
      )
      .map((earlier) => earlier.id);
  });
}

function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}

/**
 * Step groups: steps written once under `groups` and used by a step `{id, use, with}`, which stands for
 * the group's steps with `${params.x}` replaced by `with.x` and their ids prefixed by the using step's
 * (`signup` used as `alice` runs `alice-register`, `alice-verify`, ...). The expansion happens before the
 * file's rules are checked, so a group's steps are checked like any other; each keeps where it came
 * from, so a problem is reported at the group's line.
 */
import { parseTemplate, referencesIn, type Reference } from './expressions.ts';
import type { PathSegment } from './paths.ts';
import type { Issue } from '../yaml-file.ts';
import type { Json, ScenarioDocument, Step } from './types.ts';

export interface StepGroup {
  description?: string;
  params?: string[];
  steps: Step[];
}

export interface Expanded {
  steps: Step[];
  /** Where each expanded step is written in the file, and the step that used it when it is a group's. */
  origins: Array<{ path: PathSegment[]; usedBy?: string }>;
  issues: Issue[];
}

export function expandGroups(document: ScenarioDocument): Expanded {
  const groups = document.groups ?? {};
  const expanded: Expanded = { steps: [], origins: [], issues: [] };
  for (const [name, group] of Object.entries(groups)) {
    group.steps.forEach((step, index) => {
      const at: PathSegment[] = ['groups', name, 'steps', index];
      if (step.use !== undefined)
        expanded.issues.push({ path: [...at, 'use'], part: 'key', message: 'a group step cannot use another group' });
      try {
        for (const { reference, at: path } of referencesIn(step, at)) {
          if (reference.root === 'params' && !(group.params ?? []).includes(String(reference.path[0]))) {
            expanded.issues.push({
              path,
              message: `\${${reference.source}}: group ${name} has no param "${String(reference.path[0])}" (params: ${(group.params ?? []).join(', ') || 'none'})`,
            });
          }
        }
      } catch {
        // a malformed expression is reported where the group is used
      }
    });
  }
  document.steps.forEach((step, index) => {
    const at: PathSegment[] = ['steps', index];
    if (step.use === undefined) {
      if (step.with !== undefined)
        expanded.issues.push({ path: [...at, 'with'], part: 'key', message: '"with" goes with "use"' });
      expanded.steps.push(step);
      expanded.origins.push({ path: at });
      return;
    }
    const group = groups[step.use];
    if (!group) {
      const known = Object.keys(groups);
      expanded.issues.push({
        path: [...at, 'use'],
        message: `no group named "${step.use}"${known.length ? ` (groups: ${known.join(', ')})` : ''}`,
      });
      return;
    }
    const extra = Object.keys(step).filter((key) => !['id', 'name', 'use', 'with'].includes(key));
    for (const key of extra)
      expanded.issues.push({
        path: [...at, key],
        part: 'key',
        message: `a step that uses a group takes only id, name, use and with`,
      });
    const params = group.params ?? [];
    const given = step.with ?? {};
    for (const param of params.filter((p) => !(p in given)))
      expanded.issues.push({ path: [...at, 'use'], message: `group ${step.use} needs with.${param}` });
    for (const key of Object.keys(given).filter((k) => !params.includes(k))) {
      expanded.issues.push({
        path: [...at, 'with', key],
        part: 'key',
        message: `group ${step.use} has no param "${key}" (params: ${params.join(', ') || 'none'})`,
      });
    }
    const renamed = new Map(group.steps.map((s) => [s.id, `${step.id}-${s.id}`]));
    group.steps.forEach((member, memberIndex) => {
      const origin: PathSegment[] = ['groups', step.use!, 'steps', memberIndex];
      const rewrite = (text: string, path: PathSegment[]) => {
        try {
          return rewriteText(text, given, params, renamed);
        } catch (err) {
          expanded.issues.push({ path: [...origin, ...path], message: (err as Error).message });
          return text;
        }
      };
      const copy = rewriteValue(member, [], rewrite) as Step;
      copy.id = renamed.get(member.id)!;
      copy.name = `${step.name ?? step.id} › ${member.name ?? member.id}`;
      for (const action of [copy.mail, copy.event]) {
        if (action?.since !== undefined && renamed.has(action.since)) action.since = renamed.get(action.since)!;
      }
      expanded.steps.push(copy);
      expanded.origins.push({ path: origin, usedBy: step.id });
    });
  });
  return expanded;
}

/** Copies a value, rewriting every string (object keys included: a JMESPath key may hold expressions). */
function rewriteValue(
  value: unknown,
  path: PathSegment[],
  rewrite: (text: string, path: PathSegment[]) => unknown,
): unknown {
  if (typeof value === 'string') return rewrite(value, path);
  if (Array.isArray(value)) return value.map((item, i) => rewriteValue(item, [...path, i], rewrite));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        String(rewrite(key, [...path, key])),
        rewriteValue(item, [...path, key], rewrite),
      ]),
    );
  }
  return value;
}

/**
 * `${params.x}` becomes the value given for x (kept whole, any type, when it is the whole string; as text
 * otherwise), and `${steps.<member>...}` names the member's expanded id. Other expressions stay for
 * when the step runs.
 */
function rewriteText(
  text: string,
  given: Record<string, Json>,
  params: string[],
  renamed: Map<string, string>,
): unknown {
  if (!text.includes('${')) return text;
  const parts = parseTemplate(text);
  const [only] = parts;
  if (parts.length === 1 && typeof only !== 'string' && only!.root === 'params') return param(only!, given, params);
  return parts
    .map((part) => {
      if (typeof part === 'string') return part.replaceAll('${', '$${');
      if (part.root === 'params') {
        const value = param(part, given, params);
        return typeof value === 'string' ? value : JSON.stringify(value);
      }
      const member = part.root === 'steps' ? renamed.get(String(part.path[0])) : undefined;
      const source = member
        ? `steps.${member}${part.source.slice(`steps.${String(part.path[0])}`.length)}`
        : part.source;
      return `\${${source}}`;
    })
    .join('');
}

/** The value given for a param; one not given (reported where the group is used) or not declared (reported in the group) is null. */
function param(reference: Reference, given: Record<string, Json>, params: string[]): Json {
  const [name, ...rest] = reference.path;
  if (rest.length > 0) throw new Error(`\${${reference.source}}: a param has no fields`);
  return params.includes(String(name)) && Object.hasOwn(given, String(name)) ? given[String(name)]! : null;
}

/**
 * Loads a scenario file: YAML -> JSON Schema (Ajv) -> whole-file rules (validate.ts). Every problem is
 * reported with its file, line and column before anything runs.
 */
import { readFile } from 'node:fs/promises';
import { UsageError } from '../output.ts';
import { compileFileSchema, parseYamlFile, YamlFileError } from '../yaml-file.ts';
import { referencesIn } from './expressions.ts';
import { expandGroups } from './groups.ts';
import { readRows, rowsPath, rowsProblems, runsOf, type Row } from './rows.ts';
import type { PathSegment } from './paths.ts';
import { scenarioSchema } from './schema.ts';
import type { Issue } from '../yaml-file.ts';
import type { Scenario, ScenarioDocument } from './types.ts';
import { checkScenario, commandLineVarProblems } from './validate.ts';

export class ScenarioFileError extends YamlFileError {
  override name = 'ScenarioFileError';
}

export interface LoadOptions {
  /** Variables from the command line; they override the file's `vars`. */
  vars?: Record<string, unknown>;
  /** The environment that `${env.X}` reads (default: process.env). */
  env?: Record<string, string | undefined>;
  /** A rows file (`--data`) that replaces the scenario's own rows. */
  rowsFile?: string;
}

const validateSchema = compileFileSchema<ScenarioDocument>(scenarioSchema);

/** The runs of a scenario file: the scenario, or one run per row of its rows. */
export async function loadScenarios(file: string, options: LoadOptions = {}): Promise<Scenario[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read scenario ${file}: ${(err as NodeJS.ErrnoException).code ?? err}`);
  }
  return runsOf(parseScenario(text, file, options));
}

export function parseScenario(text: string, file: string, options: LoadOptions = {}): Scenario {
  const { data: document, locate, fail } = parseYamlFile(text, file, validateSchema, ScenarioFileError);
  const env = options.env ?? process.env;
  const commandLineVars = options.vars ?? {};
  const varProblems = commandLineVarProblems(commandLineVars, env);
  if (varProblems.length > 0) throw new UsageError(varProblems.join('\n'));
  const rowsFile = options.rowsFile ?? (typeof document.rows === 'string' ? rowsPath(file, document.rows) : undefined);
  const rows = rowsFile !== undefined ? readRows(rowsFile) : (document.rows as Row[] | undefined);
  if (rows) checkRows(rows, rowsFile, env, fail);
  const rowNames = Object.keys(rows?.[0] ?? {});
  const expanded = expandGroups(document);
  if (expanded.issues.length > 0) fail(expanded.issues);
  // A path into the expanded steps, as written in the file (a group's step where a group was used).
  const written = (path: ReadonlyArray<PathSegment>): PathSegment[] => {
    const origin = path[0] === 'steps' && typeof path[1] === 'number' ? expanded.origins[path[1]] : undefined;
    return origin ? [...origin.path, ...path.slice(2)] : [...path];
  };
  const { rows: _, ...rest } = document;
  const scenario: Scenario = {
    ...rest,
    steps: expanded.steps,
    // Until a run takes its row's values, the first row's stand for them (checked in checkRows).
    vars: { ...document.vars, ...rows?.[0], ...(commandLineVars as ScenarioDocument['vars']) },
    file,
    variables: [], // below, once the expressions are known to parse
    locate: (path) => locate(written(path)),
    ...(rows ? { rows, overrides: commandLineVars } : {}),
  };
  const issues = checkScenario(scenario, {
    env,
    commandLineVars: new Set([...Object.keys(commandLineVars), ...rowNames]),
  });
  if (issues.length > 0) {
    fail(
      issues.map((issue) => {
        const usedBy =
          issue.path[0] === 'steps' && typeof issue.path[1] === 'number'
            ? expanded.origins[issue.path[1]]?.usedBy
            : undefined;
        return {
          ...issue,
          path: written(issue.path),
          message: usedBy ? `${issue.message} (as used by step ${usedBy})` : issue.message,
        };
      }),
    );
  }
  const used = referencesIn({ actors: document.actors, steps: expanded.steps }).filter(
    ({ reference }) => reference.root === 'vars',
  );
  scenario.variables = [
    ...new Set([
      ...Object.keys(document.vars ?? {}),
      ...rowNames,
      ...used.map(({ reference }) => String(reference.path[0])),
    ]),
  ];
  return scenario;
}

/**
 * Rows need the same variable names, and their values may use only env and gen (like vars). Rows
 * written in the scenario are reported at their line; a rows file by its name and row number.
 */
function checkRows(
  rows: Row[],
  file: string | undefined,
  env: Record<string, string | undefined>,
  fail: (issues: Issue[]) => never,
): void {
  const problems = rowsProblems(rows);
  rows.forEach((row, index) => {
    for (const problem of commandLineVarProblems(row, env)) problems.push({ row: index, message: problem });
  });
  if (problems.length === 0) return;
  if (file !== undefined) {
    throw new UsageError(
      problems.map((p) => `${file}${p.row === undefined ? '' : ` row ${p.row + 1}`}: ${p.message}`).join('\n'),
    );
  }
  fail(
    problems.map((p) => ({
      path: p.row === undefined ? ['rows'] : p.key === undefined ? ['rows', p.row] : ['rows', p.row, p.key],
      ...(p.key ? { part: 'key' as const } : {}),
      message: p.message,
    })),
  );
}

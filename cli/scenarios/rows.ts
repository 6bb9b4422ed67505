/**
 * Data-driven runs: a scenario's `rows` (a list in the file, or a CSV, YAML or JSON file of them, or
 * `capctl run --data FILE`) run it once per row, the row's values as variables.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { parse as parseYaml } from 'yaml';
import { UsageError } from '../output.ts';
import type { Json, Scenario } from './types.ts';

export type Row = Record<string, Json>;

/** The rows of a CSV file (a header line, then a row per line, values as text) or a YAML/JSON list of mappings. */
export function readRows(file: string): Row[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read rows ${file}: ${(err as NodeJS.ErrnoException).code ?? err}`);
  }
  let rows: unknown;
  try {
    rows = /\.csv$/i.test(file)
      ? parseCsv(text, { columns: true, skip_empty_lines: true, trim: true, bom: true })
      : parseYaml(text);
  } catch (err) {
    throw new UsageError(`rows ${file}: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!Array.isArray(rows) || !rows.every((row) => row !== null && typeof row === 'object' && !Array.isArray(row))) {
    throw new UsageError(`rows ${file}: expected a list of mappings (a CSV file with a header line, or YAML/JSON)`);
  }
  return rows as Row[];
}

/** A rows file named in a scenario is found next to it. */
export const rowsPath = (scenarioFile: string, rows: string) => path.resolve(path.dirname(scenarioFile), rows);

/** What is wrong with a set of rows: none, names that are not variable names, rows with other names. */
export function rowsProblems(rows: Row[]): Array<{ row?: number; key?: string; message: string }> {
  if (rows.length === 0) return [{ message: 'rows: at least one row is needed' }];
  const names = Object.keys(rows[0]!);
  const problems: Array<{ row?: number; key?: string; message: string }> = [];
  for (const key of names.filter((name) => !/^[A-Za-z][A-Za-z0-9_-]*$/.test(name))) {
    problems.push({
      row: 0,
      key,
      message: `"${key}" is not a variable name (a letter, then letters, digits, _ and -)`,
    });
  }
  rows.forEach((row, index) => {
    const keys = Object.keys(row);
    if (keys.length !== names.length || keys.some((key) => !names.includes(key))) {
      problems.push({
        row: index,
        message: `row ${index + 1} has ${keys.join(', ') || 'no values'}; every row needs ${names.join(', ')}`,
      });
    }
  });
  return problems;
}

/** One scenario per row (the row's values as variables, under those of the command line), or the scenario itself. */
export function runsOf(scenario: Scenario): Scenario[] {
  const { rows, overrides } = scenario;
  if (!rows) return [scenario];
  return rows.map((row, index) => ({
    ...scenario,
    name: `${scenario.name} [row ${index + 1}: ${describe(row)}]`,
    vars: { ...scenario.vars, ...row, ...(overrides as Row) },
    row: { index: index + 1, values: row },
  }));
}

function describe(row: Row): string {
  const text = Object.entries(row)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(', ');
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

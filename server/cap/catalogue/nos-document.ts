import { parse } from 'csv-parse/sync';
import type { ErrorDetail } from '../../platform/http/errors.ts';
import type { PerformanceCriterion } from './models.ts';

/**
 * A whole NOS document as admins import it and read it back (openapi/cap/admin-catalogue.yaml,
 * NosDocumentInput): its levels, their units, the units' learning outcomes and performance criteria.
 */
export interface NosDocumentInput {
  title: string;
  levels: LevelInput[];
}
export interface LevelInput {
  level: number;
  slug?: string;
  purpose: string;
  units: UnitInput[];
}
export interface UnitInput {
  referenceNumber: string;
  title: string;
  isMandatory: boolean;
  creditValue?: number | null;
  guidedLearningHours?: number | null;
  purpose?: string | null;
  assessmentMethods?: string[];
  learningOutcomes: OutcomeInput[];
}
export interface OutcomeInput {
  reference: string;
  description: string;
  performanceCriteria: PerformanceCriterion[];
}

/**
 * The rules a document's shape cannot express (its schema checks the shape): levels, unit reference
 * numbers, and outcome and criterion references are each unique where they must be. Every problem is
 * reported, each at its place (`at` names a place in the document; `csvRows` maps it to CSV rows).
 */
export function nosDocumentProblems(doc: NosDocumentInput, at = 'body'): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const firstAt = <K>(seen: Map<K, string>, key: K, place: string, what: string) => {
    const earlier = seen.get(key);
    if (earlier !== undefined) problems.push({ field: place, issue: `repeats ${what} of ${earlier}` });
    else seen.set(key, place);
  };
  if (doc.levels.length === 0)
    problems.push({ field: `${at}.levels`, issue: 'must hold at least one qualification level' });
  const levels = new Map<number, string>();
  const references = new Map<string, string>();
  doc.levels.forEach((level, l) => {
    const levelAt = `${at}.levels[${l}]`;
    firstAt(levels, level.level, `${levelAt}.level`, `level ${level.level}`);
    level.units.forEach((unit, u) => {
      const unitAt = `${levelAt}.units[${u}]`;
      firstAt(
        references,
        unit.referenceNumber.trim().toUpperCase(),
        `${unitAt}.referenceNumber`,
        `reference number ${unit.referenceNumber}`,
      );
      const outcomes = new Map<string, string>();
      const criteria = new Map<string, string>();
      unit.learningOutcomes.forEach((outcome, o) => {
        const outcomeAt = `${unitAt}.learningOutcomes[${o}]`;
        firstAt(
          outcomes,
          outcome.reference.trim().toUpperCase(),
          `${outcomeAt}.reference`,
          `outcome ${outcome.reference}`,
        );
        outcome.performanceCriteria.forEach((criterion, c) =>
          firstAt(
            criteria,
            criterion.reference.trim().toUpperCase(),
            `${outcomeAt}.performanceCriteria[${c}].reference`,
            `criterion ${criterion.reference}`,
          ),
        );
      });
    });
  });
  return problems;
}

/** The CSV columns, one row per performance criterion; see the Admin catalogue tag of the document. */
export const csvColumns = [
  'level',
  'level_purpose',
  'unit_reference',
  'unit_title',
  'unit_mandatory',
  'unit_credit_value',
  'unit_guided_learning_hours',
  'unit_purpose',
  'unit_assessment_methods',
  'outcome_reference',
  'outcome_description',
  'criterion_reference',
  'criterion_description',
] as const;
type Column = (typeof csvColumns)[number];
type Row = Record<Column, string>;

const yes = new Set(['yes', 'y', 'true', '1', 'mandatory']);
const no = new Set(['no', 'n', 'false', '0', 'optional']);

/**
 * Reads a NOS document from CSV: one row per performance criterion, the level, unit and outcome
 * columns repeated on each row or left blank to mean "as above". Row numbers count the header as row 1,
 * as a spreadsheet shows them. Returns the document, or every problem found.
 */
export function nosDocumentFromCsv(title: string, text: string): { doc: NosDocumentInput; problems: ErrorDetail[] } {
  const problems: ErrorDetail[] = [];
  const doc: NosDocumentInput = { title, levels: [] };
  let records: string[][];
  try {
    records = parse(text, { bom: true, skip_empty_lines: true, trim: true, relax_column_count: true });
  } catch (err) {
    return { doc, problems: [{ field: 'body.csv', issue: `is not CSV: ${(err as Error).message}` }] };
  }
  const [header = [], ...rows] = records;
  const names = header.map((name) => name.toLowerCase());
  const missing = csvColumns.filter((column) => !names.includes(column));
  const unknown = names.filter((name) => !(csvColumns as readonly string[]).includes(name));
  if (missing.length) problems.push({ field: 'body.csv.row[1]', issue: `lacks the columns ${missing.join(', ')}` });
  if (unknown.length)
    problems.push({ field: 'body.csv.row[1]', issue: `has columns this import does not know: ${unknown.join(', ')}` });
  if (rows.length === 0) problems.push({ field: 'body.csv', issue: 'has no rows under its header' });
  if (problems.length) return { doc, problems };

  const levels = new Map<string, LevelInput>();
  const units = new Map<string, { unit: UnitInput; row: number }>();
  const outcomes = new Map<string, OutcomeInput>();
  let last: Partial<Row> = {};
  rows.forEach((cells, index) => {
    const rowNumber = index + 2;
    const place = (column: Column) => `body.csv.row[${rowNumber}].${column}`;
    const problem = (column: Column, issue: string) => problems.push({ field: place(column), issue });
    const row = Object.fromEntries(csvColumns.map((column) => [column, cells[names.indexOf(column)] ?? ''])) as Row;
    // A blank level, unit or outcome key means "the same as the row above".
    for (const key of ['level', 'unit_reference', 'outcome_reference'] as const)
      if (row[key] === '' && last[key]) row[key] = last[key]!;
    last = row;

    const levelNumber = Number(row.level);
    if (!Number.isInteger(levelNumber) || levelNumber < 1 || levelNumber > 8)
      return problem('level', 'must be a whole number from 1 to 8');
    let level = levels.get(row.level);
    if (!level) {
      if (!row.level_purpose) problem('level_purpose', `is required on the first row of level ${row.level}`);
      level = { level: levelNumber, purpose: row.level_purpose, units: [] };
      levels.set(row.level, level);
      doc.levels.push(level);
    } else if (row.level_purpose && row.level_purpose !== level.purpose) {
      problem('level_purpose', `differs from the purpose given for level ${row.level} above`);
    }

    if (!row.unit_reference) return problem('unit_reference', 'is required');
    const unitKey = row.unit_reference.toUpperCase();
    const known = units.get(unitKey);
    let unit = known?.unit;
    if (!unit) {
      if (!row.unit_title) problem('unit_title', `is required on the first row of unit ${row.unit_reference}`);
      unit = {
        referenceNumber: row.unit_reference,
        title: row.unit_title,
        isMandatory: true,
        creditValue: wholeNumber(row.unit_credit_value, () =>
          problem('unit_credit_value', 'must be a whole number, 0 or more'),
        ),
        guidedLearningHours: wholeNumber(row.unit_guided_learning_hours, () =>
          problem('unit_guided_learning_hours', 'must be a whole number, 0 or more'),
        ),
        purpose: row.unit_purpose || null,
        assessmentMethods: row.unit_assessment_methods
          ? row.unit_assessment_methods
              .split(';')
              .map((m) => m.trim())
              .filter(Boolean)
          : [],
        learningOutcomes: [],
      };
      const mandatory = row.unit_mandatory.toLowerCase();
      if (yes.has(mandatory) || mandatory === '') unit.isMandatory = true;
      else if (no.has(mandatory)) unit.isMandatory = false;
      else problem('unit_mandatory', 'must be yes or no');
      units.set(unitKey, { unit, row: rowNumber });
      level.units.push(unit);
    } else {
      if (!level.units.includes(unit))
        problem('unit_reference', `unit ${row.unit_reference} is already under another level (row ${known!.row})`);
      if (row.unit_title && row.unit_title !== unit.title)
        problem('unit_title', `differs from the title of unit ${row.unit_reference} above`);
    }

    if (!row.outcome_reference) return problem('outcome_reference', 'is required');
    const outcomeKey = `${unitKey}\u0000${row.outcome_reference.toUpperCase()}`;
    let outcome = outcomes.get(outcomeKey);
    if (!outcome) {
      if (!row.outcome_description)
        problem('outcome_description', `is required on the first row of outcome ${row.outcome_reference}`);
      outcome = { reference: row.outcome_reference, description: row.outcome_description, performanceCriteria: [] };
      outcomes.set(outcomeKey, outcome);
      unit.learningOutcomes.push(outcome);
    } else if (row.outcome_description && row.outcome_description !== outcome.description) {
      problem('outcome_description', `differs from the description of outcome ${row.outcome_reference} above`);
    }

    if (!row.criterion_reference) problem('criterion_reference', 'is required');
    if (!row.criterion_description) problem('criterion_description', 'is required');
    else if (
      outcome.performanceCriteria.some((c) => c.reference.toUpperCase() === row.criterion_reference.toUpperCase())
    ) {
      problem(
        'criterion_reference',
        `repeats criterion ${row.criterion_reference} of outcome ${row.outcome_reference}`,
      );
    }
    if (row.criterion_reference && row.criterion_description)
      outcome.performanceCriteria.push({ reference: row.criterion_reference, description: row.criterion_description });
  });
  if (problems.length === 0) problems.push(...nosDocumentProblems(doc, 'body.csv'));
  return { doc, problems };
}

function wholeNumber(text: string, bad: () => void): number | null {
  if (text === '') return null;
  const value = Number(text);
  if (Number.isInteger(value) && value >= 0) return value;
  bad();
  return null;
}

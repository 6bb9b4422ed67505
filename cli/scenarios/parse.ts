/**
 * Loads a scenario file: YAML -> JSON Schema (Ajv) -> whole-file rules (validate.ts). Every problem is
 * reported with its file, line and column before anything runs.
 */
import { readFile } from 'node:fs/promises';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { UsageError } from '../output.ts';
import { parseYamlFile, YamlFileError } from '../yaml-file.ts';
import { scenarioSchema } from './schema.ts';
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
}

const ajv = new Ajv2020({ allErrors: true, verbose: true, strictTypes: false });
ajv.addVocabulary(['hint', 'oneOfHint']);
const validateSchema = ajv.compile<ScenarioDocument>(scenarioSchema);

export async function loadScenarioFile(file: string, options: LoadOptions = {}): Promise<Scenario> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read scenario ${file}: ${(err as NodeJS.ErrnoException).code ?? err}`);
  }
  return parseScenario(text, file, options);
}

export function parseScenario(text: string, file: string, options: LoadOptions = {}): Scenario {
  const { data: document, locate, fail } = parseYamlFile(text, file, validateSchema, ScenarioFileError);
  const env = options.env ?? process.env;
  const commandLineVars = options.vars ?? {};
  const varProblems = commandLineVarProblems(commandLineVars, env);
  if (varProblems.length > 0) throw new UsageError(varProblems.join('\n'));
  const scenario: Scenario = {
    ...document,
    vars: { ...document.vars, ...(commandLineVars as ScenarioDocument['vars']) },
    file,
    locate: (path) => locate(path),
  };
  const issues = checkScenario(scenario, {
    env,
    commandLineVars: new Set(Object.keys(commandLineVars)),
  });
  if (issues.length > 0) fail(issues);
  return scenario;
}

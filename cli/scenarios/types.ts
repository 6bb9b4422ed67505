/** The shapes of a scenario file once parsed and validated (fixtures/scenarios/README.md). */
import type { StepGroup } from './groups.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface Actor {
  email: string;
  password: string;
  persona?: string;
  centre?: string;
}

export interface Expectation {
  status?: number | number[];
  code?: string;
  /** Matchers keyed by a response header name (any case). */
  headers?: Record<string, Json>;
  /** Matchers keyed by a path into the response body. */
  body?: Record<string, Json>;
  /** Matchers keyed by a JMESPath query over the response body. */
  jmespath?: Record<string, Json>;
  /** The step's action must take at most this long (a duration). */
  maxDuration?: string;
  /** false: do not check an HTTP reply against its operation's documented schema (checked by default). */
  schema?: boolean;
}

export interface HttpAction {
  operation?: string;
  method?: string;
  path?: string;
  params?: Record<string, Json>;
  query?: Record<string, Json>;
  headers?: Record<string, Json>;
  body?: Json;
  /** A multipart/form-data body: one file (path from the working directory) in the part `file`, and text fields. */
  upload?: { file: string; fields?: Record<string, Json> };
}

export interface GrpcAction {
  method: string;
  request?: Json;
  address?: string;
}

export interface MailAction {
  to: string;
  wait?: string;
  since?: string;
}

/** Waits for an event a service published (its dev events, development mode only). */
export interface EventAction {
  service: 'ol' | 'cap' | 'lms';
  type: string;
  /** Dotted paths of the event's data and the values they must have. */
  where?: Record<string, Json>;
  wait?: string;
  since?: string;
}

/** A path into the step's response (`body.data.id`), or a JMESPath query over it. */
export type Capture = string | { jmespath: string };

export interface Retry {
  until: Expectation;
  times: number;
  interval?: string;
}

export interface Step {
  id: string;
  name?: string;
  as?: string;
  http?: HttpAction;
  grpc?: GrpcAction;
  mail?: MailAction;
  event?: EventAction;
  wait?: string;
  expect?: Expectation;
  capture?: Record<string, Capture>;
  retry?: Retry;
  /** When this step fails, the scenario goes on (it still fails); steps that use this one are skipped. */
  continueOnFail?: boolean;
  /** The group this step stands for (its steps run in its place), and the values of its params. */
  use?: string;
  with?: Record<string, Json>;
}

export interface ScenarioDocument {
  name: string;
  description?: string;
  vars?: Record<string, Json>;
  actors?: Record<string, Actor>;
  /** Steps written once and used by steps with `use`. */
  groups?: Record<string, StepGroup>;
  /** Run the scenario once per row, its values as variables: the rows, or a CSV/YAML/JSON file of them. */
  rows?: string | Array<Record<string, Json>>;
  steps: Step[];
}

/** A position in a scenario file, 1-based. */
export interface Position {
  line: number;
  column: number;
}

export interface Scenario extends Omit<ScenarioDocument, 'rows'> {
  file: string;
  /** The rows to run it with (read from their file), if any; see rows.ts. */
  rows?: Array<Record<string, Json>>;
  /** The variables the file defines (vars, rows) or uses (`${vars.x}`): the names --var may set. */
  variables: string[];
  /** The variables of the command line, which win over a row's. */
  overrides?: Record<string, unknown>;
  /** The row this run is for (1-based), when the scenario runs per row. */
  row?: { index: number; values: Record<string, Json> };
  /** Where the value at a path of the document starts (the nearest existing node when the path is absent). */
  locate(path: ReadonlyArray<string | number>): Position;
}

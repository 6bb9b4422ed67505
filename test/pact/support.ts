/**
 * What the consumer tests share: where pact files go, the matchers for our ids, times and tokens, a
 * gateway in front of Pact mock servers, and capctl run in this process.
 */
import type { ExecutionContext, TestFn } from 'ava';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { MatchersV3, PactV4 } from '@pact-foundation/pact';
import { Agent, request } from 'undici';
import { main } from '../../cli/main.ts';
import { parseScenario } from '../../cli/scenarios/parse.ts';
import { runScenarios, type RunReport } from '../../cli/scenarios/runner.ts';

const { regex, reify } = MatchersV3;

// No usage statistics sent from test runs.
process.env.PACT_DO_NOT_TRACK = 'true';

export const pactsDir = path.resolve('pacts');

/**
 * Pacts of one test file. Pact merges every interaction a passing test exercised into a scratch
 * directory; once every test of the file has passed, each file goes to pacts/ with its interactions
 * sorted, replacing the old one in one step, so a re-run writes the same bytes and a reader (the
 * provider verification running alongside) never sees half a file.
 */
export function pactFiles(test: TestFn) {
  let scratch = '';
  let allPassed = true;
  test.before(() => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'pact-consumer-'));
  });
  test.afterEach.always((t) => {
    allPassed &&= t.passed;
  });
  test.after.always(() => {
    if (allPassed) publish(scratch);
    fs.rmSync(scratch, { recursive: true, force: true });
  });
  return (consumer: string, provider: string, options: { port?: number } = {}) =>
    new PactV4({ consumer, provider, dir: scratch, logLevel: 'error', ...options });
}

/** Response body paths, by interaction description, whose value may also be null (see `mayBeNull`). */
const nullablePaths = new Map<string, string[]>();

/**
 * Lets these paths of the interaction's response body (Pact's `$.data[*].description`) also be null,
 * where the OpenAPI document says so and a list may hold items the provider state did not make. Pact's
 * consumer DSL has no "this or null" matcher, but a pact's matching rules do: the path's rule list is
 * combined with OR and a null matcher when the pact is written. For a scalar only: Pact compares an object
 * child by child whatever its rules say.
 */
export function mayBeNull(description: string, ...paths: string[]): void {
  nullablePaths.set(description, [...(nullablePaths.get(description) ?? []), ...paths]);
}

function allowNulls(
  interaction: Interaction & {
    response?: { matchingRules?: { body?: Record<string, { combine: string; matchers: unknown[] }> } };
  },
) {
  const paths = nullablePaths.get(interaction.description);
  if (!paths || !interaction.response) return;
  const rules = ((interaction.response.matchingRules ??= {}).body ??= {});
  for (const at of paths) {
    const own = rules[at]?.matchers ?? [{ match: 'type' }];
    rules[at] = { combine: 'OR', matchers: [...own, { match: 'null' }] };
  }
}

/** Writes each pact of the scratch directory into pacts/, interactions sorted, replacing the old file in one step. */
function publish(scratch: string) {
  for (const name of fs.readdirSync(scratch).filter((f) => f.endsWith('.json'))) {
    const pact = JSON.parse(fs.readFileSync(path.join(scratch, name), 'utf8'));
    pact.interactions.forEach(allowNulls);
    pact.interactions.sort((a: Interaction, b: Interaction) => sortKey(a).localeCompare(sortKey(b)));
    const target = path.join(pactsDir, name);
    fs.mkdirSync(pactsDir, { recursive: true });
    fs.writeFileSync(`${target}.tmp`, `${JSON.stringify(pact, null, 2)}\n`);
    fs.renameSync(`${target}.tmp`, target);
  }
}

interface Interaction {
  description: string;
  providerStates?: unknown[];
}

const sortKey = (i: Interaction) => `${i.description}\u0000${JSON.stringify(i.providerStates ?? [])}`;

// --- Matchers --------------------------------------------------------------------------------------

const ulidPattern = '^[0-9A-HJKMNP-TV-Z]{26}$';
export const ulid = (example = '01J9Z8X7W6V5T4S3R2Q1P0N9M8') => regex(ulidPattern, example);
export const isoDateTime = (example = '2024-05-01T09:30:00.000Z') =>
  MatchersV3.datetime("yyyy-MM-dd'T'HH:mm:ss.SSSX", example);
export const email = (example = 'ada@example.test') => regex('^[^@\\s]+@[^@\\s]+$', example);

const base64url = (text: string) => Buffer.from(text).toString('base64url');
/** A JWT-shaped access token that does not expire (until 2100), so capctl sends it without refreshing. */
export const exampleAccessToken = [
  base64url('{"alg":"RS256","typ":"JWT"}'),
  base64url('{"sub":"01J9Z8X7W6V5T4S3R2Q1P0N9M8","exp":4102444800}'),
  base64url('signature'),
].join('.');
export const jwt = (example = exampleAccessToken) =>
  regex('^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$', example);
/** The bearer header: a provider-state injected value, the access token of the state's acting user. */
export const bearer = () => MatchersV3.fromProviderState('Bearer ${accessToken}', `Bearer ${exampleAccessToken}`);
/** The service key header's value, injected from the provider state `a platform service calling with its key`. */
export const serviceKey = () => MatchersV3.fromProviderState('${serviceKey}', 'example-service-key');

/** An error envelope with this code. */
export const errorBody = (code: string, details?: Array<{ field?: string; issue: string }>) => ({
  success: false,
  error: { code, message: MatchersV3.string('What went wrong, for a person.'), ...(details ? { details } : {}) },
  requestId: MatchersV3.string('01J9Z8X7W6V5T4S3R2Q1P0N9RQ'),
});

/**
 * Pact's mock server records a matched request in the background, after it has answered: a moment's
 * wait, or the check that every interaction was received can run first and fail a passing test.
 */
const mockSettles = () => new Promise((resolve) => setTimeout(resolve, 100));

// --- Driving capctl --------------------------------------------------------------------------------

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs capctl (cli/main.ts, as bin/capctl does) in this process with its own config directory, and
 * captures what it prints. Tests using it run serially.
 */
export async function capctl(t: ExecutionContext, configDir: string, ...args: string[]): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const { write: writeOut } = process.stdout;
  const { write: writeErr } = process.stderr;
  const previousDir = process.env.CAPCTL_CONFIG_DIR;
  process.env.CAPCTL_CONFIG_DIR = configDir;
  process.stdout.write = ((chunk: string) => out.push(String(chunk)) > 0) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string) => err.push(String(chunk)) > 0) as typeof process.stderr.write;
  try {
    const code = await main(['node', 'capctl', ...args]);
    const run = { code, stdout: out.join(''), stderr: err.join('') };
    t.log(`capctl ${args.join(' ')} -> ${code}`);
    await mockSettles();
    return run;
  } finally {
    process.stdout.write = writeOut;
    process.stderr.write = writeErr;
    process.exitCode = undefined;
    if (previousDir === undefined) delete process.env.CAPCTL_CONFIG_DIR;
    else process.env.CAPCTL_CONFIG_DIR = previousDir;
  }
}

/** A config directory for capctl, removed after the test; `signedIn` saves a profile as login would. */
export function configDir(t: ExecutionContext) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pact-capctl-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return {
    dir,
    signedIn(baseUrl: string, accessToken = exampleAccessToken) {
      const profile = {
        baseUrl,
        email: 'ada@example.test',
        userId: '01J9Z8X7W6V5T4S3R2Q1P0N9M8',
        accessToken,
        refreshToken: 'example-refresh-token',
      };
      fs.mkdirSync(path.join(dir, 'profiles'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'profiles', 'default.json'), JSON.stringify(profile));
    },
  };
}

/**
 * Runs a scenario given as YAML with capctl's scenario runner; fails the test unless every step passed.
 * The mock serves the interactions alone, no OpenAPI document: replies are not checked against one.
 */
export async function runScenario(t: ExecutionContext, baseUrl: string, yaml: string): Promise<RunReport> {
  const report = await runScenarios([parseScenario(yaml, 'pact-consumer.yaml')], {
    baseUrl,
    env: {},
    checkSchemas: false,
  });
  const failed = report.scenarios.flatMap((s) => s.steps).filter((step) => step.status !== 'passed');
  t.deepEqual(failed, [], 'every step passes against the mock');
  await mockSettles();
  return report;
}

/**
 * One base URL in front of Pact mock servers, routed by service prefix as the real gateway routes.
 * `capctl run` first checks GET /v1/ol/healthz; this answers it itself (that interaction is pinned
 * in capctl-ol.json), so a mock only sees the interactions of its test.
 */
export async function mockGateway(
  t: ExecutionContext,
  routes: Partial<Record<'ol' | 'cap' | 'lms', string>>,
): Promise<string> {
  // Its own connections: a kept-alive one to an earlier test's mock server, on a port a later mock
  // server was given again, would reach the earlier mock.
  const dispatcher = new Agent();
  const server = http.createServer(async (req, res) => {
    const service = /^\/v1\/(ol|cap|lms)\//.exec(req.url ?? '')?.[1] as 'ol' | 'cap' | 'lms' | undefined;
    const healthy = req.url === '/v1/ol/healthz';
    const target = !healthy && service && routes[service];
    if (!target) {
      res.writeHead(healthy ? 200 : 502, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(
          healthy ? { success: true, data: { status: 'ok', service: 'ol' } } : { error: `no mock for ${req.url}` },
        ),
      );
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = { ...req.headers };
    delete headers.host;
    delete headers.connection;
    const answer = await request(`${target}${req.url}`, {
      dispatcher,
      method: req.method as 'GET',
      headers: headers as Record<string, string>,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    res.writeHead(answer.statusCode, answer.headers as http.OutgoingHttpHeaders);
    res.end(Buffer.from(await answer.body.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await dispatcher.destroy();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

// --- One scenario step per interaction -------------------------------------------------------------

type StateParams = Parameters<ReturnType<PactV4['addInteraction']>['given']>[1];

/** A provider state: its name and parameters. */
export type State = [name: string, params?: Record<string, unknown>];

/** One interaction of a bundled scenario's step: the request (with matchers) and the answer. */
export interface StepInteraction {
  description: string;
  states: State[];
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** A gateway path, or a `fromProviderState` matcher of one. */
  path: string | MatchersV3.Matcher<string>;
  query?: Record<string, string | MatchersV3.Matcher<string>>;
  /** Headers besides Authorization. */
  headers?: Record<string, string | MatchersV3.Matcher<string>>;
  /** Sends the bearer token of the state's acting user (a provider-state injected value); default true. */
  signedIn?: boolean;
  body?: unknown;
  status: number;
  response: unknown;
}

/**
 * Pins one interaction the way capctl's scenario runner makes it: the step sends the interaction's
 * example request (the matchers' examples) through a gateway in front of the Pact mock server, and
 * expects its status (and error code).
 */
export async function scenarioStep(
  t: ExecutionContext,
  pact: PactV4,
  service: 'ol' | 'cap' | 'lms',
  i: StepInteraction,
): Promise<void> {
  const signedIn = i.signedIn ?? true;
  const headers = { ...(signedIn ? { Authorization: bearer() } : {}), ...i.headers };
  let interaction = pact.addInteraction();
  for (const [name, params] of i.states) interaction = interaction.given(name, params as StateParams);
  await interaction
    .uponReceiving(i.description)
    .withRequest(i.method, i.path, (b) => {
      if (Object.keys(headers).length) b.headers(headers);
      if (i.query) b.query(i.query);
      if (i.body !== undefined) b.jsonBody(i.body);
    })
    .willRespondWith(i.status, (b) => b.jsonBody(i.response))
    .executeTest(async (mock) => {
      const http: Record<string, unknown> = { method: i.method, path: reify(i.path) };
      if (i.query) http.query = reify(i.query);
      if (Object.keys(headers).length) http.headers = reify(headers);
      if (i.body !== undefined) http.body = reify(i.body);
      const code = (reify(i.response) as { error?: { code?: string } })?.error?.code;
      const expect = { status: i.status, ...(code ? { code } : {}) };
      await runScenario(
        t,
        await mockGateway(t, { [service]: mock.url }),
        `
name: ${JSON.stringify(i.description)}
steps:
  - id: step
    http: ${JSON.stringify(http)}
    expect: ${JSON.stringify(expect)}
`,
      );
    });
}

/** Registers one serial test per interaction. */
export function stepTests(
  test: TestFn,
  pact: () => PactV4,
  service: 'ol' | 'cap' | 'lms',
  interactions: Array<StepInteraction & { rule: string }>,
) {
  for (const { rule, ...interaction } of interactions) {
    test.serial(rule, (t) => scenarioStep(t, pact(), service, interaction));
  }
}

/**
 * Sets a request body given as text with any content type, the way Pact compares it part by part for
 * multipart/form-data. Pact-js's public `body()` sends bytes through Pact's binary-file call, which adds
 * a content-type rule that Pact then misapplies to every part of a multipart body; the text call adds
 * no rule. The builder keeps its FFI handle in `interaction`, which Pact-js does not export a type for.
 */
export function textBody<B>(builder: B, contentType: string, text: string): B {
  (
    builder as unknown as { interaction: { withRequestBody(body: string, contentType: string): void } }
  ).interaction.withRequestBody(text, contentType);
  return builder;
}

/**
 * `capctl pact verify|publish`: the platform's Pact contracts for downstream teams. `verify` replays
 * pacts against any running platform in development mode, setting each provider state through the
 * service's state endpoint (`POST /v1/<service>/dev/provider-states`); `publish` sends pacts to a Pact
 * Broker.
 */
import { fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Option, type Command } from 'commander';
import type { VerifierOptions } from '@pact-foundation/pact';
import { exitCodes, print, UnreachableError, UsageError, writeReport } from '../output.ts';
import { xml } from '../scenarios/report-junit.ts';
import { CommandFailed, resolveBaseUrl, runCommand } from '../session.ts';

export const providers = ['ol', 'cap', 'lms'] as const;
export type ProviderName = (typeof providers)[number];
type ConsumerVersionSelector = NonNullable<VerifierOptions['consumerVersionSelectors']>[number];

export interface VerifyOptions {
  provider: ProviderName;
  /** The gateway base URL: interaction paths are gateway paths (`/v1/cap/me`). */
  baseUrl: string;
  /** Where provider states are set up (Pact's providerStatesSetupUrl). */
  statesUrl: string;
  /** Pact files or http(s) URLs, each verified on its own; ignored when a broker is given. */
  pacts: string[];
  broker?: {
    url: string;
    token?: string;
    consumerVersionSelectors?: ConsumerVersionSelector[];
    /** Publishes each result to the broker as this provider version (and branch). */
    publish?: { providerVersion: string; providerBranch?: string };
  };
  /** Only the interactions whose description (or provider state) matches this regular expression. */
  filterDescription?: string;
  filterState?: string;
  /** Shows the Pact verifier's own report on stderr. */
  verbose?: boolean;
}

export interface InteractionResult {
  description: string;
  passed: boolean;
  /** Why it failed: each mismatch, or the provider state that could not be set up. */
  problems: string[];
}

export interface PactResult {
  /** The pact file, URL or broker it came from. */
  source: string;
  consumer: string;
  interactions: InteractionResult[];
  /** Set when the pact could not be verified at all (unreadable, broker refused). */
  error?: string;
}

export interface VerifyReport {
  provider: ProviderName;
  baseUrl: string;
  passed: boolean;
  pacts: PactResult[];
}

/** The provider's state endpoint at a gateway base URL. */
export const defaultStatesUrl = (baseUrl: string, provider: ProviderName) =>
  `${baseUrl}/v1/${provider}/dev/provider-states`;

/** The pacts in a directory whose provider is this one, in name order. */
export function pactsIn(dir: string, provider: ProviderName): string[] {
  let names: string[];
  try {
    names = fs
      .readdirSync(dir)
      .filter((name) => name.endsWith('.json'))
      .sort();
  } catch (err) {
    throw new UsageError(`cannot read the pact directory ${dir} (${(err as NodeJS.ErrnoException).code})`);
  }
  return names.map((name) => path.join(dir, name)).filter((file) => readPact(file)?.provider?.name === provider);
}

function readPact(file: string): { consumer?: { name?: string }; provider?: { name?: string } } | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

const thisModule = fileURLToPath(import.meta.url);

/**
 * Verifies pacts in a child process: the Pact verifier writes its report straight to the process's
 * standard output, which would mix with capctl's own (and its --json).
 */
export function verifyPacts(options: VerifyOptions): Promise<VerifyReport> {
  const env: NodeJS.ProcessEnv = { ...process.env, PACT_DO_NOT_TRACK: 'true' };
  // The verifier adds this broker to every run when it is set: only a broker run may use it.
  if (!options.broker) delete env.PACT_BROKER_BASE_URL;
  const child = fork(thisModule, [], {
    // From the sources the child needs tsx too; the compiled build runs as it is.
    execArgv: thisModule.endsWith('.ts') ? ['--import', import.meta.resolve('tsx')] : [],
    stdio: ['ignore', options.verbose ? process.stderr : 'ignore', 'pipe', 'ipc'],
    env,
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once('message', (message: { report?: VerifyReport; error?: string }) =>
      message.report
        ? resolve(message.report)
        : reject(new CommandFailed(`the pact verifier failed: ${message.error}`)),
    );
    child.once('exit', (code) =>
      reject(new CommandFailed(`the pact verifier stopped (exit ${code}) without a report: ${stderr.trim()}`)),
    );
    // A child that could not be started, or could not be sent its options, ends the verification.
    child.once('error', (err) => {
      child.kill();
      reject(new CommandFailed(`the pact verifier could not run: ${err.message}`));
    });
    child.send(options);
  });
}

/**
 * What a message interaction asks for, produced by the platform's message endpoint (the gateway's `/`
 * in development mode) for any description: a broker's pacts are not known in advance.
 */
function messageProviders(baseUrl: string): NonNullable<VerifierOptions['messageProviders']> {
  const produce = async (request: { description?: string; providerStates?: unknown }) => {
    const { createDispatcher, send } = await import('../scenarios/http.ts');
    const dispatcher = createDispatcher();
    try {
      const res = await send(
        {
          method: 'POST',
          url: `${baseUrl}/`,
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: { description: request.description, providerStates: request.providerStates ?? [] },
        },
        dispatcher,
      );
      const body = res.body as Record<string, any> | undefined;
      if (res.status !== 200) throw new Error(body?.error?.message ?? `${baseUrl}/ answered ${res.status}`);
      return body;
    } finally {
      await dispatcher.close();
    }
  };
  // A handler under every name; not under `toJSON` or `then`, which JSON.stringify and await look up.
  return new Proxy(
    {},
    { get: (_, key) => (typeof key === 'string' && key !== 'toJSON' && key !== 'then' ? produce : undefined) },
  );
}

/** The verifier's JSON result (pact-core's `pactffi_verifier_json`). */
interface VerifierJson {
  result: boolean;
  output?: string[];
  interactionResults?: Array<{ description: string; result: string }>;
  errors?: Array<{
    interaction: string;
    mismatch?: { type?: string; message?: string; mismatches?: Array<{ mismatch?: string; path?: string }> };
  }>;
}

/** Runs in the child process: one verifier run per pact (or one for the broker). */
async function verifyHere(options: VerifyOptions): Promise<VerifyReport> {
  const { Verifier } = await import('@pact-foundation/pact');
  // The Pact verifier reads its interaction filters from the environment.
  if (options.filterDescription) process.env.PACT_DESCRIPTION = options.filterDescription;
  if (options.filterState) process.env.PACT_PROVIDER_STATE = options.filterState;
  const sources = options.broker ? [options.broker.url] : options.pacts;
  const pacts: PactResult[] = [];
  for (const source of sources) {
    // Pact's own mechanism, as any verifier uses it: the state-change URL answers the values Pact
    // injects into the request (provider-state injected values), the message endpoint the messages.
    const config: VerifierOptions = {
      provider: options.provider,
      providerBaseUrl: options.baseUrl,
      providerStatesSetupUrl: options.statesUrl,
      messageProviders: messageProviders(options.baseUrl),
      logLevel: 'error',
      ...(options.broker ? brokerOptions(options.broker) : { pactUrls: [source] }),
    };
    let outcome: string;
    try {
      outcome = await new Verifier(config).verifyProvider();
    } catch (err) {
      outcome = (err as Error).message;
    }
    pacts.push(pactResult(source, outcome));
  }
  return { provider: options.provider, baseUrl: options.baseUrl, passed: pacts.every(pactPassed), pacts };
}

/** The broker settings the verifier takes; it refuses ones present but empty. */
function brokerOptions(broker: NonNullable<VerifyOptions['broker']>): Partial<VerifierOptions> {
  return {
    pactBrokerUrl: broker.url,
    ...(broker.token ? { pactBrokerToken: broker.token } : {}),
    ...(broker.consumerVersionSelectors ? { consumerVersionSelectors: broker.consumerVersionSelectors } : {}),
    ...(broker.publish
      ? {
          publishVerificationResult: true,
          providerVersion: broker.publish.providerVersion,
          ...(broker.publish.providerBranch ? { providerVersionBranch: broker.publish.providerBranch } : {}),
        }
      : {}),
  };
}

function pactResult(source: string, outcome: string): PactResult {
  let json: VerifierJson;
  try {
    json = JSON.parse(outcome);
  } catch {
    return { source, consumer: '', interactions: [], error: outcome };
  }
  const output = (json.output ?? []).map(stripAnsi).join('\n');
  const consumers = [...output.matchAll(/Verifying a pact between (\S+) and /g)].map((m) => m[1]);
  const interactions = (json.interactionResults ?? []).map((result): InteractionResult => {
    const errors = (json.errors ?? []).filter((e) => e.interaction.endsWith(` - ${result.description}`));
    const problems = errors.flatMap((e) =>
      e.mismatch?.mismatches?.length
        ? e.mismatch.mismatches.map((m) => `${m.path ? `${m.path}: ` : ''}${m.mismatch ?? JSON.stringify(m)}`)
        : [e.mismatch?.message ?? JSON.stringify(e.mismatch)],
    );
    return { description: result.description, passed: result.result === 'OK' && errors.length === 0, problems };
  });
  const unexplained = !json.result && interactions.every((i) => i.passed);
  return {
    source,
    consumer: [...new Set(consumers)].join(', '),
    interactions,
    ...(unexplained
      ? { error: output.split('\n').filter(Boolean).slice(-5).join('\n') || 'the verification failed' }
      : {}),
  };
}

const pactPassed = (pact: PactResult) => !pact.error && pact.interactions.every((i) => i.passed);
const stripAnsi = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');

function reportLines(report: VerifyReport): string {
  const lines: string[] = [];
  for (const pact of report.pacts) {
    lines.push(`${pact.consumer || '?'} -> ${report.provider}  ${pact.source}`);
    if (pact.error) lines.push(`  could not verify: ${pact.error}`);
    for (const interaction of pact.interactions) {
      lines.push(`  ${interaction.passed ? 'passed' : 'FAILED'}  ${interaction.description}`);
      for (const problem of interaction.problems) lines.push(`          ${problem}`);
    }
  }
  const all = report.pacts.flatMap((p) => p.interactions);
  const failed = all.filter((i) => !i.passed).length;
  lines.push(
    `${report.pacts.length} pact(s), ${all.length} interaction(s): ${all.length - failed} passed, ${failed} failed${report.passed ? '' : ' - verification FAILED'}`,
  );
  return lines.join('\n');
}

/** JUnit XML for CI: one testsuite per pact, one testcase per interaction. */
export function junitReport(report: VerifyReport): string {
  const suites = report.pacts.map((pact) => {
    const failed = pact.interactions.filter((i) => !i.passed).length;
    const name = `${pact.consumer || '?'} -> ${report.provider}`;
    const cases = pact.interactions.map((i) => {
      const open = `    <testcase name="${xml(i.description)}" classname="${xml(name)}"`;
      return i.passed
        ? `${open}/>`
        : `${open}>\n      <failure message="${xml(i.problems[0] ?? 'failed')}" type="mismatch">${xml(i.problems.join('\n'))}</failure>\n    </testcase>`;
    });
    const error = pact.error
      ? [
          `    <testcase name="the pact" classname="${xml(name)}">\n      <error message="${xml(pact.error)}" type="unverifiable"/>\n    </testcase>`,
        ]
      : [];
    return [
      `  <testsuite name="${xml(name)}" file="${xml(pact.source)}" tests="${cases.length + error.length}" failures="${failed}" errors="${error.length}">`,
      ...cases,
      ...error,
      '  </testsuite>',
    ].join('\n');
  });
  const all = report.pacts.flatMap((p) => p.interactions);
  const errors = report.pacts.filter((p) => p.error).length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="capctl pact verify" tests="${all.length + errors}" failures="${all.filter((i) => !i.passed).length}" errors="${errors}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}

// --- publish ---------------------------------------------------------------------------------------

export interface PublishOptions {
  brokerUrl: string;
  brokerToken?: string;
  consumerVersion: string;
  branch?: string;
  /** Tags for the consumer version (the broker's older way of naming environments and branches). */
  tags?: string[];
  /** Only the pacts of these consumers (all when absent). */
  consumers?: string[];
  pactDir: string;
}

export interface Published {
  file: string;
  consumer: string;
  provider: string;
  url: string;
}

/**
 * Publishes every pact of a directory with the broker's HTTP API: the consumer version's branch
 * first (when given), then `PUT /pacts/provider/{p}/consumer/{c}/version/{v}` per pact.
 */
export async function publishPacts(options: PublishOptions): Promise<Published[]> {
  const files = fs.existsSync(options.pactDir)
    ? fs
        .readdirSync(options.pactDir)
        .filter((n) => n.endsWith('.json'))
        .sort()
    : [];
  if (files.length === 0) throw new UsageError(`no pact files in ${options.pactDir}`);
  const broker = options.brokerUrl.replace(/\/+$/, '');
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/hal+json' };
  if (options.brokerToken) headers.authorization = `Bearer ${options.brokerToken}`;
  const { createDispatcher, send } = await import('../scenarios/http.ts');
  const dispatcher = createDispatcher();
  const put = async (url: string, body: unknown) => {
    const res = await send({ method: 'PUT', url, headers, body }, dispatcher);
    if (res.status < 200 || res.status > 299)
      throw new CommandFailed(`the broker answered ${res.status} to PUT ${url}: ${JSON.stringify(res.body)}`);
  };
  const part = encodeURIComponent;
  try {
    const pacts = files
      .map((name) => {
        const file = path.join(options.pactDir, name);
        const pact = readPact(file);
        if (!pact?.consumer?.name || !pact.provider?.name)
          throw new UsageError(`${file} is not a pact (no consumer or provider name)`);
        return { file, pact, consumer: pact.consumer.name, provider: pact.provider.name };
      })
      .filter((p) => !options.consumers || options.consumers.includes(p.consumer));
    if (pacts.length === 0)
      throw new UsageError(`no pacts of consumer ${options.consumers!.join(', ')} in ${options.pactDir}`);
    if (options.branch) {
      for (const consumer of new Set(pacts.map((p) => p.consumer))) {
        await put(
          `${broker}/pacticipants/${part(consumer)}/branches/${part(options.branch)}/versions/${part(options.consumerVersion)}`,
          {},
        );
      }
    }
    for (const consumer of new Set(pacts.map((p) => p.consumer))) {
      for (const tag of options.tags ?? []) {
        await put(
          `${broker}/pacticipants/${part(consumer)}/versions/${part(options.consumerVersion)}/tags/${part(tag)}`,
          {},
        );
      }
    }
    const published: Published[] = [];
    for (const { file, pact, consumer, provider } of pacts) {
      const url = `${broker}/pacts/provider/${part(provider)}/consumer/${part(consumer)}/version/${part(options.consumerVersion)}`;
      await put(url, pact);
      published.push({ file, consumer, provider, url });
    }
    return published;
  } finally {
    await dispatcher.close();
  }
}

// --- commands --------------------------------------------------------------------------------------

interface VerifyFlags {
  provider: ProviderName;
  baseUrl?: string;
  pactDir?: string;
  pactUrl?: string[];
  brokerUrl?: string;
  brokerToken?: string;
  consumerVersionSelectors?: string;
  providerStatesUrl?: string;
  filterDescription?: string;
  filterState?: string;
  junit?: string;
  publishVerificationResults?: boolean;
  providerAppVersion?: string;
  providerBranch?: string;
  verbose?: boolean;
  json?: boolean;
}

function consumerVersionSelectors(text: string | undefined): ConsumerVersionSelector[] | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text);
    if (Array.isArray(value) && value.every((v) => v && typeof v === 'object')) return value;
  } catch {
    // reported below
  }
  throw new UsageError(
    '--consumer-version-selectors must be a JSON array of selectors, e.g. \'[{"mainBranch":true}]\'',
  );
}

/** `capctl pact verify` and `capctl pact publish`. */
export function registerPact(program: Command): void {
  const pact = program
    .command('pact')
    .description('Verify the Pact contracts against a platform, or publish them to a Pact Broker');

  pact
    .command('verify')
    .description('Verify the pacts of one provider against a running platform in development mode')
    .addOption(
      new Option('--provider <service>', 'the provider whose pacts to verify').choices(providers).makeOptionMandatory(),
    )
    .option('--base-url <url>', 'gateway URL of the platform (env CAPCTL_BASE_URL, default http://127.0.0.1:4000)')
    .option('--pact-dir <dir>', 'a directory of pact files; those for --provider are verified (default ./pacts)')
    .option('--pact-url <url>', 'a pact file or http(s) URL (repeatable)', (v: string, all: string[] = []) => [
      ...all,
      v,
    ])
    .option('--broker-url <url>', 'a Pact Broker to fetch the pacts for --provider from')
    .option('--broker-token <token>', 'bearer token for the broker (env PACT_BROKER_TOKEN)')
    .option('--consumer-version-selectors <json>', 'which consumer versions to fetch from the broker, as a JSON array')
    .option(
      '--provider-states-url <url>',
      'where provider states are set up (default <base-url>/v1/<provider>/dev/provider-states)',
    )
    .option('--filter-description <regex>', 'only the interactions whose description matches (env PACT_DESCRIPTION)')
    .option(
      '--filter-state <regex>',
      'only the interactions with a provider state that matches (env PACT_PROVIDER_STATE)',
    )
    .option('--junit <file>', 'also write the results as JUnit XML, one test case per interaction')
    .option(
      '--publish-verification-results',
      'publish each result to the broker (needs --broker-url and --provider-app-version)',
    )
    .option(
      '--provider-app-version <version>',
      "the provider's version the results are published for, e.g. a git commit",
    )
    .option('--provider-branch <branch>', "the provider version's branch, published with the results")
    .option('--verbose', "show the Pact verifier's own report on stderr")
    .option('--json', 'print the results as JSON')
    .addHelpText(
      'after',
      '\nExit codes: 0 every interaction passed, 1 a mismatch (or a pact that could not be verified), 2 usage, 3 the platform is unreachable.',
    )
    .action((flags: VerifyFlags) =>
      runCommand(Boolean(flags.json), async () => {
        const baseUrl = resolveBaseUrl(flags.baseUrl);
        const kinds = [flags.pactDir, flags.pactUrl, flags.brokerUrl].filter((v) => v !== undefined).length;
        if (kinds > 1) throw new UsageError('give one of --pact-dir, --pact-url or --broker-url');
        if (
          !flags.brokerUrl &&
          (flags.brokerToken || flags.consumerVersionSelectors || flags.publishVerificationResults)
        ) {
          throw new UsageError(
            '--broker-token, --consumer-version-selectors and --publish-verification-results need --broker-url',
          );
        }
        if (flags.publishVerificationResults && !flags.providerAppVersion)
          throw new UsageError('--publish-verification-results needs --provider-app-version');
        if (!flags.publishVerificationResults && (flags.providerAppVersion || flags.providerBranch)) {
          throw new UsageError('--provider-app-version and --provider-branch go with --publish-verification-results');
        }
        const pactDir = flags.pactDir ?? 'pacts';
        const pacts = flags.pactUrl ?? (flags.brokerUrl ? [] : pactsIn(pactDir, flags.provider));
        if (!flags.brokerUrl && pacts.length === 0)
          throw new UsageError(`no pacts with provider ${flags.provider} in ${pactDir}`);
        await checkReachable(baseUrl, flags.provider);
        const report = await verifyPacts({
          provider: flags.provider,
          baseUrl,
          statesUrl: flags.providerStatesUrl ?? defaultStatesUrl(baseUrl, flags.provider),
          pacts,
          filterDescription: flags.filterDescription,
          filterState: flags.filterState,
          verbose: flags.verbose,
          ...(flags.brokerUrl
            ? {
                broker: {
                  url: flags.brokerUrl,
                  token: flags.brokerToken ?? process.env.PACT_BROKER_TOKEN,
                  consumerVersionSelectors: consumerVersionSelectors(flags.consumerVersionSelectors),
                  ...(flags.publishVerificationResults
                    ? { publish: { providerVersion: flags.providerAppVersion!, providerBranch: flags.providerBranch } }
                    : {}),
                },
              }
            : {}),
        });
        if (flags.junit) await writeReport(flags.junit, junitReport(report));
        print(report, Boolean(flags.json), () => reportLines(report));
        if (!report.passed) process.exitCode = exitCodes.failed;
      }),
    );

  pact
    .command('publish')
    .description('Publish the pact files to a Pact Broker')
    .option('--broker-url <url>', 'the Pact Broker (env PACT_BROKER_BASE_URL)')
    .option('--broker-token <token>', 'bearer token for the broker (env PACT_BROKER_TOKEN)')
    .requiredOption('--consumer-app-version <version>', "the consumer's version, e.g. a git commit")
    .option('--branch <branch>', "the consumer version's branch")
    .option('--tag <tag>', 'tag the consumer version (repeatable)', (v: string, all: string[] = []) => [...all, v])
    .option(
      '--consumer <name>',
      'only the pacts of this consumer (repeatable; default all)',
      (v: string, all: string[] = []) => [...all, v],
    )
    .option('--pact-dir <dir>', 'where the pact files are', 'pacts')
    .option('--json', 'print the results as JSON')
    .action(
      (flags: {
        brokerUrl?: string;
        brokerToken?: string;
        consumerAppVersion: string;
        branch?: string;
        tag?: string[];
        consumer?: string[];
        pactDir: string;
        json?: boolean;
      }) =>
        runCommand(Boolean(flags.json), async () => {
          const brokerUrl = flags.brokerUrl ?? process.env.PACT_BROKER_BASE_URL;
          if (!brokerUrl) throw new UsageError('no broker configured: give --broker-url or set PACT_BROKER_BASE_URL');
          const published = await publishPacts({
            brokerUrl,
            brokerToken: flags.brokerToken ?? process.env.PACT_BROKER_TOKEN,
            consumerVersion: flags.consumerAppVersion,
            branch: flags.branch,
            tags: flags.tag,
            consumers: flags.consumer,
            pactDir: flags.pactDir,
          });
          print(published, Boolean(flags.json), () =>
            published
              .map((p) => `published ${p.consumer} -> ${p.provider} (${p.file}) version ${flags.consumerAppVersion}`)
              .join('\n'),
          );
        }),
    );
}

/** Fails with UnreachableError (exit 3) unless the provider answers its health check. */
async function checkReachable(baseUrl: string, provider: ProviderName): Promise<void> {
  const { createDispatcher, send } = await import('../scenarios/http.ts');
  const dispatcher = createDispatcher();
  try {
    const res = await send(
      { method: 'GET', url: `${baseUrl}/v1/${provider}/healthz`, headers: { accept: 'application/json' } },
      dispatcher,
    );
    if (res.status !== 200)
      throw new UnreachableError(
        `${provider} at ${baseUrl} is not healthy (GET /v1/${provider}/healthz answered ${res.status})`,
      );
  } finally {
    await dispatcher.close();
  }
}

// The verifier's child process (see verifyPacts): options in, report out, over the IPC channel.
if (process.argv[1] === thisModule && process.send) {
  process.once('message', (options: VerifyOptions) => {
    verifyHere(options).then(
      (report) => process.send!({ report }, () => process.exit(0)),
      (err: Error) => process.send!({ error: err.message }, () => process.exit(1)),
    );
  });
}

import test from 'ava';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** One interaction's outcome in the stock verifier's JSON report. */
export interface StockInteraction {
  description: string;
  passed: boolean;
  /** The verifier's mismatches for it, as text. */
  problems: string[];
}

export interface StockRun {
  file: string;
  code: number | null;
  interactions: StockInteraction[];
  /** The verifier's last output lines, for a run that went wrong as a whole. */
  output: string;
}

const binary = path.resolve('node_modules', '.bin', 'pact-verifier');

/** A pact file's provider name. */
export const pactProvider = (file: string): string => JSON.parse(fs.readFileSync(file, 'utf8')).provider.name;

/**
 * Runs the Pact CLI's `pact-verifier` on one pact file as a downstream team would (README, "Pact
 * contracts"): the gateway's host and port, the provider's name and its state-change URL, nothing of
 * capctl in the loop.
 */
export async function stockVerify(file: string, gatewayUrl: string): Promise<StockRun> {
  const provider = pactProvider(file);
  const { hostname, port } = new URL(gatewayUrl);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pact-verifier-'));
  const report = path.join(dir, 'report.json');
  // Exactly the README's command, with the verifier's own defaults (its request timeout is 5 s); only
  // where the report goes is added.
  const args = [
    '-f',
    file,
    '-h',
    hostname,
    '-p',
    port,
    '-n',
    provider,
    '-s',
    `${gatewayUrl}/v1/${provider}/dev/provider-states`,
    '--json',
    report,
    '--no-colour',
  ];
  try {
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn(binary, args, {
        env: { ...process.env, PACT_DO_NOT_TRACK: 'true' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      child.on('close', (exit) => resolve({ code: exit, output }));
    });
    const json = fs.existsSync(report) ? JSON.parse(fs.readFileSync(report, 'utf8')) : {};
    const errors: Array<{ interaction: string; mismatch?: unknown }> = json.errors ?? [];
    const interactions = (json.interactionResults ?? []).map((r: { description: string; result: string }) => {
      const problems = errors
        .filter((e) => e.interaction.endsWith(` - ${r.description}`) || e.interaction.includes(r.description))
        .map((e) => JSON.stringify(e.mismatch));
      return { description: r.description, passed: r.result === 'OK' && problems.length === 0, problems };
    });
    // Why a state change failed is in the verifier's log, not its report.
    const lines = output.split('\n');
    const stateErrors = lines.filter((line) => /state change/i.test(line) && /error|fail/i.test(line)).slice(0, 10);
    return { file: path.basename(file), code, interactions, output: [...stateErrors, ...lines.slice(-40)].join('\n') };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** "N of M interactions pass" for a run. */
export const tally = (run: StockRun) =>
  `${run.file}: ${run.interactions.filter((i) => i.passed).length} of ${run.interactions.length} interactions pass`;

/** Every pact file in pacts/. */
export const pactFiles = fs
  .readdirSync('pacts')
  .filter((name) => name.endsWith('.json'))
  .sort()
  .map((name) => path.join('pacts', name));

/**
 * One serial test per pact file in pacts/: the stock verifier passes every interaction of it against
 * the platform whose gateway URL `gateway()` gives; `when` says what state the platform is in.
 */
export function testEveryPactWithStockVerifier(when: string, gateway: () => string): void {
  for (const file of pactFiles) {
    test.serial(`the stock pact-verifier passes every interaction of ${path.basename(file)} ${when}`, async (t) => {
      t.timeout(20 * 60_000);
      const run = await stockVerify(file, gateway());
      t.log(tally(run));
      t.deepEqual(
        run.interactions.filter((i) => !i.passed),
        [],
        run.output,
      );
      t.true(run.interactions.length > 0, run.output);
      t.is(run.code, 0, run.output);
    });
  }
}

import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { registerCompletionHandler } from 'ava';

const capctl = path.resolve('bin/capctl');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs capctl to completion; `replaceEnv` gives it `env` alone instead of adding `env` to this process's. */
export function runCapctl(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  input?: string,
  options: { replaceEnv?: boolean } = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    const childEnv = options.replaceEnv ? env : { ...process.env, ...env };
    const child = spawn(process.execPath, [capctl, ...args], { env: childEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.end(input ?? '');
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface RunningServe {
  child: ChildProcess;
  /** Resolves to the exit code once the process has exited. */
  exited: Promise<number | null>;
  /** The ready line's URLs by name (gateway, ol, cap, lms, grpc). */
  urls: Record<string, string>;
  stderr: () => string;
  /** Sends a signal and resolves to the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** `capctl serve` processes started by this test process and still running. */
const runningServes = new Set<ChildProcess>();
// A test that fails before its stop would leave its serve (and that serve's PostgreSQL) running after the
// test file: whatever still runs when ava is done with the file is asked to stop, as Ctrl-C would.
registerCompletionHandler(() => runningServes.forEach((child) => child.kill('SIGTERM')));

/**
 * Starts `capctl serve` and waits for its ready line (or rejects with what it printed). Its idle event
 * workers look for jobs every 10 s, as test platforms' do (test/helpers/platform.ts), unless `env`
 * says otherwise: at 0.5 s an idle serve costs about twice the CPU. `ownGroup`
 * starts it in a process group of its own, as a shell starts a foreground job: a signal to the group
 * (`process.kill(-pid, ...)`) is what Ctrl-C in a terminal sends.
 */
export function startServe(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  options: { ownGroup?: boolean } = {},
): Promise<RunningServe> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [capctl, 'serve', ...args], {
      env: { ...process.env, LOG_LEVEL: 'warn', EVENT_POLLING_SECONDS: '10', ...env },
      detached: options.ownGroup ?? false,
    });
    let stdout = '';
    let stderr = '';
    runningServes.add(child);
    const exited = new Promise<number | null>((done) =>
      child.on('close', (code) => {
        runningServes.delete(child);
        done(code);
      }),
    );
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d) => {
      stdout += d;
      const line = stdout.split('\n').find((l) => l.startsWith('ready '));
      if (!line) return;
      const urls = Object.fromEntries(
        line
          .slice(6)
          .split(' ')
          .map((pair) => pair.split('=') as [string, string]),
      );
      resolve({
        child,
        exited,
        urls,
        stderr: () => stderr,
        stop: (signal = 'SIGTERM') => {
          child.kill(signal);
          return exited;
        },
      });
    });
    void exited.then((code) => reject(new Error(`capctl serve exited with ${code} before ready: ${stderr}`)));
  });
}

/** The ways a command is told to end before it is done. */
export type WayOut = 'SIGINT' | 'SIGTERM' | 'SIGHUP' | 'EPIPE';

const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** As a shell reports a process ended by the signal (EPIPE: as by SIGPIPE). */
const conventionalCodes: Record<WayOut, number> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143, EPIPE: 141 };
export const conventionalExitCode = (way: WayOut) => conventionalCodes[way];

export interface LifetimeOptions {
  /** The exit code for each way out (default: 128 + the signal's number, 141 for a closed output). */
  exitCode?(way: WayOut): number;
  /** Ends the process once `stop` is done (default process.exit). */
  exit?(code: number): void;
}

export interface Lifetime {
  /** What to run before the process ends (stopping the platform); until it is set, the process ends at once. */
  stopWith(stop: (way: WayOut) => Promise<void>): void;
  /** The command ended by itself: the handlers are removed. */
  dispose(): void;
}

/**
 * For a command that starts PostgreSQL (serve, demo, run --embedded, keys): whichever way it is told
 * to end, SIGINT, SIGTERM, SIGHUP (the terminal closed) or its output closed under it (EPIPE, as in
 * `capctl run --embedded FILE | head`), it runs `stop` and ends. Before there is a `stop`, and on a
 * second signal while stopping, the process ends at once: then, as on any other way out (an uncaught
 * error, process.exit), the embedded PostgreSQL's exit hook stops it (server/platform/db/embedded.ts).
 */
export function onEveryWayOut(options: LifetimeOptions = {}): Lifetime {
  const exitCode = options.exitCode ?? conventionalExitCode;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let stop: ((way: WayOut) => Promise<void>) | undefined;
  let ending = false;

  const end = (way: WayOut) => {
    const code = exitCode(way);
    if (ending && way === 'EPIPE') return; // every later write fails the same way
    if (ending || !stop) return process.exit(code);
    ending = true;
    stop(way).then(
      () => exit(code),
      () => exit(code),
    );
  };
  const onSignal = (signal: NodeJS.Signals) => end(signal as WayOut);
  // A write to a closed pipe fails on the stream, asynchronously; any later write fails the same way.
  const onOutputError = (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') end('EPIPE');
    else throw err;
  };
  for (const signal of signals) process.on(signal, onSignal);
  process.stdout.on('error', onOutputError);
  process.stderr.on('error', onOutputError);
  return {
    stopWith(work) {
      stop = work;
    },
    dispose() {
      for (const signal of signals) process.off(signal, onSignal);
      process.stdout.off('error', onOutputError);
      process.stderr.off('error', onOutputError);
    },
  };
}

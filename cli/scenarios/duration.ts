/** Durations in scenario files: a whole number followed by ms, s or m (`500ms`, `2s`, `1m`). */

export const durationPattern = '^\\d+(ms|s|m)$';

const unitMs = { ms: 1, s: 1000, m: 60_000 } as const;

export function parseDuration(text: string): number {
  const match = /^(\d+)(ms|s|m)$/.exec(text);
  if (!match) throw new Error(`malformed duration "${text}" (use e.g. 500ms, 2s, 1m)`);
  return Number(match[1]) * unitMs[match[2] as keyof typeof unitMs];
}

/** Resolves after `ms`, or as soon as `signal` is aborted. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

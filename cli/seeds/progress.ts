/**
 * How far a seeding is: a bar redrawn in place on a terminal, and off one (CI, a file) a line every few
 * seconds and one at the end, so a run in CI is never silent for long.
 */
export interface Progress {
  start(total: number): void;
  /** A step is done; `record` names what it made (sectors, centres, ...). */
  done(record: string): void;
  end(): void;
}

export function progressOn(stream: NodeJS.WriteStream, everyMs = 5000): Progress {
  let total = 0;
  let count = 0;
  let record = '';
  let started = 0;
  let timer: NodeJS.Timeout | undefined;
  let drawn = 0;
  const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;
  const bar = () => {
    const width = 30;
    const filled = total ? Math.round((count / total) * width) : width;
    stream.write(
      `\r  [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${count}/${total} steps, ${elapsed()} (${record})\x1b[K`,
    );
  };
  return {
    start(steps) {
      total = steps;
      started = Date.now();
      if (stream.isTTY) bar();
      else
        timer = setInterval(
          () =>
            stream.write(`seeding: ${count}/${total} steps done after ${elapsed()} (now: ${record || 'starting'})\n`),
          everyMs,
        ).unref();
    },
    done(what) {
      count++;
      record = what;
      // A redraw at most every 100 ms: thousands of steps would otherwise flood the terminal.
      if (stream.isTTY && (count === total || Date.now() - drawn > 100)) {
        drawn = Date.now();
        bar();
      }
    },
    end() {
      clearInterval(timer);
      if (stream.isTTY) stream.write('\n');
      else if (total > 0) stream.write(`seeding: ${count}/${total} steps done in ${elapsed()}\n`);
    },
  };
}

/**
 * How far a seeding is: a bar redrawn in place on a terminal, and off one (CI, a file) a line every few
 * seconds, so a long run is never silent and a short one prints nothing.
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
  const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;
  const bar = () => {
    const width = 30;
    const filled = total ? Math.round((count / total) * width) : width;
    stream.write(`\r  [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${count}/${total} steps, ${elapsed()} (${record})\x1b[K`);
  };
  return {
    start(steps) {
      total = steps;
      started = Date.now();
      if (stream.isTTY) bar();
      else timer = setInterval(() => stream.write(`seeding: ${count}/${total} steps done after ${elapsed()} (now: ${record || 'starting'})\n`), everyMs).unref();
    },
    done(what) {
      count++;
      record = what;
      if (stream.isTTY) bar();
    },
    end() {
      clearInterval(timer);
      if (stream.isTTY) stream.write('\n');
      else if (Date.now() - started >= everyMs) stream.write(`seeding: ${count}/${total} steps done in ${elapsed()}\n`);
    },
  };
}

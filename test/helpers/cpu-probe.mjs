// Loaded into each ava worker when TEST_CPU_LOG is set (test/run.ts): at exit, appends one line to
// that file with the test file, the worker's own CPU seconds, its children's (capctl processes it
// waited for), its wall time, and the CPU the run's PostgreSQL used meanwhile (only attributable to one
// file when files run one at a time: `npm test -- --concurrency=1 ...`).
import fs from 'node:fs';
import { createRequire } from 'node:module';

const log = process.env.TEST_CPU_LOG;
const pgPid = process.env.TEST_PG_PID;
const tick = 100; // USER_HZ

/** utime, stime, cutime, cstime of a process, in seconds. */
function stat(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return fields.slice(11, 15).map((v) => Number(v) / tick);
  } catch {
    return [0, 0, 0, 0];
  }
}

/** PostgreSQL's CPU so far: the postmaster, the backends it reaped, and the live ones. */
function postgresCpu() {
  if (!pgPid) return 0;
  const [u, s, cu, cs] = stat(pgPid);
  let total = u + s + cu + cs;
  const children = fs.readFileSync(`/proc/${pgPid}/task/${pgPid}/children`, 'utf8').trim();
  for (const child of children ? children.split(' ') : []) {
    const [cu2, cs2] = stat(child);
    total += cu2 + cs2;
  }
  return total;
}

if (log) {
  const started = Date.now();
  const pgStart = postgresCpu();
  process.on('exit', () => {
    let file = '?';
    try {
      const avaOptions = createRequire(import.meta.url)('../../node_modules/ava/lib/worker/options.cjs');
      // The source's name, also when the run's compiled copy ran (test/run.ts).
      file = avaOptions
        .get()
        .file.replace(`${process.cwd()}/`, '')
        .replace(/^dist\/tests\/\d+\/(.*)\.js$/, '$1.ts');
    } catch {}
    const [u, s, cu, cs] = stat('self');
    const row = {
      file,
      pid: process.pid,
      cpu: +(u + s).toFixed(2),
      children: +(cu + cs).toFixed(2),
      postgres: +(postgresCpu() - pgStart).toFixed(2),
      wall: +((Date.now() - started) / 1000).toFixed(2),
    };
    fs.appendFileSync(log, `${JSON.stringify(row)}\n`);
  });
}

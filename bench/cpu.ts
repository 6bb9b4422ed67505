// The server's CPU per request of the read path, for comparing two checkouts side by side on a busy
// machine (where the throughput ratios of budget.ts swing by more than a change's effect). Each
// checkout's `capctl serve` runs in production mode on its own data; `GET /v1/cap/me` (bearer) and
// healthz through the gateway are loaded on each in turn, the bare hello before them, in several rounds;
// a load's CPU is the server process's user + system time (all its threads, /proc/<pid>/stat) over the
// requests it answered. The median of the rounds is printed, with the load average.
// `node --import=tsx bench/cpu.ts [--seconds 3] [--rounds 5] [checkout-dir ...]` (the default: this one)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import {
  connections,
  hello,
  login,
  median,
  password,
  prepareOwner,
  productionEnv,
  serve,
  type Serve,
} from './measure.ts';

const { values, positionals } = parseArgs({
  options: { seconds: { type: 'string', default: '3' }, rounds: { type: 'string', default: '5' } },
  allowPositionals: true,
});
const seconds = Number(values.seconds);
const checkouts = positionals.length ? positionals.map((p) => path.resolve(p)) : [process.cwd()];
const ticksPerSecond = 100; // USER_HZ on Linux

function cpuSeconds(pid: number): number {
  // The fields after the command's name (which may hold spaces): utime and stime are the 12th and 13th.
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

interface Target {
  name: string;
  pid: number;
  url: string;
  headers: Record<string, string>;
}

async function measure(target: Target): Promise<{ usPerRequest: number; perSecond: number }> {
  const before = cpuSeconds(target.pid);
  const result = await autocannon({ url: target.url, headers: target.headers, connections, duration: seconds });
  const used = cpuSeconds(target.pid) - before;
  if (result.errors || result.non2xx) throw new Error(`${target.name}: ${result.errors + result.non2xx} errors`);
  return { usPerRequest: (used / result.requests.total) * 1e6, perSecond: result.requests.average };
}

const dirs: string[] = [];
const platforms: Serve[] = [];
const baseline = await hello();
try {
  const targets: Target[] = [];
  for (const checkout of checkouts) {
    const bin = path.join(checkout, 'bin/capctl');
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-cpu-'));
    dirs.push(dataDir);
    const first = await serve(dataDir, {}, bin);
    const owner = await prepareOwner(first.gateway);
    await first.stop();
    const platform = await serve(dataDir, productionEnv, bin);
    platforms.push(platform);
    const auth = await login(platform.gateway, owner.email, password);
    const label = path.basename(checkout);
    const pid = platform.child.pid!;
    targets.push(
      { name: `${label} /me`, pid, url: `${platform.gateway}/v1/cap/me`, headers: auth },
      { name: `${label} healthz`, pid, url: `${platform.gateway}/v1/cap/healthz`, headers: {} },
    );
  }
  const helloTarget: Target = { name: 'hello', pid: baseline.pid, url: baseline.url, headers: {} };
  for (const t of [helloTarget, ...targets]) await measure(t); // warm-up
  const samples = new Map<string, Array<{ usPerRequest: number; perSecond: number }>>();
  const loads: number[] = [];
  for (let round = 0; round < Number(values.rounds); round++) {
    // The checkouts in turn, starting with a different one each round.
    const order = targets.map((_, i) => targets[(i + round * 2) % targets.length]!);
    for (const t of order) {
      loads.push(os.loadavg()[0]!);
      const h = await measure(helloTarget);
      const m = await measure(t);
      samples.set('hello', [...(samples.get('hello') ?? []), h]);
      samples.set(t.name, [...(samples.get(t.name) ?? []), m]);
    }
  }
  console.log(`load average during the run ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`);
  for (const [name, list] of samples) {
    const us = list.map((s) => s.usPerRequest);
    console.log(
      `${name.padEnd(24)} ${median(us).toFixed(0)} us/request (rounds ${us.map((u) => u.toFixed(0)).join(', ')}), ` +
        `${median(list.map((s) => s.perSecond)).toFixed(0)} req/s`,
    );
  }
} finally {
  for (const p of platforms) await p.stop();
  baseline.stop();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
}

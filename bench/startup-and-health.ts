// Start-up time of `capctl serve` (first start on a new data directory, then the next start on the
// same one) and healthz throughput through the whole HTTP stack (request id, access log, routing,
// validation, envelope, response check). Loopback only; bounded in time.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';

const capctl = path.resolve('bin/capctl');
const ports = ['--port', '0', '--ol-port', '0', '--cap-port', '0', '--lms-port', '0', '--grpc-port', '0', '--lms-grpc-port', '0'];

interface Started {
  ms: number;
  gateway: string;
  stop(): Promise<void>;
}

function serve(dataDir: string): Promise<Started> {
  const started = performance.now();
  const child = spawn(process.execPath, [capctl, 'serve', '--data-dir', dataDir, ...ports], {
    env: { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}`)));
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('ready '));
      if (!line) return;
      child.removeAllListeners('exit');
      resolve({
        ms: performance.now() - started,
        gateway: /gateway=(\S+)/.exec(line)![1]!,
        stop: () => new Promise((done) => { child.on('exit', () => done()); child.kill('SIGTERM'); }),
      });
    });
  });
}

async function throughput(url: string, seconds: number, connections: number) {
  const origin = new URL(url).origin;
  const pool = new Pool(origin, { connections, pipelining: 1 });
  const latencies: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  let errors = 0;
  await Promise.all(Array.from({ length: connections }, async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      const res = await pool.request({ path: new URL(url).pathname, method: 'GET' });
      await res.body.dump();
      if (res.statusCode !== 200) errors++;
      latencies.push(performance.now() - t0);
    }
  }));
  await pool.close();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]!.toFixed(2);
  return { requests: latencies.length, perSecond: Math.round(latencies.length / seconds), p50: pct(0.5), p99: pct(0.99), errors };
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-bench-'));
try {
  const first = await serve(dataDir);
  await first.stop();
  const next = await serve(dataDir);
  console.log(`start-up: first ${Math.round(first.ms)} ms, next ${Math.round(next.ms)} ms (to the ready line)`);
  await throughput(`${next.gateway}/v1/cap/healthz`, 2, 16); // warm-up
  const r = await throughput(`${next.gateway}/v1/cap/healthz`, 10, 16);
  console.log(`healthz (gateway /v1/cap/healthz, 16 connections, 10 s): ${r.perSecond} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, ${r.errors} errors of ${r.requests}`);
  await next.stop();
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}

// `npm test`: one embedded PostgreSQL for the whole run, then ava. Each test file creates its own
// database on it (test/helpers/platform.ts). The server is stopped and its files removed at the end,
// whatever the tests did.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../server/platform/db/embedded.ts';
import { createLogger } from '../server/platform/logger.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-test-'));
const database = await startEmbeddedPostgres(dataDir, createLogger('warn'));
let cleaned = false;
const cleanup = async () => {
  if (cleaned) return;
  cleaned = true;
  await database.stop().catch(() => undefined);
  fs.rmSync(dataDir, { recursive: true, force: true });
};

const ava = spawn(process.execPath, [path.join('node_modules', 'ava', 'entrypoints', 'cli.mjs'), ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, TEST_DATABASE_URL: database.url },
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => ava.kill(signal));
const code = await new Promise<number>((resolve) => ava.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
await cleanup();
process.exit(code);

import type { Command } from 'commander';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { configFromOptions } from '../platform.ts';
import { exitCodes } from '../output.ts';

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('Start a throwaway platform on free ports, check every service is ready, print the URLs and stop')
    .option('--keep', 'keep running until SIGINT instead of stopping after the checks')
    .action(async (options: { keep?: boolean }) => {
      const { readyLine, startPlatform } = await import('../../server/main.ts');
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-demo-'));
      const config = configFromOptions({}, { dataDir, port: 0, olPort: 0, capPort: 0, lmsPort: 0, grpcPort: 0, lmsGrpcPort: 0, logLevel: 'warn', databaseUrl: '' });
      const platform = await startPlatform(config);
      try {
        process.stdout.write(`${readyLine(platform.urls)}\n`);
        let failures = 0;
        for (const [name, base] of Object.entries(platform.urls)) {
          if (name.startsWith('grpc')) continue;
          const prefixes = name === 'gateway' ? config.only.map((s) => `/v1/${s}`) : ['/v1'];
          for (const prefix of prefixes) {
            const url = `${base}${prefix}/readyz`;
            const res = await request(url);
            const body = (await res.body.json()) as { success?: boolean };
            const ready = res.statusCode === 200 && body.success === true;
            if (!ready) failures++;
            process.stdout.write(`${ready ? 'ready    ' : 'NOT READY'}  ${url}\n`);
          }
        }
        process.stdout.write(failures ? `${failures} listener(s) not ready\n` : 'all services ready\n');
        process.exitCode = failures ? exitCodes.failed : exitCodes.ok;
        if (options.keep) await new Promise((resolve) => process.once('SIGINT', resolve));
      } finally {
        await platform.stop();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    });
}

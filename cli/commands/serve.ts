import type { Command } from 'commander';
import { configFromOptions, startFailure, withPlatformOptions } from '../platform.ts';
import { onEveryWayOut } from '../lifetime.ts';
import { exitCodes, UsageError } from '../output.ts';

export function registerServe(program: Command): void {
  withPlatformOptions(program.command('serve'))
    .description('Start the platform (CAP, Orchestrator, LMS) and keep it running until SIGINT, SIGTERM or SIGHUP')
    .action(async (options: Record<string, unknown>) => {
      const config = configFromOptions(options);
      await boundHeapGrowth();
      // A stop asked for (SIGINT, SIGTERM, SIGHUP) ends with 0, a closed output with 1; before the
      // platform is ready, at once (the embedded PostgreSQL's exit hook stops what had started).
      const lifetime = onEveryWayOut({
        exitCode: (way) => (way === 'EPIPE' ? exitCodes.failed : exitCodes.ok),
        exit: exitWhenDone,
      });
      const { readyLine, startPlatform } = await import('../../server/main.ts');
      let platform;
      try {
        platform = await startPlatform(config);
      } catch (err) {
        lifetime.dispose();
        // Matched by name so that loading the CLI does not load the server.
        if ((err as Error).name === 'DataDirUnreachableError') throw new UsageError((err as Error).message);
        const message = startFailure(err);
        if (!message) throw err;
        process.stderr.write(`capctl serve: ${message}\n`);
        exitWhenDone(exitCodes.failed);
        return;
      }
      const running = platform;
      lifetime.stopWith(async (way) => {
        running.logger.info({ signal: way }, 'stopping');
        await running.stop();
      });
      if (config.devMode) {
        process.stderr.write(
          `capctl serve: development mode: the dev mailbox, provider states and the development service key are open to anyone who reaches ${config.host}` +
            ' (NODE_ENV=production turns them off)\n',
        );
      }
      process.stdout.write(`${readyLine(platform.urls)}\n`);
    });
}

/**
 * The server's live heap is about 35-50 MB; between full collections V8 lets the old generation grow
 * to as much as four times that, which under load shows as 250-300 MB of RSS that is only garbage
 * waiting. Growing by the live size at most keeps RSS near 175-180 MB after the benchmark's load. Half
 * the live size (the bound before) kept it near 160 MB but cost 5-8 % of throughput on every read
 * figure: under load each minor collection promotes a few MB of request objects that die soon after,
 * and a tighter bound collects them with a full mark of the whole heap twice as often. The flag is read
 * at every collection, so setting it here (this process is the server's own) takes effect; a node
 * started with its own --heap-growing-percent keeps it.
 */
async function boundHeapGrowth(): Promise<void> {
  if (process.execArgv.some((arg) => /^--heap[-_]growing[-_]percent/.test(arg))) return;
  // node:v8 is imported here, not at the top: every other command's start would pay for it.
  (await import('node:v8')).setFlagsFromString('--heap-growing-percent=100');
}

/**
 * Everything serve started is stopped (or never started): a library timer still pending must not
 * keep the process alive (seen with two serves on one database, and after a failed start), so after
 * a moment it is named and the process exits anyway.
 */
function exitWhenDone(code: number): void {
  process.exitCode = code;
  setTimeout(() => {
    process.stderr.write(
      `capctl serve: stopped; exiting although these were still pending: ${process.getActiveResourcesInfo().join(', ')}\n`,
    );
    process.exit(code);
  }, 2000).unref();
}

/**
 * A throwaway platform in this process, for `capctl run --embedded` and `capctl demo`: its own
 * PostgreSQL in a temporary directory, every listener on a free port, seeded from the project's seeds/
 * as `capctl seed` does it. Its first seeded platform admin is given to the scenarios as vars
 * adminEmail and adminPassword.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ServiceName } from '../../server/platform/config.ts';
import { projectPath } from '../../server/platform/paths.ts';
import { UnreachableError, UsageError } from '../output.ts';
import { applySeeds, seedKinds, type SeedReport } from '../seeds/apply.ts';
import { loadSeeds } from '../seeds/load.ts';
import { withApi } from '../session.ts';

export interface EmbeddedPlatform {
  baseUrl: string;
  /** Every listener by name, as the ready line prints them. */
  urls: Record<string, string>;
  services: ServiceName[];
  /** Its database (platform roles are granted there). */
  databaseUrl: string;
  /** What seeding created, per kind of record. */
  seeded: SeedReport['counts'];
  /** The seeded platform admin, as the scenarios' vars. */
  adminVars: Record<string, string>;
  stop(): Promise<void>;
}

export async function startEmbeddedPlatform(options: { logLevel?: string } = {}): Promise<EmbeddedPlatform> {
  const seeds = await loadSeeds([projectPath('seeds')]); // a bad seed file is reported before anything starts
  const dataDir = await mkdtemp(path.join(tmpdir(), 'capctl-run-'));
  const { anyFreePorts, resolveConfig } = await import('../../server/platform/config.ts');
  const { startPlatform } = await import('../../server/main.ts');
  const config = resolveConfig({
    ...anyFreePorts,
    dataDir,
    databaseUrl: '',
    logLevel: options.logLevel ?? 'warn',
  });
  let platform: Awaited<ReturnType<typeof startPlatform>>;
  try {
    // A throwaway cluster: its directory goes when PostgreSQL stops, however the process ends.
    platform = await startPlatform(config, undefined, { throwaway: true });
  } catch (err) {
    if ((err as Error).name === 'DataDirUnreachableError') throw new UsageError((err as Error).message); // a setting to change: exit 2
    throw new UnreachableError(`the embedded platform did not start: ${(err as Error).message}`);
  }
  let seeded: SeedReport;
  try {
    seeded = await withApi(platform.urls.gateway!, (api) =>
      applySeeds(api, seeds, { dryRun: false, only: new Set(seedKinds), databaseUrl: platform.databaseUrl }),
    );
  } catch (err) {
    await platform.stop();
    throw new UnreachableError(`the embedded platform could not be seeded: ${(err as Error).message}`);
  }
  const admin = seeds.platformAdmins.find((a) => a.password);
  return {
    baseUrl: platform.urls.gateway!,
    urls: platform.urls,
    services: config.only,
    databaseUrl: platform.databaseUrl,
    seeded: seeded.counts,
    adminVars: admin ? { adminEmail: admin.email, adminPassword: admin.password! } : {},
    stop: () => platform.stop(),
  };
}

/** The work of `capctl seed` (seed.ts defines the command). */
import { projectPath } from '../../server/platform/paths.ts';
import { runningDatabaseUrl } from '../../server/platform/db/embedded.ts';
import { print } from '../output.ts';
import { configFromOptions } from '../platform.ts';
import { applySeeds, type SeedKind, type SeedReport } from '../seeds/apply.ts';
import { exportSeeds } from '../seeds/export.ts';
import { loadSeeds } from '../seeds/load.ts';
import { signIn } from '../dev-accounts.ts';
import { progressOn } from '../seeds/progress.ts';
import { CommandFailed, expiresWithin, requireProfile, resolveBaseUrl, Session, withApi } from '../session.ts';

export interface SeedCommandOptions {
  baseUrl?: string;
  dataDir?: string;
  databaseUrl?: string;
  profile?: string;
  only?: string;
  dryRun?: boolean;
  allowIdentityChanges?: boolean;
  concurrency?: string;
  json?: boolean;
}

export async function seed(paths: string[], options: SeedCommandOptions): Promise<void> {
  const seeds = await loadSeeds(paths.length ? paths : [projectPath('seeds')]);
  const profile = options.profile ? requireProfile(options.profile) : undefined;
  const baseUrl = resolveBaseUrl(options.baseUrl, profile);
  const config = configFromOptions({ dataDir: options.dataDir, databaseUrl: options.databaseUrl });
  const only = new Set(options.only!.split(',') as SeedKind[]);
  const report = await withApi(baseUrl, async (api) => {
    // A profile's session is renewed first if its access token is about to expire.
    const session = profile && new Session(api, options.profile!, profile);
    return applySeeds(api, seeds, {
      dryRun: Boolean(options.dryRun),
      only,
      databaseUrl: config.databaseUrl || runningDatabaseUrl(config.dataDir),
      adminToken: session
        ? async () => {
            if (expiresWithin(session.profile.accessToken, 120)) await session.refresh();
            return session.profile.accessToken;
          }
        : undefined,
      allowIdentityChanges: Boolean(options.allowIdentityChanges),
      concurrency: options.concurrency ? Number(options.concurrency) : undefined,
      progress: progressOn(process.stderr),
    });
  });
  print({ files: seeds.files.length, ...report }, Boolean(options.json), () => summary(report, seeds.files.length));
}

function summary(report: SeedReport, files: number): string {
  const lines = Object.entries(report.counts).map(
    ([record, c]) => `${record.padEnd(17)} ${String(c.created).padStart(4)} ${report.dryRun ? 'to create' : 'created'}, ${c.updated} ${report.dryRun ? 'to update' : 'updated'}, ${c.unchanged} unchanged`,
  );
  const updates = report.changes
    .filter((c) => c.outcome === 'updated')
    .map((c) => `${report.dryRun ? 'to update' : 'updated'}: ${c.record} ${c.label}\n${Object.entries(c.diff ?? {}).map(([field, { from, to }]) => `    ${field}: ${JSON.stringify(from)} -> ${JSON.stringify(to)}`).join('\n')}`);
  const changed = report.changes.length > 0;
  return [
    `${report.dryRun ? 'plan for' : 'seeded from'} ${files} file(s):`,
    ...lines,
    ...updates,
    changed ? (report.dryRun ? 'dry run: nothing was written' : 'done') : 'nothing to change: the platform already matches the seeds',
  ].join('\n');
}

/** `capctl seed export DIR`. */
export async function seedExport(dir: string, options: { baseUrl?: string; profile?: string; json?: boolean }): Promise<void> {
  const profile = options.profile ? requireProfile(options.profile) : undefined;
  const baseUrl = resolveBaseUrl(options.baseUrl, profile);
  const result = await withApi(baseUrl, async (api) => {
    let token: string;
    if (profile) {
      const session = new Session(api, options.profile!, profile);
      if (expiresWithin(session.profile.accessToken, 300)) await session.refresh();
      token = session.profile.accessToken;
    } else {
      const admin = (await loadSeeds([projectPath('seeds', 'people.yaml')])).platformAdmins.find((a) => a.password);
      const signedIn = admin && (await signIn(api, admin.email, admin.password!));
      if (!signedIn) throw new CommandFailed("no platform admin to read as: sign one in (capctl login) and pass --profile");
      token = signedIn.accessToken;
    }
    return exportSeeds(api, token, dir);
  });
  print(result, Boolean(options.json), () => `exported ${result.sectors} sector(s), ${result.trades} trade(s) and ${result.centres} centre(s) to ${result.files.length} file(s) in ${dir}`);
}

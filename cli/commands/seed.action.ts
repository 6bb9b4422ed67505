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
    ([record, c]) =>
      `${record.padEnd(17)} ${String(c.created).padStart(4)} ${report.dryRun ? 'to create' : 'created'}, ${c.updated} ${report.dryRun ? 'to update' : 'updated'}, ${c.unchanged} unchanged`,
  );
  const updates = report.changes
    .filter((c) => c.outcome === 'updated')
    .map(
      (c) =>
        `${report.dryRun ? 'to update' : 'updated'}: ${c.record} ${c.label}\n${Object.entries(c.diff ?? {})
          .map(([field, { from, to }]) => `    ${field}: ${JSON.stringify(from)} -> ${JSON.stringify(to)}`)
          .join('\n')}`,
    );
  const changed = report.changes.length > 0;
  return [
    `${report.dryRun ? 'plan for' : 'seeded from'} ${files} file(s):`,
    ...lines,
    ...updates,
    changed
      ? report.dryRun
        ? 'dry run: nothing was written'
        : 'done'
      : 'nothing to change: the platform already matches the seeds',
  ].join('\n');
}

/** `capctl seed export DIR`. */
export async function seedExport(
  dir: string,
  options: { baseUrl?: string; profile?: string; lmsProfile?: string; json?: boolean },
): Promise<void> {
  const profile = options.profile ? requireProfile(options.profile) : undefined;
  const baseUrl = resolveBaseUrl(options.baseUrl, profile);
  const result = await withApi(baseUrl, async (api) => {
    /** A profile's access token (renewed when about to expire), or the first seeded person's of `file` with a password. */
    const reader = async (profileName: string | undefined, file: string, kind: 'platformAdmins' | 'lmsAdmins') => {
      if (profileName) {
        const session = new Session(api, profileName, requireProfile(profileName));
        if (expiresWithin(session.profile.accessToken, 300)) await session.refresh();
        return session.profile.accessToken;
      }
      const person = (await loadSeeds([projectPath('seeds', file)]))[kind].find((p) => p.password);
      return person && (await signIn(api, person.email, person.password!).catch(() => undefined))?.accessToken;
    };
    const token = await reader(options.profile, 'people.yaml', 'platformAdmins');
    if (!token) throw new CommandFailed('no platform admin to read as: sign one in (capctl login) and pass --profile');
    // The LMS is read as LMS staff: the --lms-profile, else the platform admin if they are staff, else the bundled LMS admin.
    const isStaff = async (bearer: string | undefined) =>
      Boolean(
        bearer &&
        (await api.call<{ staffRole: string | null }>('GET', '/v1/lms/me', { token: bearer }).catch(() => undefined))
          ?.staffRole,
      );
    let lmsToken = options.lmsProfile
      ? await reader(options.lmsProfile, 'lms.yaml', 'lmsAdmins')
      : (await isStaff(token))
        ? token
        : await reader(undefined, 'lms.yaml', 'lmsAdmins');
    if (!(await isStaff(lmsToken))) {
      if (options.lmsProfile)
        throw new CommandFailed(`--lms-profile ${options.lmsProfile} is not LMS staff: the LMS is read by its staff`);
      lmsToken = undefined;
    }
    return exportSeeds(api, token, dir, lmsToken);
  });
  print(result, Boolean(options.json), () =>
    [
      `exported ${result.sectors} sector(s), ${result.trades} trade(s) and ${result.centres} centre(s)` +
        (result.courses === undefined
          ? ''
          : `, ${result.courses} LMS course(s) and ${result.levelOfferings} level offering(s)`) +
        ` to ${result.files.length} file(s) in ${dir}`,
      ...(result.courses === undefined ? ['LMS not exported: no LMS staff to read it as (pass --lms-profile)'] : []),
      ...result.skipped.map((why) => `left out: ${why}`),
    ].join('\n'),
  );
}

/**
 * A throwaway platform in this process, for `capctl run --embedded` and `capctl demo`: its own
 * PostgreSQL in a temporary directory, every listener on a free port, and a platform admin prepared
 * for the scenarios that need one (given to them as vars adminEmail and adminPassword).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ServiceName } from '../../server/platform/config.ts';
import { UnreachableError, UsageError } from '../output.ts';
import { withApi } from '../session.ts';

export interface PreparedAdmin {
  adminEmail: string;
  adminPassword: string;
}

export interface EmbeddedPlatform {
  baseUrl: string;
  grpc: { address: string; serviceKey: string };
  /** Every listener by name, as the ready line prints them. */
  urls: Record<string, string>;
  services: ServiceName[];
  /** Its database (platform roles are granted there). */
  databaseUrl: string;
  /** The prepared admin, or the reason none could be prepared (the admin scenarios then fail and say so). */
  admin: PreparedAdmin | { problem: string };
  stop(): Promise<void>;
}

export async function startEmbeddedPlatform(options: { logLevel?: string; prepareAdmin?: boolean } = {}): Promise<EmbeddedPlatform> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'capctl-run-'));
  const { resolveConfig } = await import('../../server/platform/config.ts');
  const { startPlatform } = await import('../../server/main.ts');
  const { removeDataDir } = await import('../../server/platform/db/embedded.ts');
  const config = resolveConfig({
    port: 0, olPort: 0, capPort: 0, lmsPort: 0, grpcPort: 0, lmsGrpcPort: 0,
    dataDir,
    databaseUrl: '',
    logLevel: options.logLevel ?? 'warn',
  });
  let platform: Awaited<ReturnType<typeof startPlatform>>;
  try {
    platform = await startPlatform(config);
  } catch (err) {
    removeDataDir(dataDir);
    if ((err as Error).name === 'DataDirUnreachableError') throw new UsageError((err as Error).message); // a setting to change: exit 2
    throw new UnreachableError(`the embedded platform did not start: ${(err as Error).message}`);
  }
  const admin =
    options.prepareAdmin === false
      ? { problem: 'none was asked for' }
      : await preparePlatformAdmin(platform.urls.gateway!, platform.databaseUrl).catch((err: Error) => ({ problem: err.message }));
  return {
    baseUrl: platform.urls.gateway!,
    grpc: { address: platform.urls.grpc!, serviceKey: config.serviceApiKey },
    urls: platform.urls,
    services: config.only,
    databaseUrl: platform.databaseUrl,
    admin,
    async stop() {
      await platform.stop();
      removeDataDir(dataDir);
    },
  };
}

/** The admin's vars for the scenarios, when one was prepared. */
export const adminVars = (admin: EmbeddedPlatform['admin']): Record<string, string> => ('problem' in admin ? {} : { ...admin });

/**
 * Platform roles are granted outside the API, so this does what an operator does: signs an account up
 * through the Orchestrator's public API with a known password, then grants it platform_admin in the
 * CAP schema the way `capctl admin create` does.
 */
export async function preparePlatformAdmin(gateway: string, databaseUrl: string): Promise<PreparedAdmin> {
  const adminEmail = `admin+${randomBytes(6).toString('hex')}@example.test`;
  const adminPassword = `Admin-${randomBytes(6).toString('hex')}-1`;
  const { registerVerified, grantPlatformAdmin } = await import('../dev-accounts.ts');
  await withApi(gateway, async (api) => {
    const { userId } = await registerVerified(api, adminEmail, adminPassword);
    await grantPlatformAdmin(databaseUrl, userId, adminEmail);
  });
  return { adminEmail, adminPassword };
}

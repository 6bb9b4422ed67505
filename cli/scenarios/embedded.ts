/** `capctl run --embedded`: a throwaway platform in this process, on free ports, with its own database. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { UnreachableError } from './http.ts';

export interface EmbeddedPlatform {
  baseUrl: string;
  grpc: { address: string; serviceKey: string };
  stop(): Promise<void>;
}

export async function startEmbeddedPlatform(): Promise<EmbeddedPlatform> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'capctl-run-'));
  const { resolveConfig } = await import('../../server/platform/config.ts');
  const { startPlatform } = await import('../../server/main.ts');
  const config = resolveConfig({
    port: 0,
    servicePorts: false,
    grpcPort: 0,
    lmsGrpcPort: 0,
    dataDir,
    databaseUrl: '',
    logLevel: 'warn',
  });
  let platform;
  try {
    platform = await startPlatform(config);
  } catch (err) {
    await rm(dataDir, { recursive: true, force: true });
    throw new UnreachableError(`the embedded platform did not start: ${(err as Error).message}`);
  }
  const grpcUrl = platform.urls.grpc ?? Object.entries(platform.urls).find(([name]) => name.startsWith('grpc'))?.[1];
  return {
    baseUrl: platform.urls.gateway!,
    grpc: { address: (grpcUrl ?? '127.0.0.1:4400').replace(/^\w+:\/\//, ''), serviceKey: config.serviceApiKey },
    async stop() {
      await platform.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

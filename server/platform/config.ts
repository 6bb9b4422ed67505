import path from 'node:path';

/** The three services of the platform, by their gateway prefix name. */
export const serviceNames = ['ol', 'cap', 'lms'] as const;
export type ServiceName = (typeof serviceNames)[number];

export interface PlatformConfig {
  host: string;
  /** Gateway port serving /v1/ol, /v1/cap and /v1/lms. */
  port: number;
  /** Per-service listeners with prefix /v1 (off with servicePorts: false). */
  servicePorts: boolean;
  olPort: number;
  capPort: number;
  lmsPort: number;
  /** Orchestrator gRPC listener (IdentityService). */
  grpcPort: number;
  /** LMS gRPC listener (RecommendationsService). */
  lmsGrpcPort: number;
  /** Services this process runs; the others are reached at their configured URLs. */
  only: ServiceName[];
  dataDir: string;
  /** Empty: start an embedded PostgreSQL in dataDir. */
  databaseUrl: string;
  /** Development mode: dev mailbox, sandbox issuers, provider-state endpoint. Forbidden in production. */
  devMode: boolean;
  logLevel: string;
  /** Largest accepted JSON body, in bytes. */
  bodyLimitBytes: number;
  serviceApiKey: string;
}

/** Raw settings from flags or a caller; anything missing comes from the environment, then defaults. */
export type ConfigInput = Partial<Record<keyof PlatformConfig, unknown>>;

/** A setting with a bad value. The message names the setting and the problem (capctl exits 2). */
export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(readonly setting: string, problem: string) {
    super(`invalid setting ${setting}: ${problem}`);
  }
}

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const devServiceKey = 'dev-service-key';

/** Where each setting is read from in the environment when no flag gives it. */
const envNames: Partial<Record<keyof PlatformConfig, string>> = {
  host: 'CAPCTL_HOST',
  port: 'PORT',
  olPort: 'OL_PORT',
  capPort: 'CAP_PORT',
  lmsPort: 'LMS_PORT',
  grpcPort: 'GRPC_PORT',
  lmsGrpcPort: 'LMS_GRPC_PORT',
  dataDir: 'CAPCTL_DATA_DIR',
  databaseUrl: 'DATABASE_URL',
  logLevel: 'LOG_LEVEL',
  bodyLimitBytes: 'BODY_LIMIT_BYTES',
  serviceApiKey: 'ORCHESTRATOR_SERVICE_API_KEY',
};

function port(setting: string, value: unknown): number {
  const n = typeof value === 'number' ? value : Number(String(value).trim());
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    throw new ConfigError(setting, `expected a port number from 0 to 65535, got "${String(value)}"`);
  }
  return n;
}

function positiveInt(setting: string, value: unknown): number {
  const n = typeof value === 'number' ? value : Number(String(value).trim());
  if (!Number.isInteger(n) || n <= 0) throw new ConfigError(setting, `expected a positive integer, got "${String(value)}"`);
  return n;
}

function bool(setting: string, value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  const s = String(value).trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(s)) return true;
  if (['0', 'false', 'no', 'off'].includes(s)) return false;
  throw new ConfigError(setting, `expected true or false, got "${String(value)}"`);
}

function services(value: unknown): ServiceName[] {
  const list = (Array.isArray(value) ? value : String(value).split(',')).map((s) => String(s).trim()).filter(Boolean);
  for (const name of list) {
    if (!(serviceNames as readonly string[]).includes(name)) {
      throw new ConfigError('only', `unknown service "${name}" (expected ${serviceNames.join(', ')})`);
    }
  }
  return list.length ? [...new Set(list as ServiceName[])] : [...serviceNames];
}

function databaseUrl(value: unknown): string {
  const s = String(value ?? '').trim();
  if (!s) return '';
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    throw new ConfigError('databaseUrl', 'not a URL (expected postgres://user:password@host:port/database)');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError('databaseUrl', `expected a postgres:// URL, got protocol "${url.protocol}"`);
  }
  return s;
}

/**
 * Resolves the platform configuration from explicit settings, then the environment, then defaults,
 * validating every value. Throws ConfigError naming the first bad setting.
 */
export function resolveConfig(input: ConfigInput = {}, env: NodeJS.ProcessEnv = process.env): PlatformConfig {
  const pick = (key: keyof PlatformConfig): unknown => {
    if (input[key] !== undefined) return input[key];
    const envName = envNames[key];
    const fromEnv = envName ? env[envName] : undefined;
    return fromEnv !== undefined && fromEnv !== '' ? fromEnv : undefined;
  };
  const production = env.NODE_ENV === 'production';
  const devMode = bool('devMode', pick('devMode') ?? env.CAPCTL_DEV_MODE ?? !production);
  if (devMode && production) throw new ConfigError('devMode', 'development mode is not allowed when NODE_ENV=production');

  const logLevel = String(pick('logLevel') ?? 'info');
  if (!logLevels.includes(logLevel)) throw new ConfigError('logLevel', `expected one of ${logLevels.join(', ')}`);

  const serviceApiKey = String(pick('serviceApiKey') ?? (devMode ? devServiceKey : ''));
  if (!serviceApiKey) throw new ConfigError('serviceApiKey', 'ORCHESTRATOR_SERVICE_API_KEY is required outside development mode');
  if (!devMode && serviceApiKey.length < 16) throw new ConfigError('serviceApiKey', 'must be at least 16 characters in production');

  return {
    host: String(pick('host') ?? '127.0.0.1'),
    port: port('port', pick('port') ?? 4000),
    servicePorts: bool('servicePorts', pick('servicePorts') ?? true),
    olPort: port('olPort', pick('olPort') ?? 4300),
    capPort: port('capPort', pick('capPort') ?? 4100),
    lmsPort: port('lmsPort', pick('lmsPort') ?? 4200),
    grpcPort: port('grpcPort', pick('grpcPort') ?? 4400),
    lmsGrpcPort: port('lmsGrpcPort', pick('lmsGrpcPort') ?? 4401),
    only: services(pick('only') ?? serviceNames),
    dataDir: path.resolve(String(pick('dataDir') ?? '.capctl')),
    databaseUrl: databaseUrl(pick('databaseUrl')),
    devMode,
    logLevel,
    bodyLimitBytes: positiveInt('bodyLimitBytes', pick('bodyLimitBytes') ?? 1024 * 1024),
    serviceApiKey,
  };
}

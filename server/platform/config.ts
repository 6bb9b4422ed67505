import { createRequire } from 'node:module';
import path from 'node:path';

/** The three services of the platform, by their gateway prefix name. */
export const serviceNames = ['ol', 'cap', 'lms'] as const;
export type ServiceName = (typeof serviceNames)[number];

/** PASSWORD_HASH_COST: argon2id at the recommended parameters, or at the least argon2 accepts (development). */
export const passwordHashCosts = ['production', 'minimum'] as const;
export type PasswordHashCost = (typeof passwordHashCosts)[number];

/** Every listener on a port the system picks when it binds: throwaway platforms (`run --embedded`, tests). */
export const anyFreePorts = { port: 0, olPort: 0, capPort: 0, lmsPort: 0, grpcPort: 0, lmsGrpcPort: 0 } as const;

export interface PlatformConfig {
  host: string;
  /** Gateway port serving /v1/ol, /v1/cap and /v1/lms. */
  port: number;
  /** Per-service listeners with prefix /v1 (off with servicePorts: false). */
  servicePorts: boolean;
  olPort: number;
  capPort: number;
  lmsPort: number;
  /** Orchestrator gRPC listener (IdentityService, PaymentsService). */
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
  /** Allows development mode on an address other machines can reach (it is loopback-only otherwise). */
  devModeOnNetwork: boolean;
  /** The cost of new password hashes: `minimum` by default in development mode, `production` otherwise. */
  passwordHashCost: PasswordHashCost;
  logLevel: string;
  /**
   * How often an idle event worker looks for jobs (default 5 s; 0.5 s, pg-boss's least, at the
   * lowest). Jobs queued and events published by any process wake the workers and relays concerned at
   * once (a NOTIFY), a worker that found a job looks again at once and a retry wakes one when due;
   * polling bounds only what those miss (events/runtime.ts). The tests' platforms set it
   * (test/helpers/platform.ts).
   */
  eventPollingSeconds: number;
  /** Largest accepted JSON body, in bytes. */
  bodyLimitBytes: number;
  /**
   * How long an idle HTTP connection is kept open for the next request. Longer than a load balancer's
   * own idle timeout (AWS ALB: 60 s), so that the balancer, not the server, closes an idle connection
   * and never sends a request on one the server is closing.
   */
  httpKeepAliveTimeoutSeconds: number;
  /**
   * Which proxies in front of the listeners are trusted to report the client (`X-Forwarded-For`) and
   * the scheme (`X-Forwarded-Proto`), as Express's `trust proxy` takes it: false (none), true (every
   * hop), a hop count, or addresses, CIDR ranges and the names `loopback`, `linklocal`, `uniquelocal`.
   */
  trustProxy: boolean | number | string[];
  /**
   * Browser origins allowed to call the API (CORS): exact origins, or `*` for any. Empty in
   * development mode means any localhost / 127.0.0.1 / [::1] origin on any port; empty in production
   * means none.
   */
  corsOrigins: string[];
  serviceApiKey: string;

  /** Peers: where the other services are, when this process does not run them (`--only`). */
  olUrl: string;
  capUrl: string;
  lmsUrl: string;
  olGrpcAddress: string;
  /** host:port of the LMS gRPC listener (RecommendationsService) when the LMS runs elsewhere. */
  lmsGrpcAddress: string;

  /** Access tokens (RS256, signed by OL, verified by CAP and LMS through the JWKS). */
  jwtIssuer: string;
  jwtAudience: string;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  /** One-time codes mailed for account verification and password reset. */
  otpTtlSeconds: number;
  otpMaxAttempts: number;
  /** OTP mails one address may be sent per hour (first mail included). */
  otpSendsPerHour: number;

  /** Outgoing mail: empty keeps mail in the dev mailbox (dev mode only); smtp:// or smtps:// sends it. */
  mailUrl: string;
  mailFrom: string;
  /** Google sign-in: the OAuth client id (audience) and where Google's signing keys are published. */
  googleClientId: string;
  googleIssuer: string;
  /** Empty in dev mode: the Orchestrator's own sandbox issuer. */
  googleJwksUrl: string;

  /** Identity checks: the adapter (`sandbox`), its simulated latency, and the HMAC key for identity numbers. */
  identityProvider: string;
  identityLatencyMs: number;
  identityHmacKey: string;

  /** Payments: the provider adapter (`sandbox`), the secret key its webhooks are signed with, and where they go (empty: the Orchestrator's own `/payments/webhook`). */
  paymentProvider: string;
  paymentSecretKey: string;
  paymentWebhookUrl: string;

  /** Bank account-name lookups: the adapter (`sandbox`). */
  bankResolver: string;
  /** Storage: the backend (`filesystem` under storageDir, or `s3`), and how long signed URLs live. */
  storageBackend: 'filesystem' | 's3';
  storageDir: string;
  /** Lifetime of a download URL of a sensitive asset (passport, signature, evidence), and of any other asset. */
  storageSensitiveUrlTtlSeconds: number;
  storageUrlTtlSeconds: number;
  storageUploadUrlTtlSeconds: number;
  /** Per-purpose size limits overriding the defaults, e.g. `{ passport: 5242880 }` (STORAGE_MAX_BYTES="passport=5MB,logo=2MB"). */
  storageMaxBytes: Record<string, number>;
  /** The S3-compatible backend. */
  s3Endpoint: string;
  s3Region: string;
  s3Bucket: string;
  s3AccessKeyId: string;
  s3SecretAccessKey: string;
  s3ForcePathStyle: boolean;
  /** Conversation notifications by email or SMS are off unless enabled here (in_app is always on). */
  conversationEmail: boolean;
  conversationSms: boolean;
  /** SCORM packages: the largest total of declared uncompressed sizes accepted (extracted under dataDir/lms/scorm). */
  lmsScormMaxUncompressedBytes: number;
  /** CAP_CENTRE_CERTIFY_BYPASS: a centre may certify applications without a certificate (QA shortcut; off by default). */
  centreCertifyBypass: boolean;
  /** CAP_WEB_URL: the CAP web app, where a payer returns from checkout (its application's page); empty: no way back unless the caller names one. */
  capWebUrl: string;
}

/** Raw settings from flags or a caller; anything missing comes from the environment, then defaults. */
export type ConfigInput = Partial<Record<keyof PlatformConfig, unknown>>;

/** A setting with a bad value. The message names the setting and the problem (capctl exits 2). */
export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(
    readonly setting: string,
    problem: string,
  ) {
    super(`invalid setting ${setting}: ${problem}`);
  }
}

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const devServiceKey = 'dev-service-key';
/** The development default of PAYMENT_SECRET_KEY (tests sign webhooks with it); production needs its own. */
export const devPaymentSecretKey = 'sk_test_sandbox_development_key';

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
  devModeOnNetwork: 'CAPCTL_DEV_MODE_ON_NETWORK',
  passwordHashCost: 'PASSWORD_HASH_COST',
  databaseUrl: 'DATABASE_URL',
  logLevel: 'LOG_LEVEL',
  bodyLimitBytes: 'BODY_LIMIT_BYTES',
  httpKeepAliveTimeoutSeconds: 'HTTP_KEEP_ALIVE_TIMEOUT_SECONDS',
  eventPollingSeconds: 'EVENT_POLLING_SECONDS',
  trustProxy: 'TRUST_PROXY',
  corsOrigins: 'CORS_ORIGINS',
  serviceApiKey: 'ORCHESTRATOR_SERVICE_API_KEY',
  olUrl: 'ORCHESTRATOR_URL',
  capUrl: 'CAP_URL',
  lmsUrl: 'LMS_URL',
  olGrpcAddress: 'ORCHESTRATOR_GRPC_ADDRESS',
  lmsGrpcAddress: 'LMS_GRPC_ADDRESS',
  jwtIssuer: 'JWT_ISSUER',
  jwtAudience: 'JWT_AUDIENCE',
  accessTokenTtlSeconds: 'ACCESS_TOKEN_TTL_SECONDS',
  refreshTokenTtlSeconds: 'REFRESH_TOKEN_TTL_SECONDS',
  otpTtlSeconds: 'OTP_TTL_SECONDS',
  otpMaxAttempts: 'OTP_MAX_ATTEMPTS',
  otpSendsPerHour: 'OTP_SENDS_PER_HOUR',
  mailUrl: 'MAIL_URL',
  mailFrom: 'MAIL_FROM',
  googleClientId: 'GOOGLE_CLIENT_ID',
  googleIssuer: 'GOOGLE_ISSUER',
  googleJwksUrl: 'GOOGLE_JWKS_URL',
  identityProvider: 'IDENTITY_PROVIDER',
  identityLatencyMs: 'IDENTITY_LATENCY_MS',
  identityHmacKey: 'IDENTITY_HMAC_KEY',
  paymentProvider: 'PAYMENT_PROVIDER',
  paymentSecretKey: 'PAYMENT_SECRET_KEY',
  paymentWebhookUrl: 'PAYMENT_WEBHOOK_URL',
  bankResolver: 'BANK_RESOLVER',
  storageBackend: 'STORAGE_BACKEND',
  storageDir: 'STORAGE_DIR',
  storageSensitiveUrlTtlSeconds: 'STORAGE_SENSITIVE_URL_TTL_SECONDS',
  storageUrlTtlSeconds: 'STORAGE_URL_TTL_SECONDS',
  storageUploadUrlTtlSeconds: 'STORAGE_UPLOAD_URL_TTL_SECONDS',
  storageMaxBytes: 'STORAGE_MAX_BYTES',
  s3Endpoint: 'S3_ENDPOINT',
  s3Region: 'S3_REGION',
  s3Bucket: 'S3_BUCKET',
  s3AccessKeyId: 'S3_ACCESS_KEY_ID',
  s3SecretAccessKey: 'S3_SECRET_ACCESS_KEY',
  s3ForcePathStyle: 'S3_FORCE_PATH_STYLE',
  conversationEmail: 'CONVERSATION_NOTIFY_EMAIL',
  conversationSms: 'CONVERSATION_NOTIFY_SMS',
  lmsScormMaxUncompressedBytes: 'LMS_SCORM_MAX_UNCOMPRESSED_BYTES',
  centreCertifyBypass: 'CAP_CENTRE_CERTIFY_BYPASS',
  capWebUrl: 'CAP_WEB_URL',
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
  if (!Number.isInteger(n) || n <= 0)
    throw new ConfigError(setting, `expected a positive integer, got "${String(value)}"`);
  return n;
}

function nonNegativeInt(setting: string, value: unknown): number {
  const n = typeof value === 'number' ? value : Number(String(value).trim());
  if (!Number.isInteger(n) || n < 0)
    throw new ConfigError(setting, `expected a whole number of 0 or more, got "${String(value)}"`);
  return n;
}

function httpUrl(setting: string, value: unknown): string {
  const s = String(value ?? '')
    .trim()
    .replace(/\/+$/, '');
  if (!s) return '';
  try {
    const url = new URL(s);
    if (url.protocol === 'http:' || url.protocol === 'https:') return s;
  } catch {
    // reported below
  }
  throw new ConfigError(setting, `expected an http(s) URL, got "${s}"`);
}

/** `CORS_ORIGINS`: a comma-separated list of origins (`https://app.example.org`, `http://localhost:3000`) or `*`. */
function origins(value: unknown): string[] {
  const list = (Array.isArray(value) ? value : String(value ?? '').split(','))
    .map((s) => String(s).trim())
    .filter(Boolean);
  for (const origin of list) {
    if (origin === '*') continue;
    let url: URL | undefined;
    try {
      url = new URL(origin);
    } catch {
      // reported below
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== origin) {
      throw new ConfigError(
        'corsOrigins',
        `"${origin}" is not an origin: expected scheme://host[:port] with nothing after it, e.g. https://app.example.org, or *`,
      );
    }
  }
  return list;
}

/**
 * `TRUST_PROXY`: false (the default), true, a hop count, or a comma-separated list of addresses, CIDR
 * ranges and `loopback`, `linklocal`, `uniquelocal`. The list is checked by the same compiler Express
 * uses (loaded only when a list is given), so what starts is what Express applies.
 */
function trustProxy(value: unknown): boolean | number | string[] {
  if (value === undefined || value === false || value === true) return value ?? false;
  const s = (Array.isArray(value) ? value.join(',') : String(value)).trim();
  if (/^(false|off|no|0)$/i.test(s)) return false;
  if (/^(true|on|yes)$/i.test(s)) return true;
  if (/^\d+$/.test(s)) return Number(s);
  const list = s
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const expected =
    'expected false, true, a hop count, or comma-separated addresses, CIDR ranges, loopback, linklocal, uniquelocal';
  if (!list.length) throw new ConfigError('trustProxy', `${expected}, got "${s}"`);
  try {
    createRequire(import.meta.url)('proxy-addr').compile(list);
  } catch (err) {
    throw new ConfigError('trustProxy', `${(err as Error).message} (${expected})`);
  }
  return list;
}

function mailUrl(value: unknown, devMode: boolean): string {
  const s = String(value ?? '').trim();
  if (!s) {
    if (!devMode)
      throw new ConfigError('mailUrl', 'MAIL_URL (smtp:// or smtps://) is required outside development mode');
    return '';
  }
  if (!/^smtps?:\/\//.test(s)) throw new ConfigError('mailUrl', 'expected an smtp:// or smtps:// URL');
  return s;
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
  if (devMode && production)
    throw new ConfigError('devMode', 'development mode is not allowed when NODE_ENV=production');

  const host = String(pick('host') ?? '127.0.0.1');
  const devModeOnNetwork = bool('devModeOnNetwork', pick('devModeOnNetwork') ?? false);
  if (devMode && !devModeOnNetwork && !isLoopback(host)) {
    throw new ConfigError(
      'host',
      `development mode opens the dev mailbox, provider states and a known service key, so it listens on loopback only, not on ${host}: ` +
        'set NODE_ENV=production for a deployment, or --dev-mode-on-network (CAPCTL_DEV_MODE_ON_NETWORK=true) to open them on purpose',
    );
  }

  const passwordHashCost = oneOf('passwordHashCost', pick('passwordHashCost') ?? (devMode ? 'minimum' : 'production'), [
    ...passwordHashCosts,
  ]) as PasswordHashCost;
  if (production && passwordHashCost !== 'production') {
    throw new ConfigError('passwordHashCost', 'only production is allowed when NODE_ENV=production');
  }

  const eventPollingSeconds = Number(pick('eventPollingSeconds') ?? 5);
  if (!(eventPollingSeconds >= 0.5))
    throw new ConfigError('eventPollingSeconds', 'expected a number of seconds, 0.5 or more');

  const dataDir = path.resolve(String(pick('dataDir') ?? '.capctl'));
  const logLevel = String(pick('logLevel') ?? 'info');
  if (!logLevels.includes(logLevel)) throw new ConfigError('logLevel', `expected one of ${logLevels.join(', ')}`);

  const serviceApiKey = String(pick('serviceApiKey') ?? (devMode ? devServiceKey : ''));
  if (!serviceApiKey)
    throw new ConfigError('serviceApiKey', 'ORCHESTRATOR_SERVICE_API_KEY is required outside development mode');
  if (!devMode && serviceApiKey.length < 16)
    throw new ConfigError('serviceApiKey', 'must be at least 16 characters in production');

  return {
    host,
    port: port('port', pick('port') ?? 4000),
    servicePorts: bool('servicePorts', pick('servicePorts') ?? true),
    olPort: port('olPort', pick('olPort') ?? 4300),
    capPort: port('capPort', pick('capPort') ?? 4100),
    lmsPort: port('lmsPort', pick('lmsPort') ?? 4200),
    grpcPort: port('grpcPort', pick('grpcPort') ?? 4400),
    lmsGrpcPort: port('lmsGrpcPort', pick('lmsGrpcPort') ?? 4401),
    only: services(pick('only') ?? serviceNames),
    dataDir,
    databaseUrl: databaseUrl(pick('databaseUrl')),
    devMode,
    devModeOnNetwork,
    passwordHashCost,
    logLevel,
    eventPollingSeconds,
    bodyLimitBytes: positiveInt('bodyLimitBytes', pick('bodyLimitBytes') ?? 1024 * 1024),
    httpKeepAliveTimeoutSeconds: positiveInt('httpKeepAliveTimeoutSeconds', pick('httpKeepAliveTimeoutSeconds') ?? 65),
    trustProxy: trustProxy(pick('trustProxy')),
    corsOrigins: origins(pick('corsOrigins')),
    serviceApiKey,
    olUrl: httpUrl('olUrl', pick('olUrl')),
    capUrl: httpUrl('capUrl', pick('capUrl')),
    lmsUrl: httpUrl('lmsUrl', pick('lmsUrl')),
    olGrpcAddress: String(pick('olGrpcAddress') ?? ''),
    lmsGrpcAddress: String(pick('lmsGrpcAddress') ?? ''),
    jwtIssuer: String(pick('jwtIssuer') ?? 'cap-platform-ol'),
    jwtAudience: String(pick('jwtAudience') ?? 'cap-platform'),
    accessTokenTtlSeconds: positiveInt('accessTokenTtlSeconds', pick('accessTokenTtlSeconds') ?? 900),
    refreshTokenTtlSeconds: positiveInt('refreshTokenTtlSeconds', pick('refreshTokenTtlSeconds') ?? 30 * 24 * 3600),
    otpTtlSeconds: positiveInt('otpTtlSeconds', pick('otpTtlSeconds') ?? 600),
    otpMaxAttempts: positiveInt('otpMaxAttempts', pick('otpMaxAttempts') ?? 3),
    otpSendsPerHour: positiveInt('otpSendsPerHour', pick('otpSendsPerHour') ?? 5),
    mailUrl: mailUrl(pick('mailUrl'), devMode),
    mailFrom: String(pick('mailFrom') ?? 'CAP Platform <no-reply@cap-platform.invalid>'),
    googleClientId: required(
      'googleClientId',
      pick('googleClientId') ?? (devMode ? 'capctl-sandbox-client' : undefined),
    ),
    googleIssuer: String(pick('googleIssuer') ?? (devMode ? 'capctl-sandbox-google' : 'https://accounts.google.com')),
    googleJwksUrl: httpUrl(
      'googleJwksUrl',
      pick('googleJwksUrl') ?? (devMode ? '' : 'https://www.googleapis.com/oauth2/v3/certs'),
    ),
    identityProvider: oneOf('identityProvider', pick('identityProvider') ?? 'sandbox', ['sandbox']),
    identityLatencyMs: nonNegativeInt('identityLatencyMs', pick('identityLatencyMs') ?? 0),
    identityHmacKey: required(
      'identityHmacKey',
      pick('identityHmacKey') ?? (devMode ? 'dev-identity-hmac-key' : undefined),
    ),
    paymentProvider: oneOf('paymentProvider', pick('paymentProvider') ?? 'sandbox', ['sandbox']),
    paymentSecretKey: secretKey(
      'paymentSecretKey',
      pick('paymentSecretKey') ?? (devMode ? devPaymentSecretKey : undefined),
      devMode,
    ),
    paymentWebhookUrl: httpUrl('paymentWebhookUrl', pick('paymentWebhookUrl')),
    bankResolver: oneOf('bankResolver', pick('bankResolver') ?? 'sandbox', ['sandbox']),
    ...storage(pick, dataDir),
    conversationEmail: bool('conversationEmail', pick('conversationEmail') ?? false),
    conversationSms: bool('conversationSms', pick('conversationSms') ?? false),
    lmsScormMaxUncompressedBytes: positiveInt(
      'lmsScormMaxUncompressedBytes',
      pick('lmsScormMaxUncompressedBytes') ?? 512 * 1024 * 1024,
    ),
    centreCertifyBypass: bool('centreCertifyBypass', pick('centreCertifyBypass') ?? false),
    capWebUrl: httpUrl('capWebUrl', pick('capWebUrl')),
  };
}

function storage(pick: (key: keyof PlatformConfig) => unknown, dataDir: string) {
  const storageBackend = oneOf('storageBackend', pick('storageBackend') ?? 'filesystem', ['filesystem', 's3']) as
    'filesystem' | 's3';
  const s3Bucket = String(pick('s3Bucket') ?? '');
  if (storageBackend === 's3' && !s3Bucket)
    throw new ConfigError('s3Bucket', 'S3_BUCKET is required when STORAGE_BACKEND=s3');
  return {
    storageBackend,
    storageDir: path.resolve(String(pick('storageDir') ?? path.join(dataDir, 'storage'))),
    storageSensitiveUrlTtlSeconds: positiveInt(
      'storageSensitiveUrlTtlSeconds',
      pick('storageSensitiveUrlTtlSeconds') ?? 300,
    ),
    storageUrlTtlSeconds: positiveInt('storageUrlTtlSeconds', pick('storageUrlTtlSeconds') ?? 7 * 24 * 3600),
    storageUploadUrlTtlSeconds: positiveInt('storageUploadUrlTtlSeconds', pick('storageUploadUrlTtlSeconds') ?? 900),
    storageMaxBytes: byteLimits(pick('storageMaxBytes')),
    s3Endpoint: httpUrl('s3Endpoint', pick('s3Endpoint')),
    s3Region: String(pick('s3Region') ?? 'us-east-1'),
    s3Bucket,
    s3AccessKeyId: String(pick('s3AccessKeyId') ?? ''),
    s3SecretAccessKey: String(pick('s3SecretAccessKey') ?? ''),
    s3ForcePathStyle: bool('s3ForcePathStyle', pick('s3ForcePathStyle') ?? true),
  };
}

/** `passport=5MB,logo=512KB,evidence=26214400` (or an object of byte counts) -> bytes by purpose. */
function byteLimits(value: unknown): Record<string, number> {
  if (value === undefined) return {};
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, positiveInt(`storageMaxBytes.${k}`, v)]));
  }
  const limits: Record<string, number> = {};
  for (const entry of String(value)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const match = /^([a-z_]+)=(\d+)\s*(KB|MB)?$/i.exec(entry);
    if (!match)
      throw new ConfigError('storageMaxBytes', `expected purpose=size entries like passport=5MB, got "${entry}"`);
    const unit = { KB: 1024, MB: 1024 * 1024 }[(match[3] ?? '').toUpperCase() as 'KB' | 'MB'] ?? 1;
    limits[match[1]!] = positiveInt(`storageMaxBytes.${match[1]}`, Number(match[2]) * unit);
  }
  return limits;
}

/** An address only this machine reaches: 127.0.0.0/8, ::1, localhost. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

function required(setting: string, value: unknown): string {
  const s = String(value ?? '').trim();
  if (!s) throw new ConfigError(setting, 'is required outside development mode');
  return s;
}

function secretKey(setting: string, value: unknown, devMode: boolean): string {
  const s = required(setting, value);
  if (!devMode && s.length < 16) throw new ConfigError(setting, 'must be at least 16 characters in production');
  return s;
}

function oneOf(setting: string, value: unknown, allowed: string[]): string {
  const s = String(value);
  if (!allowed.includes(s)) throw new ConfigError(setting, `expected one of ${allowed.join(', ')}, got "${s}"`);
  return s;
}

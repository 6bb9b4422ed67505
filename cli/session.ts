/** capctl's side of signing in: saved profiles, calls to the platform, and the errors they end in. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Agent } from 'undici';
import { defaultBaseUrl } from './options.ts';
import { exitCodes, UnreachableError, UsageError } from './output.ts';
import type { HttpResponse } from './scenarios/http.ts';

/** A signed-in session, saved per profile name. */
export interface Profile {
  baseUrl: string;
  email: string;
  userId: string;
  accessToken: string;
  refreshToken: string;
}

/** `$CAPCTL_CONFIG_DIR`, else `$XDG_CONFIG_HOME/capctl`, else `~/.config/capctl`. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CAPCTL_CONFIG_DIR) return path.resolve(env.CAPCTL_CONFIG_DIR);
  return path.join(env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'capctl');
}

const profileNamePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function profilePath(name: string): string {
  if (!profileNamePattern.test(name)) {
    throw new UsageError(`invalid profile name "${name}": use letters, digits, dot, dash or underscore (up to 64)`);
  }
  return path.join(configDir(), 'profiles', `${name}.json`);
}

export function loadProfile(name: string): Profile | undefined {
  try {
    return JSON.parse(fs.readFileSync(profilePath(name), 'utf8')) as Profile;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Writes the profile readable by its owner only; a new file replaces the old in one step. */
export function saveProfile(name: string, profile: Profile): void {
  const file = profilePath(name);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(profile, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(temp, file);
}

export function removeProfile(name: string): void {
  fs.rmSync(profilePath(name), { force: true });
}

/** The profile of a command that needs a session, or a usage error saying how to get one. */
export function requireProfile(name: string): Profile {
  const profile = loadProfile(name);
  if (!profile)
    throw new UsageError(
      `not signed in (profile ${name}): run capctl login${name === 'default' ? '' : ` --profile ${name}`}`,
    );
  return profile;
}

/** `--base-url`, else CAPCTL_BASE_URL, else the profile's, else the local default. */
export function resolveBaseUrl(flag: string | undefined, profile?: Profile): string {
  const value = (flag ?? process.env.CAPCTL_BASE_URL ?? profile?.baseUrl ?? defaultBaseUrl).trim().replace(/\/+$/, '');
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new UsageError(`invalid base URL "${value}": expected http(s)://host:port`);
  }
  return value;
}

/** The platform answered with its error envelope. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: { field?: string; issue: string }[] = [],
  ) {
    super(message);
  }
}

/** The command could not do its job for a reason that is not the server's error (exit 1). */
export class CommandFailed extends Error {
  override name = 'CommandFailed';
}

export interface RequestOptions {
  /** JSON, or a RawBody sent as it is (a multipart upload). */
  body?: unknown;
  token?: string;
  /** Further request headers, e.g. CAP's X-CAP-PERSONA. */
  headers?: Record<string, string>;
}

/**
 * A body sent as given bytes with its own content type, instead of JSON (multipart.ts makes them; kept
 * here so that a command's start does not load node:crypto for it).
 */
export class RawBody {
  constructor(
    readonly contentType: string,
    readonly bytes: Buffer,
  ) {}
}

/** Calls to one platform; `close()` when done so the process can exit. */
export class Api {
  private dispatcher: Agent | undefined;

  constructor(readonly baseUrl: string) {}

  /** Sends a request; 2xx answers the raw response, anything else throws ApiError. */
  async send(method: string, urlPath: string, options: RequestOptions = {}): Promise<HttpResponse> {
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    const raw = options.body instanceof RawBody ? options.body : undefined;
    if (options.body !== undefined) headers['content-type'] = raw?.contentType ?? 'application/json';
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    // The HTTP client is loaded on the first call, so a command's --help does not pay for it.
    const { createDispatcher, send } = await import('./scenarios/http.ts');
    this.dispatcher ??= createDispatcher();
    const res = await send(
      { method, url: `${this.baseUrl}${urlPath}`, headers, body: raw ? undefined : options.body, raw: raw?.bytes },
      this.dispatcher,
    );
    if (res.status >= 200 && res.status <= 299) return res;
    const error = (
      res.body as { error?: { code?: string; message?: string; details?: ApiError['details'] } } | undefined
    )?.error;
    throw new ApiError(
      res.status,
      error?.code ?? `http.${res.status}`,
      error?.message ?? `${method} ${urlPath} answered ${res.status}`,
      error?.details,
    );
  }

  /** Sends a request and answers the envelope's `data`. */
  async call<T = any>(method: string, urlPath: string, options: RequestOptions = {}): Promise<T> {
    return ((await this.send(method, urlPath, options)).body as { data: T }).data;
  }

  async close(): Promise<void> {
    await this.dispatcher?.close();
  }
}

/** Opens the platform for one command's work and closes it afterwards, whatever happened. */
export async function withApi<T>(baseUrl: string, work: (api: Api) => Promise<T>): Promise<T> {
  const api = new Api(baseUrl);
  try {
    return await work(api);
  } finally {
    await api.close();
  }
}

/** The stored session could not be renewed: the person has to sign in again. */
export class SessionEnded extends Error {
  override name = 'SessionEnded';
}

/**
 * Calls on behalf of a profile's user. The access token is renewed through POST /auth/refresh when it
 * has expired or a call answers 401, and the new pair is saved to the profile at once: the old
 * refresh token is spent, so losing the new one would end the session.
 */
export class Session {
  constructor(
    readonly api: Api,
    readonly profileName: string,
    public profile: Profile,
  ) {}

  /** `body` is built per attempt, so a retry after a refresh sends the current tokens. */
  async call<T = any>(
    method: string,
    urlPath: string,
    body?: (profile: Profile) => unknown,
    headers?: Record<string, string>,
  ): Promise<T> {
    if (expiresWithin(this.profile.accessToken, 30)) await this.refresh();
    const attempt = () =>
      this.api.call<T>(method, urlPath, { body: body?.(this.profile), token: this.profile.accessToken, headers });
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 401) throw err;
      await this.refresh();
      return attempt();
    }
  }

  async refresh(): Promise<void> {
    let pair: { accessToken: string; refreshToken: string };
    try {
      pair = await this.api.call('POST', '/v1/ol/auth/refresh', { body: { refreshToken: this.profile.refreshToken } });
    } catch (err) {
      if (err instanceof ApiError && err.status < 500) {
        const again = this.profileName === 'default' ? 'capctl login' : `capctl login --profile ${this.profileName}`;
        throw new SessionEnded(
          `the session of profile ${this.profileName} has ended (${err.code}): sign in again with ${again}`,
        );
      }
      throw err;
    }
    this.profile = { ...this.profile, accessToken: pair.accessToken, refreshToken: pair.refreshToken };
    saveProfile(this.profileName, this.profile);
  }
}

/** True when a JWT's `exp` is less than `seconds` away (a token we cannot read is left to the server). */
export function expiresWithin(token: string, seconds: number): boolean {
  const exp = tokenClaims(token)?.exp;
  return typeof exp === 'number' && exp - seconds <= Date.now() / 1000;
}

/** The claims of a JWT, read without verifying it. */
function tokenClaims(token: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/**
 * Runs a command's work and turns its failures into capctl's exit codes: the server's error
 * (`code: message`) and anything else that stopped the command exit 1, an unreachable platform 3.
 * Usage errors go on to main, which prints them and exits 2.
 */
export async function runCommand(json: boolean, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (err) {
    if (err instanceof ApiError) {
      report(
        json,
        {
          status: err.status,
          code: err.code,
          message: err.message,
          ...(err.details.length ? { details: err.details } : {}),
        },
        () =>
          [
            `${err.code}: ${err.message}`,
            ...err.details.map((d) => `  ${d.field ? `${d.field}: ` : ''}${d.issue}`),
          ].join('\n'),
      );
      process.exitCode = exitCodes.failed;
    } else if (err instanceof UnreachableError) {
      report(json, { code: 'capctl.unreachable', message: err.message }, () => `capctl: ${err.message}`);
      process.exitCode = exitCodes.unreachable;
    } else if (err instanceof SessionEnded || err instanceof CommandFailed) {
      report(
        json,
        { code: err instanceof SessionEnded ? 'capctl.session_ended' : 'capctl.failed', message: err.message },
        () => `capctl: ${err.message}`,
      );
      process.exitCode = exitCodes.failed;
    } else {
      throw err;
    }
  }
}

/** Errors go to stdout as JSON with --json (scripts read one stream), else to stderr. */
function report(json: boolean, error: Record<string, unknown>, human: () => string): void {
  if (json) process.stdout.write(`${JSON.stringify({ error }, null, 2)}\n`);
  else process.stderr.write(`${human()}\n`);
}

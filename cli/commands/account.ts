import { Option, type Command } from 'commander';
import type { JSONWebKeySet } from 'jose';
import { passwordFromStdin, print, UsageError } from '../output.ts';
import {
  Api,
  ApiError,
  CommandFailed,
  expiresWithin,
  loadProfile,
  removeProfile,
  requireProfile,
  resolveBaseUrl,
  runCommand,
  saveProfile,
  Session,
  SessionEnded,
  withApi,
  type Profile,
} from '../session.ts';

interface CommonOptions {
  baseUrl?: string;
  profile: string;
  json?: boolean;
}

interface PasswordOptions {
  password?: string;
  passwordStdin?: boolean;
}

/** What verify-account and login answer. */
interface AuthResult {
  accessToken: string;
  refreshToken: string;
  user: {
    userId?: string;
    id?: string;
    email: string;
    status: string;
    intents: string[];
    mustChangePassword?: boolean;
  };
}

const baseUrlHelp = `platform URL (env CAPCTL_BASE_URL, else the profile's, else http://127.0.0.1:4000)`;

function common(command: Command, withProfile = true): Command {
  command.option('--base-url <url>', baseUrlHelp);
  if (withProfile) command.option('--profile <name>', 'session profile to use', 'default');
  return command.option('--json', 'print machine-readable JSON');
}

/** A value from its flag, else asked for on a terminal; with no terminal a missing value is a usage error. */
async function ask(value: string | undefined, flag: string, message: string, secret = false): Promise<string> {
  if (value) return value;
  if (!process.stdin.isTTY) throw new UsageError(`${flag} is required (stdin is not a terminal to ask on)`);
  try {
    // Loaded only when a prompt is due, which keeps every other capctl start quick.
    const { input, password } = await import('@inquirer/prompts');
    // Prompts go to stderr so stdout carries only the result.
    const context = { output: process.stderr };
    return secret ? await password({ message, mask: '*' }, context) : await input({ message, required: true }, context);
  } catch (err) {
    if ((err as Error).name === 'ExitPromptError') throw new UsageError('cancelled');
    throw err;
  }
}

function signIn(options: CommonOptions, baseUrl: string, result: AuthResult): Profile {
  const profile: Profile = {
    baseUrl,
    email: result.user.email,
    userId: result.user.userId ?? result.user.id ?? '',
    accessToken: result.accessToken,
    refreshToken: result.refreshToken,
  };
  saveProfile(options.profile, profile);
  return profile;
}

function signedInLine(profile: Profile, profileName: string): string {
  return `signed in as ${profile.email} (user ${profile.userId}) on ${profile.baseUrl}, profile ${profileName}`;
}

/**
 * The newest account verification code in the dev mailbox, or undefined when the mailbox is off.
 * Mail is delivered just after the request that sends it, so a script running register then verify
 * gets a few seconds for it to arrive.
 */
async function otpFromMailbox(api: Api, email: string): Promise<string | undefined> {
  for (let attempt = 0; attempt < 20; attempt++) {
    let mails: { template: string; otp?: string }[];
    try {
      mails = await api.call('GET', `/v1/ol/dev/mailbox?to=${encodeURIComponent(email)}`);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return undefined;
      throw err;
    }
    const otp = mails.find((mail) => mail.template === 'account_verify' && mail.otp)?.otp;
    if (otp) return otp;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new CommandFailed(`no verification code for ${email} in the dev mailbox: register first, or pass --otp`);
}

/** `capctl register|verify|login|logout|whoami|me`: an account and its signed-in session. */
export function registerAccount(program: Command): void {
  common(program.command('register'), false)
    .description('Create an account; a verification code is mailed to it')
    .option('--email <email>', 'the account email (asked for on a terminal when omitted)')
    .option('--password <password>', 'the password (asked for on a terminal when omitted)')
    .option('--password-stdin', 'read the password from the first line of stdin (kept off the command line)')
    .option(
      '--intent <intent>',
      'what the account is for (repeatable, default cap)',
      (v: string, all: string[] = []) => [...all, v],
    )
    .action((options: Omit<CommonOptions, 'profile'> & PasswordOptions & { email?: string; intent?: string[] }) =>
      runCommand(Boolean(options.json), async () => {
        const baseUrl = resolveBaseUrl(options.baseUrl);
        const email = await ask(options.email, '--email', 'Email');
        const secret = options.passwordStdin
          ? await passwordFromStdin('--password', options.password !== undefined)
          : await ask(options.password, '--password', 'Password', true);
        await withApi(baseUrl, async (api) => {
          const body = { email, password: secret, intents: options.intent ?? ['cap'] };
          const result = await api.call<{ userId: string; email: string; status: string }>(
            'POST',
            '/v1/ol/auth/register',
            { body },
          );
          print(
            result,
            Boolean(options.json),
            () =>
              `registered ${result.email} (user ${result.userId}, ${result.status}); the code is in the mail: capctl verify --email ${result.email}`,
          );
        });
      }),
    );

  common(program.command('verify'))
    .description(
      'Verify an account with its mailed code and sign in (without --otp, the code is read from the dev mailbox)',
    )
    .option('--email <email>', 'the account email (asked for on a terminal when omitted)')
    .option('--otp <code>', 'the verification code')
    .action((options: CommonOptions & { email?: string; otp?: string }) =>
      runCommand(Boolean(options.json), async () => {
        const baseUrl = resolveBaseUrl(options.baseUrl, loadProfile(options.profile));
        const email = await ask(options.email, '--email', 'Email');
        await withApi(baseUrl, async (api) => {
          let otp = options.otp ?? (await otpFromMailbox(api, email));
          if (!otp) {
            if (!process.stdin.isTTY)
              throw new UsageError(
                '--otp is required: the dev mailbox is off (the platform is not in development mode)',
              );
            otp = await ask(undefined, '--otp', 'Verification code');
          }
          const result = await api.call<AuthResult>('POST', '/v1/ol/auth/verify-account', {
            body: { email, otp, purpose: 'account_verify' },
          });
          const profile = signIn(options, baseUrl, result);
          print(
            { profile: options.profile, baseUrl, user: result.user },
            Boolean(options.json),
            () => `verified; ${signedInLine(profile, options.profile)}`,
          );
        });
      }),
    );

  common(program.command('login'))
    .description('Sign in and save the session in a profile')
    .option('--email <email>', 'the account email (asked for on a terminal when omitted)')
    .option('--password <password>', 'the password (asked for on a terminal when omitted)')
    .option('--password-stdin', 'read the password from the first line of stdin (kept off the command line)')
    .action((options: CommonOptions & PasswordOptions & { email?: string }) =>
      runCommand(Boolean(options.json), async () => {
        const baseUrl = resolveBaseUrl(options.baseUrl, loadProfile(options.profile));
        const email = await ask(options.email, '--email', 'Email');
        const secret = options.passwordStdin
          ? await passwordFromStdin('--password', options.password !== undefined)
          : await ask(options.password, '--password', 'Password', true);
        await withApi(baseUrl, async (api) => {
          const result = await api.call<AuthResult>('POST', '/v1/ol/auth/login', { body: { email, password: secret } });
          const profile = signIn(options, baseUrl, result);
          print({ profile: options.profile, baseUrl, user: result.user }, Boolean(options.json), () =>
            signedInLine(profile, options.profile),
          );
          if (result.user.mustChangePassword) {
            process.stderr.write(
              'warning: this account must change its password (PATCH /v1/ol/auth/change-password) before anything else\n',
            );
          }
        });
      }),
    );

  common(program.command('logout'))
    .description('End the session on the server and remove the profile')
    .action((options: CommonOptions) =>
      runCommand(Boolean(options.json), async () => {
        const stored = requireProfile(options.profile);
        await withApi(resolveBaseUrl(options.baseUrl, stored), async (api) => {
          let alreadyEnded = false;
          try {
            await new Session(api, options.profile, stored).call('POST', '/v1/ol/auth/logout', (p) => ({
              refreshToken: p.refreshToken,
            }));
          } catch (err) {
            // A session the server no longer knows is as good as signed out.
            if (!(err instanceof SessionEnded)) throw err;
            alreadyEnded = true;
          }
          removeProfile(options.profile);
          print(
            { profile: options.profile, email: stored.email, alreadyEnded },
            Boolean(options.json),
            () =>
              `signed out ${stored.email} (profile ${options.profile} removed${alreadyEnded ? '; the session had already ended' : ''})`,
          );
        });
      }),
    );

  common(program.command('whoami'))
    .description("Show the profile's user, checking the session against the Orchestrator's keys (renewed when expired)")
    .action((options: CommonOptions) =>
      runCommand(Boolean(options.json), async () => {
        const stored = requireProfile(options.profile);
        await withApi(resolveBaseUrl(options.baseUrl, stored), async (api) => {
          const session = new Session(api, options.profile, stored);
          const claims = await checkedClaims(session);
          const result = {
            profile: options.profile,
            baseUrl: api.baseUrl,
            userId: String(claims.sub),
            email: String(claims.email ?? session.profile.email),
            intents: (claims.intents as string[] | undefined) ?? [],
            accessTokenExpiresAt: new Date(Number(claims.exp) * 1000).toISOString(),
          };
          print(
            result,
            Boolean(options.json),
            () =>
              `${result.email} (user ${result.userId}, intents ${result.intents.join(', ') || 'none'}) on ${result.baseUrl}, profile ${result.profile}`,
          );
        });
      }),
    );

  common(program.command('me'))
    .description("GET /me of CAP or LMS as the profile's user")
    .addOption(new Option('--service <service>', 'which service').choices(['cap', 'lms']).makeOptionMandatory())
    .action((options: CommonOptions & { service: 'cap' | 'lms' }) =>
      runCommand(Boolean(options.json), async () => {
        const stored = requireProfile(options.profile);
        await withApi(resolveBaseUrl(options.baseUrl, stored), async (api) => {
          const me = await new Session(api, options.profile, stored).call('GET', `/v1/${options.service}/me`);
          print(me, Boolean(options.json), () => JSON.stringify(me, null, 2));
        });
      }),
    );
}

/**
 * The access token's claims, verified against the Orchestrator's JWKS. An expired token, or one the
 * published keys no longer accept (keys rotated, platform reset), is renewed first.
 */
async function checkedClaims(session: Session): Promise<Record<string, unknown>> {
  if (expiresWithin(session.profile.accessToken, 30)) await session.refresh();
  const { createLocalJWKSet, jwtVerify } = await import('jose');
  const keys = createLocalJWKSet((await session.api.send('GET', '/v1/ol/.well-known/jwks.json')).body as JSONWebKeySet);
  try {
    return (await jwtVerify(session.profile.accessToken, keys)).payload;
  } catch {
    await session.refresh();
    try {
      return (await jwtVerify(session.profile.accessToken, keys)).payload;
    } catch (err) {
      throw new CommandFailed(
        `the renewed access token does not verify against the published JWKS: ${(err as Error).message}`,
      );
    }
  }
}

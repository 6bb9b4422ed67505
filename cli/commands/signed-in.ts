import type { Command } from 'commander';
import { requireProfile, resolveBaseUrl, Session, withApi } from '../session.ts';

/** Options of a command that acts as a signed-in user (a profile saved by `capctl login`). */
export interface SignedInOptions {
  baseUrl?: string;
  profile: string;
  json?: boolean;
}

export function signedInOptions(command: Command): Command {
  return command
    .option('--base-url <url>', "platform URL (env CAPCTL_BASE_URL, else the profile's)")
    .option('--profile <name>', 'session profile to use', 'default')
    .option('--json', 'print machine-readable JSON');
}

/** Runs `work` with the profile's session; calls renew the access token as needed. */
export async function asProfileUser(
  options: SignedInOptions,
  work: (session: Session) => Promise<void>,
): Promise<void> {
  const stored = requireProfile(options.profile);
  await withApi(resolveBaseUrl(options.baseUrl, stored), (api) => work(new Session(api, options.profile, stored)));
}

import type { Command } from 'commander';
import { print } from '../output.ts';
import { resolveBaseUrl, runCommand, withApi } from '../session.ts';

interface GoogleTokenOptions {
  email: string;
  name?: string;
  baseUrl?: string;
  json?: boolean;
}

/** `capctl google-token --email X`: a Google-shaped ID token from the platform's sandbox issuer. */
export function registerGoogleToken(program: Command): void {
  program
    .command('google-token')
    .description("Mint a test Google sign-in ID token from the platform's sandbox issuer (development mode only)")
    .requiredOption('--email <email>', 'the Google account email')
    .option('--name <name>', 'the display name in the token')
    .option('--base-url <url>', 'platform URL (env CAPCTL_BASE_URL, default http://127.0.0.1:4000)')
    .option('--json', 'print machine-readable JSON')
    .addHelpText('after', '\nSend the token as idToken to POST /v1/ol/auth/google.')
    .action((options: GoogleTokenOptions) =>
      runCommand(Boolean(options.json), async () => {
        const body = { email: options.email, ...(options.name ? { name: options.name } : {}) };
        const { idToken } = await withApi(resolveBaseUrl(options.baseUrl), (api) =>
          api.call<{ idToken: string }>('POST', '/v1/ol/dev/google/id-token', { body }),
        );
        print({ idToken }, Boolean(options.json), () => idToken);
      }),
    );
}

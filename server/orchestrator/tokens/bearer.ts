import { unauthorized } from '../../platform/http/errors.ts';
import type { SecurityHandler } from '../../platform/http/operations.ts';
import type { AccessTokens } from './access.ts';

/**
 * The Orchestrator's `bearerAuth`: its own tokens, checked locally against its current keys (no JWKS
 * round trip), and refused once the account is no longer active (suspended or deleted).
 */
export function createOlBearerAuth(tokens: AccessTokens, isActiveUser: (userId: string) => Promise<boolean>): SecurityHandler {
  const refused = () => unauthorized('auth.unauthenticated', 'Sign in again: the access token is missing, expired or not valid.');
  return async (call) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(call.req.get('authorization') ?? '');
    if (!match) throw refused();
    const claims = await tokens.verify(match[1]!).catch(() => {
      throw refused();
    });
    if (!(await isActiveUser(claims.sub))) throw refused();
    call.principal = { kind: 'user', userId: claims.sub, email: claims.email, intents: claims.intents, claims: { ...claims } };
  };
}

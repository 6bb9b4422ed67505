import { bearerToken } from '../../platform/auth/token.ts';
import { passwordChangeRequired, unauthorized } from '../../platform/http/errors.ts';
import type { SecurityHandler } from '../../platform/http/operations.ts';
import type { AccessTokens } from './access.ts';

/** What an account with a generated password may do on the Orchestrator: change it, or sign out. */
const allowedBeforePasswordChange = new Set(['changePassword', 'logout']);

/**
 * The Orchestrator's `bearerAuth`: its own tokens, checked locally against its current keys (no JWKS
 * round trip), refused once the account is no longer active or the token's session has ended, and
 * confined to changing the password while the account still has a generated one.
 */
export function createOlBearerAuth(
  tokens: AccessTokens,
  sessionLive: (userId: string, sessionId: string) => Promise<boolean>,
): SecurityHandler {
  const refused = () =>
    unauthorized('auth.unauthenticated', 'Sign in again: the access token is missing, expired or not valid.');
  return async (call) => {
    const token = bearerToken(call.req.headers.authorization);
    if (!token) throw refused();
    const claims = await tokens.verify(token).catch(() => {
      throw refused();
    });
    if (!(await sessionLive(claims.sub, claims.sid))) throw refused();
    if (claims.pcr && !allowedBeforePasswordChange.has(call.operationId)) throw passwordChangeRequired();
    call.principal = {
      kind: 'user',
      userId: claims.sub,
      email: claims.email,
      intents: claims.intents,
      claims: { ...claims },
    };
  };
}

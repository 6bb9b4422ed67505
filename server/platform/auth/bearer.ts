import passport from 'passport';
import { ExtractJwt, Strategy as JwtStrategy, type StrategyOptionsWithoutRequest } from 'passport-jwt';
import jwksRsa from 'jwks-rsa';
import { unauthorized } from '../http/errors.ts';
import type { Principal, SecurityHandler } from '../http/operations.ts';

export interface BearerAuthOptions {
  /** Where the issuer publishes its keys; resolved on first use (the issuer may start after us). */
  jwksUrl: () => string;
  issuer: string;
  audience: string;
}

/** Claims of an access token issued by the Orchestrator. */
interface AccessClaims {
  sub: string;
  email?: string;
  intents?: string[];
  [claim: string]: unknown;
}

/**
 * The `bearerAuth` security scheme for a service that trusts the Orchestrator's tokens: checks the
 * RS256 signature against the published JWKS (keys cached, refetched for an unknown `kid`), the
 * issuer, audience and expiry, and sets `call.principal`. Anything wrong is 401 auth.unauthenticated.
 */
export function createBearerAuth(options: BearerAuthOptions): SecurityHandler {
  let strategyName: string | undefined;
  const strategy = () => {
    if (strategyName) return strategyName;
    const jwtOptions: StrategyOptionsWithoutRequest = {
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      secretOrKeyProvider: jwksRsa.passportJwtSecret({
        jwksUri: options.jwksUrl(),
        cache: true,
        cacheMaxAge: 10 * 60_000,
        rateLimit: true,
        jwksRequestsPerMinute: 30,
      }),
      issuer: options.issuer,
      audience: options.audience,
      algorithms: ['RS256'],
    };
    strategyName = `jwt-${options.audience}-${Math.random().toString(36).slice(2)}`;
    passport.use(strategyName, new JwtStrategy(jwtOptions, (claims: AccessClaims, done: (e: unknown, p?: Principal) => void) => {
      done(null, { kind: 'user', userId: claims.sub, email: claims.email, intents: claims.intents ?? [], claims });
    }));
    return strategyName;
  };

  return (call) =>
    new Promise<void>((resolve, reject) => {
      const authenticate = passport.authenticate(strategy(), { session: false }, (err: unknown, principal: Principal | false) => {
        if (err || !principal || !principal.userId) {
          reject(unauthorized('auth.unauthenticated', 'Sign in again: the access token is missing, expired or not valid.'));
          return;
        }
        call.principal = principal;
        resolve();
      });
      authenticate(call.req, {}, reject);
    });
}

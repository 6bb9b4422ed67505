import { SignJWT, errors, jwtVerify } from 'jose';
import type { PlatformConfig } from '../../platform/config.ts';
import { createVerifiedTokens } from '../../platform/auth/verified-tokens.ts';
import { newId } from '../../platform/ids.ts';
import { signingAlgorithm, type SigningKeys } from './keys.ts';

/** Who an access token speaks for. `sessionId` is the refresh-token family the token belongs to. */
export interface TokenSubject {
  userId: string;
  email: string;
  intents: string[];
  sessionId: string;
  /** The account still has a generated password: the token may only be used to change it (claim `pcr`). */
  passwordChangeRequired?: boolean;
}

export interface AccessClaims {
  sub: string;
  email: string;
  intents: string[];
  /** The session (refresh-token family): lets change-password keep the caller's own session. */
  sid: string;
  /** Present (true) while the password mailed to the account has not been changed. */
  pcr?: true;
  iss: string;
  aud: string | string[];
  iat: number;
  exp: number;
  jti: string;
}

export interface AccessTokens {
  issue(subject: TokenSubject): Promise<string>;
  /** The claims of a valid token; throws for anything else (signature, issuer, audience, expiry, shape). */
  verify(token: string): Promise<AccessClaims>;
}

/** RS256 access tokens signed with the active key and checked locally against the published ones. */
export function createAccessTokens(keys: SigningKeys, config: PlatformConfig): AccessTokens {
  const verifyOptions = { issuer: config.jwtIssuer, audience: config.jwtAudience, algorithms: [signingAlgorithm] };
  // A token's signature is checked once (it was a fifth of a list page's CPU); its session is still
  // checked on every call (the bearer scheme), and a key no longer published stops its tokens.
  const verified = createVerifiedTokens<AccessClaims>();
  return {
    async issue(subject) {
      const { signing } = await keys.current();
      return new SignJWT({
        email: subject.email,
        intents: subject.intents,
        sid: subject.sessionId,
        ...(subject.passwordChangeRequired ? { pcr: true } : {}),
      })
        .setProtectedHeader({ alg: signingAlgorithm, kid: signing.kid, typ: 'JWT' })
        .setSubject(subject.userId)
        .setIssuer(config.jwtIssuer)
        .setAudience(config.jwtAudience)
        .setIssuedAt()
        .setExpirationTime(`${config.accessTokenTtlSeconds}s`)
        .setJti(newId())
        .sign(signing.privateKey);
    },
    async verify(token) {
      const ring = await keys.current();
      const known = verified.get(token, (kid) => ring.kids.has(kid));
      if (known) return known;
      let result;
      try {
        result = await jwtVerify(token, ring.keyFor, verifyOptions);
      } catch (err) {
        if (!(err instanceof errors.JWKSNoMatchingKey)) throw err;
        // Signed with a key this process has not read yet (rotated by another process).
        result = await jwtVerify(token, (await keys.reload()).keyFor, verifyOptions);
      }
      const claims = result.payload;
      if (
        typeof claims.sub !== 'string' ||
        typeof claims.email !== 'string' ||
        typeof claims.sid !== 'string' ||
        !Array.isArray(claims.intents)
      ) {
        throw new Error('access token lacks sub, email, sid or intents');
      }
      Object.freeze(claims.intents);
      verified.set(token, Object.freeze(claims as unknown as AccessClaims), claims.exp);
      return claims as unknown as AccessClaims;
    },
  };
}

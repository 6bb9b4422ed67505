import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import type { PlatformConfig } from '../../platform/config.ts';
import type { ServiceDeps } from '../../platform/service.ts';

/** What was wrong with an ID token; `keys_unavailable` is the key server's fault, not the caller's. */
export type GoogleTokenProblem =
  'malformed' | 'signature' | 'issuer' | 'audience' | 'expired' | 'claims' | 'keys_unavailable';

export class GoogleTokenError extends Error {
  override name = 'GoogleTokenError';
  constructor(
    readonly reason: GoogleTokenProblem,
    message: string,
  ) {
    super(message);
  }
}

/** The person a verified Google ID token speaks for. */
export interface GoogleIdentity {
  sub: string;
  email: string;
  emailVerified: boolean;
  name?: string;
}

export type GoogleVerifier = (idToken: string) => Promise<GoogleIdentity>;

// Google signs with either spelling of its issuer.
const googleIssuers = ['https://accounts.google.com', 'accounts.google.com'];

/**
 * Verifies Google sign-in ID tokens: RS256 signature against the JWKS (fetched on first use and
 * cached, refetched for an unknown `kid`), issuer, audience (our OAuth client id) and expiry.
 * Throws GoogleTokenError saying which check failed.
 */
export function createGoogleVerifier(
  config: Pick<PlatformConfig, 'googleIssuer' | 'googleClientId'>,
  jwksUrl: () => string,
): GoogleVerifier {
  const issuers = googleIssuers.includes(config.googleIssuer) ? googleIssuers : [config.googleIssuer];
  let keys: ReturnType<typeof createRemoteJWKSet> | undefined;
  return async (idToken) => {
    keys ??= createRemoteJWKSet(new URL(jwksUrl()));
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(idToken, keys, {
        issuer: issuers,
        audience: config.googleClientId,
        algorithms: ['RS256'],
      }));
    } catch (err) {
      throw toTokenError(err);
    }
    const { sub, email, email_verified: emailVerified, name } = payload;
    if (typeof sub !== 'string' || !sub || typeof email !== 'string' || !email) {
      throw new GoogleTokenError('claims', 'The ID token names no subject or email.');
    }
    return {
      sub,
      email,
      // Older Google tokens carry the flag as a string.
      emailVerified: emailVerified === true || emailVerified === 'true',
      ...(typeof name === 'string' && name ? { name } : {}),
    };
  };
}

/** Where Google's keys are: GOOGLE_JWKS_URL, or in development mode this Orchestrator's sandbox issuer. */
export function googleJwksUrl(deps: Pick<ServiceDeps, 'config' | 'peers'>): () => string {
  return () => {
    if (deps.config.googleJwksUrl) return deps.config.googleJwksUrl;
    if (deps.config.devMode) return `${deps.peers.url('ol')}/dev/google/jwks.json`;
    throw new Error('GOOGLE_JWKS_URL is not set');
  };
}

function toTokenError(err: unknown): unknown {
  if (err instanceof errors.JWTExpired) return new GoogleTokenError('expired', 'The ID token has expired.');
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'iss') return new GoogleTokenError('issuer', 'The ID token was not issued by Google.');
    if (err.claim === 'aud') return new GoogleTokenError('audience', 'The ID token was issued to another client.');
    return new GoogleTokenError('claims', `The ID token's ${err.claim} claim is not valid.`);
  }
  if (
    err instanceof errors.JWSSignatureVerificationFailed ||
    err instanceof errors.JWKSNoMatchingKey ||
    err instanceof errors.JWKSMultipleMatchingKeys
  ) {
    return new GoogleTokenError('signature', 'The ID token is not signed by a Google key.');
  }
  if (
    err instanceof errors.JWKSTimeout ||
    err instanceof errors.JWKSInvalid ||
    (err instanceof errors.JOSEError && err.code === 'ERR_JOSE_GENERIC')
  ) {
    return new GoogleTokenError('keys_unavailable', "Google's signing keys could not be fetched.");
  }
  if (err instanceof errors.JOSEError)
    return new GoogleTokenError('malformed', 'The ID token is not a valid signed JWT.');
  // fetch() rejects with a TypeError when the key server cannot be reached.
  if (err instanceof TypeError && err.cause)
    return new GoogleTokenError('keys_unavailable', "Google's signing keys could not be fetched.");
  return err;
}

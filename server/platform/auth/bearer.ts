import { createPublicKey, type KeyObject } from 'node:crypto';
import passport from 'passport';
import { ExtractJwt, Strategy as JwtStrategy, type StrategyOptionsWithRequest } from 'passport-jwt';
import { JwksClient } from 'jwks-rsa';
import { passwordChangeRequired, unauthorized } from '../http/errors.ts';
import { bearerToken } from './token.ts';
import { createVerifiedTokens, headerKid } from './verified-tokens.ts';
import type { Principal, SecurityHandler } from '../http/operations.ts';

export interface BearerAuthOptions {
  /** Where the issuer publishes its keys; resolved on first use (the issuer may start after us). */
  jwksUrl: () => string;
  issuer: string;
  audience: string;
  /** The published keys are read again this often (default 60 s), so a rotation reaches us by itself. */
  refreshSeconds?: number;
  /**
   * A token naming a key we do not hold may make us read the keys again, but not more often than
   * this (default 10 s), whoever sends such tokens and however many.
   */
  unknownKidCooldownSeconds?: number;
  /**
   * The operations a token may call while its account still has a generated password (claim `pcr`);
   * every other one is 403 auth.password_change_required.
   */
  allowedBeforePasswordChange: string[];
}

/** Claims of an access token issued by the Orchestrator. */
interface AccessClaims {
  sub: string;
  email?: string;
  intents?: string[];
  [claim: string]: unknown;
}

/**
 * The issuer's public keys by `kid`, as KeyObjects made once per key (not once per request). The set
 * is read on first use, then on a schedule; an unknown `kid` is refused from the set we hold, and at
 * most triggers one early read per cooldown, so made-up `kid`s cannot spend our reads or keep
 * genuine tokens out.
 */
interface KeyRing {
  key(kid: string | undefined): Promise<KeyObject | undefined>;
  /** Whether the key is still in the set we hold (no read). */
  holds(kid: string): boolean;
}

function createKeyRing(options: BearerAuthOptions): KeyRing {
  const refreshMs = (options.refreshSeconds ?? 60) * 1000;
  const cooldownMs = (options.unknownKidCooldownSeconds ?? 10) * 1000;
  let client: JwksClient | undefined;
  let keys = new Map<string, KeyObject>();
  let readAt = -Infinity;
  let reading: Promise<void> | undefined;

  const read = () =>
    (reading ??= (async () => {
      client ??= new JwksClient({ jwksUri: options.jwksUrl(), cache: false, timeout: 5000 });
      readAt = Date.now();
      try {
        const signing = await client.getSigningKeys();
        keys = new Map(signing.filter((k) => k.kid).map((k) => [k.kid, createPublicKey(k.getPublicKey())]));
      } catch {
        // Keep the keys we hold; the next scheduled or cooled-down read tries again.
      }
    })().finally(() => (reading = undefined)));

  return {
    async key(kid) {
      if (!kid) return undefined;
      if (reading && !keys.has(kid)) await reading;
      const age = Date.now() - readAt;
      // Holding no keys at all (the issuer was not up yet), we may ask again after a second.
      if (!keys.has(kid) && age >= (keys.size ? cooldownMs : 1000)) await read();
      else if (age >= refreshMs) void read(); // in the background: the keys we hold still answer
      return keys.get(kid);
    },
    holds: (kid) => keys.has(kid),
  };
}

/**
 * The `bearerAuth` security scheme for a service that trusts the Orchestrator's tokens: checks the
 * RS256 signature against the key ring, the issuer, audience and expiry, and sets `call.principal`.
 * Anything wrong is 401 auth.unauthenticated.
 */
export function createBearerAuth(options: BearerAuthOptions): SecurityHandler {
  const keys = createKeyRing(options);
  const allowed = new Set(options.allowedBeforePasswordChange);
  const strategyName = `jwt-${options.audience}-${Math.random().toString(36).slice(2)}`;
  const jwtOptions: StrategyOptionsWithRequest = {
    jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
    secretOrKeyProvider: (_req, rawJwt, done) => {
      keys
        .key(headerKid(rawJwt))
        .then((key) => (key ? done(null, key as unknown as string) : done(new Error('unknown signing key'))), done);
    },
    issuer: options.issuer,
    audience: options.audience,
    algorithms: ['RS256'],
    passReqToCallback: true,
  };
  passport.use(
    strategyName,
    new JwtStrategy(jwtOptions, (_req: unknown, claims: AccessClaims, done: (e: unknown, p?: Principal) => void) => {
      done(null, { kind: 'user', userId: claims.sub, email: claims.email, intents: claims.intents ?? [], claims });
    }),
  );

  const verifiedTokens = createVerifiedTokens<Principal>();
  const admit = (call: Parameters<SecurityHandler>[0], principal: Principal) => {
    if (principal.claims?.pcr && !allowed.has(call.operationId)) throw passwordChangeRequired();
    call.principal = principal;
  };

  // A token verified before is admitted without waiting for anything (no turn of the microtask queue).
  return (call) => {
    const token = bearerToken(call.req.headers.authorization);
    const known = token ? verifiedTokens.get(token, keys.holds) : undefined;
    return known ? admit(call, known) : verify(call, token);
  };

  async function verify(call: Parameters<SecurityHandler>[0], token: string | undefined): Promise<void> {
    const principal = await new Promise<Principal>((resolve, reject) => {
      const authenticate = passport.authenticate(
        strategyName,
        { session: false },
        (err: unknown, verified: Principal | false) => {
          if (err || !verified || !verified.userId) {
            reject(
              unauthorized('auth.unauthenticated', 'Sign in again: the access token is missing, expired or not valid.'),
            );
            return;
          }
          resolve(verified);
        },
      );
      authenticate(call.req, {}, reject);
    });
    if (token) verifiedTokens.set(token, principal, principal.claims?.exp);
    admit(call, principal);
  }
}

import { createHash } from 'node:crypto';
import { exportJWK, exportPKCS8, generateKeyPair, importPKCS8, SignJWT, type CryptoKey } from 'jose';
import { notFound } from '../../platform/http/errors.ts';
import { newId } from '../../platform/ids.ts';
import type { ServiceDeps } from '../../platform/service.ts';
import { defineGoogleModels } from './models.ts';

export interface MintRequest {
  email: string;
  name?: string;
  emailVerified?: boolean;
  /** Lifetime from now; negative mints a token that has already expired. */
  expiresInSeconds?: number;
  /** Defaults to our own Google client id. */
  audience?: string;
}

export type GoogleSandbox = ReturnType<typeof createGoogleSandbox>;

/**
 * A stand-in for Google's sign-in issuer, for development and tests (404 outside development mode):
 * it publishes a JWKS and mints ID tokens shaped like Google's, signed by a key kept in the database
 * so tokens stay valid across restarts.
 */
export function createGoogleSandbox(deps: ServiceDeps) {
  const { config } = deps;
  const { SandboxKey } = defineGoogleModels(deps.sequelize);
  let signingKey: Promise<{ kid: string; privateKey: CryptoKey }> | undefined;

  // Two processes starting together may both create a key: both are published, the oldest signs.
  async function loadSigningKey() {
    const oldest = () => SandboxKey.findOne({ order: [['id', 'ASC']] });
    let row = await oldest();
    if (!row) {
      const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
      const kid = newId();
      const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
      await SandboxKey.create({ id: kid, privateKeyPem: await exportPKCS8(privateKey), publicJwk });
      row = (await oldest())!;
    }
    return { kid: row.id, privateKey: await importPKCS8(row.privateKeyPem, 'RS256') };
  }

  function key() {
    signingKey ??= loadSigningKey().catch((err) => {
      signingKey = undefined;
      throw err;
    });
    return signingKey;
  }

  function requireDevMode() {
    if (!config.devMode) throw notFound('The Google sandbox issuer exists only in development mode.');
  }

  return {
    async jwks(): Promise<{ keys: Record<string, unknown>[] }> {
      requireDevMode();
      await key();
      const rows = await SandboxKey.findAll({ order: [['id', 'ASC']] });
      return { keys: rows.map((row) => row.publicJwk) };
    },

    async mintIdToken(request: MintRequest): Promise<string> {
      requireDevMode();
      const { kid, privateKey } = await key();
      const email = request.email.trim().toLowerCase();
      const audience = request.audience ?? config.googleClientId;
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({
        azp: audience,
        email,
        email_verified: request.emailVerified ?? true,
        ...(request.name ? { name: request.name } : {}),
      })
        .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
        .setIssuer(config.googleIssuer)
        .setAudience(audience)
        .setSubject(subjectFor(email))
        .setIssuedAt(now)
        .setExpirationTime(now + (request.expiresInSeconds ?? 3600))
        .sign(privateKey);
    },
  };
}

/** A Google-like subject (21 digits) that stays the same for an address across runs and databases. */
function subjectFor(email: string): string {
  const digest = BigInt(`0x${createHash('sha256').update(`capctl-sandbox-google:${email}`).digest('hex')}`);
  return `1${(digest % 10n ** 20n).toString().padStart(20, '0')}`;
}

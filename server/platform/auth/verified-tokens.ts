/**
 * Tokens already verified, by their exact text, until they expire: a client sends the same access
 * token on every call for its lifetime, and checking an RS256 signature is most of an authenticated
 * read's CPU. A hit still needs its signing key (`kid`) to be held (a key withdrawn from the published
 * set stops its tokens) and an unexpired `exp`; the oldest entries go first when the cache is full.
 */
export function createVerifiedTokens<T>(limit = 10_000) {
  const verified = new Map<string, { value: T; kid: string; expiresAt: number }>();
  return {
    get(token: string, holds: (kid: string) => boolean): T | undefined {
      const entry = verified.get(token);
      if (!entry) return undefined;
      if (entry.expiresAt > Date.now() && holds(entry.kid)) return entry.value;
      verified.delete(token);
      return undefined;
    },
    /** Keeps a verified token's value until `exp` (seconds since the epoch); without a `kid` or `exp`, nothing. */
    set(token: string, value: T, exp: unknown): void {
      const kid = headerKid(token);
      if (typeof exp !== 'number' || !kid) return;
      if (verified.size >= limit) verified.delete(verified.keys().next().value!);
      verified.set(token, { value, kid, expiresAt: exp * 1000 });
    },
  };
}

/** The `kid` of a compact JWS header, or undefined when there is none to read. */
export function headerKid(token: string): string | undefined {
  try {
    const header = JSON.parse(Buffer.from(token.slice(0, token.indexOf('.')), 'base64url').toString('utf8')) as {
      kid?: unknown;
    };
    return typeof header.kid === 'string' ? header.kid : undefined;
  } catch {
    return undefined;
  }
}

import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header the sandbox signs its webhooks in, as card processors do (lower case, as Node reads headers). */
export const signatureHeader = 'x-sandbox-signature';

/** HMAC-SHA512 of the exact body bytes with the secret key, in hex. */
export function sign(secretKey: string, body: string | Buffer): string {
  return createHmac('sha512', secretKey).update(body).digest('hex');
}

const hexSha512 = /^[0-9a-f]{128}$/i;

/**
 * Whether `given` is the signature of `rawBody`: recomputed over the raw bytes and compared in
 * constant time. A missing header, a missing body or a value of the wrong shape is simply false.
 */
export function signatureMatches(
  secretKey: string,
  given: string | string[] | undefined,
  rawBody: Buffer | undefined,
): boolean {
  if (typeof given !== 'string' || !hexSha512.test(given.trim()) || rawBody === undefined) return false;
  const expected = createHmac('sha512', secretKey).update(rawBody).digest();
  return timingSafeEqual(Buffer.from(given.trim(), 'hex'), expected);
}

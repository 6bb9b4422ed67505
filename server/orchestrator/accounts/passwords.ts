import crypto from 'node:crypto';
import type { Algorithm } from '@node-rs/argon2';
import { validationFailed } from '../../platform/http/errors.ts';

// Algorithm is a const enum the package does not export at run time; 2 is its Argon2id.
const argon2id = 2 as Algorithm.Argon2id;

/** The password rule, as the API document states it. */
export const passwordRule = '8 to 128 characters, with at least one letter and one digit';

/** Throws 422 validation.failed naming `field` when the password breaks the rule. */
export function checkPasswordRule(password: string, field: string): void {
  const length = [...password].length;
  if (length < 8 || length > 128 || !/\p{L}/u.test(password) || !/\p{Nd}/u.test(password)) {
    throw validationFailed([{ field, issue: `must be ${passwordRule}` }], `The password must be ${passwordRule}.`);
  }
}

// The native module is loaded on the first password operation, not at start-up.
const argon2 = () => import('@node-rs/argon2');

export async function hashPassword(password: string): Promise<string> {
  return (await argon2()).hash(password, { algorithm: argon2id });
}

let decoyHash: Promise<string> | undefined;

/**
 * Whether `password` matches `passwordHash`. Without a hash (unknown email, Google-only account) a
 * decoy hash is checked instead, so the answer takes as long either way.
 */
export async function passwordMatches(passwordHash: string | null, password: string): Promise<boolean> {
  const { verify } = await argon2();
  if (passwordHash) return verify(passwordHash, password);
  decoyHash ??= hashPassword(crypto.randomBytes(16).toString('base64url'));
  await verify(await decoyHash, password);
  return false;
}

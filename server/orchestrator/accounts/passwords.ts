import crypto from 'node:crypto';
import type { Algorithm } from '@node-rs/argon2';
import type { PasswordHashCost } from '../../platform/config.ts';
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

/**
 * Argon2id parameters by PASSWORD_HASH_COST. `production`: the library's defaults, the recommended
 * 19 MiB, 2 passes, 1 lane (about 20-70 ms a hash here). `minimum`: the least argon2 accepts (8 KiB,
 * 1 pass, 1 lane), still a real argon2id hash any argon2 library verifies, for development platforms
 * whose scenarios and tests would otherwise spend most of their time hashing.
 */
export const passwordHashParameters: Record<
  PasswordHashCost,
  { memoryCost: number; timeCost: number; parallelism: number }
> = {
  production: { memoryCost: 19456, timeCost: 2, parallelism: 1 },
  minimum: { memoryCost: 8, timeCost: 1, parallelism: 1 },
};

export type PasswordHasher = ReturnType<typeof createPasswordHasher>;

/** Hashing and checking of passwords at the server's cost. */
export function createPasswordHasher(cost: PasswordHashCost) {
  const parameters = passwordHashParameters[cost];
  const hash = async (password: string) => (await argon2()).hash(password, { algorithm: argon2id, ...parameters });
  let decoyHash: Promise<string> | undefined;

  return {
    hash,

    /**
     * Whether `password` matches `passwordHash`. Without a hash (unknown email, Google-only account) a
     * decoy hash, made at the server's cost, is checked instead, so the answer takes as long either way.
     */
    async matches(passwordHash: string | null, password: string): Promise<boolean> {
      const { verify } = await argon2();
      if (passwordHash) return verify(passwordHash, password);
      decoyHash ??= hash(crypto.randomBytes(16).toString('base64url'));
      await verify(await decoyHash, password);
      return false;
    },

    /** Whether a stored hash was made with less than the server's parameters (m, t or p of its PHC string), or not with argon2id. */
    async weakerThanServer(passwordHash: string): Promise<boolean> {
      const stored = (await argon2()).parseOptions(passwordHash);
      return (
        stored.algorithm !== argon2id ||
        stored.memoryCost < parameters.memoryCost ||
        stored.timeCost < parameters.timeCost ||
        stored.parallelism < parameters.parallelism
      );
    },
  };
}

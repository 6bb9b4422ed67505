import { randomInt } from 'node:crypto';
import { ulid } from 'ulid';

/** Value generators available as `${gen.<name>}`; each use yields a fresh value. */
export const generators: Record<string, () => string> = {
  email: () => `qa+${ulid().toLowerCase()}@example.test`,
  ulid: () => ulid(),
  /** A NIN that the sandbox identity provider verifies: `100` then 8 random digits. */
  nin: () => `100${String(randomInt(0, 100_000_000)).padStart(8, '0')}`,
};

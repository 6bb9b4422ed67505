import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

// ulid's default generator asks the system for one random byte per character; this one draws them
// from a pool refilled 4 KiB at a time (still crypto-grade), which matters at a ULID per request.
const pool = new Uint8Array(4096);
let taken = pool.length;
function randomFraction(): number {
  if (taken === pool.length) {
    randomFillSync(pool);
    taken = 0;
  }
  return pool[taken++]! / 0x100;
}

const next = monotonicFactory(randomFraction);

/** A new ULID: sortable by creation time, so `ORDER BY id` is creation order. */
export function newId(): string {
  return next();
}

const ulidPattern = /^[0-9A-HJKMNP-TV-Z]{26}$/;

export function isUlid(value: string): boolean {
  return ulidPattern.test(value);
}

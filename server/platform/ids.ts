import { monotonicFactory } from 'ulid';

const next = monotonicFactory();

/** A new ULID: sortable by creation time, so `ORDER BY id` is creation order. */
export function newId(): string {
  return next();
}

const ulidPattern = /^[0-9A-HJKMNP-TV-Z]{26}$/;

export function isUlid(value: string): boolean {
  return ulidPattern.test(value);
}

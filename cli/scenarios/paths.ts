/** Dotted paths such as `data.user.email`, `data[0].id` or `headers.x-request-id`. */

export type PathSegment = string | number;

const key = '[A-Za-z0-9_$-]+';
const wholePath = new RegExp(`^(?:${key}|\\[\\d+\\])(?:\\.${key}|\\[\\d+\\])*$`);
const segment = new RegExp(`(${key})|\\[(\\d+)\\]`, 'g');

/** Splits a dotted path into keys and array indexes; throws on a malformed path. */
export function parsePath(text: string): PathSegment[] {
  if (!wholePath.test(text)) throw new Error(`malformed path "${text}"`);
  return [...text.matchAll(segment)].map(([, name, index]) => name ?? Number(index));
}

/** Reads the value at a path; undefined when any part of it is missing. */
export function getPath(value: unknown, segments: readonly PathSegment[]): unknown {
  let current = value;
  for (const segment of segments) {
    if (current === null || typeof current !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(current, segment)) return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}

/** Writes a path for messages; keys that are not plain names are quoted (`body["data.id"]`). */
export function formatPath(segments: readonly PathSegment[]): string {
  return segments
    .map((s, i) => {
      if (typeof s === 'number') return `[${s}]`;
      if (!/^[A-Za-z0-9_$-]+$/.test(s)) return `[${JSON.stringify(s)}]`;
      return i === 0 ? s : `.${s}`;
    })
    .join('');
}

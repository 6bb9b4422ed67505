import { validationFailed } from './errors.ts';

export interface PageRequest {
  cursor?: string;
  limit: number;
}

export type PageMeta = {
  pagination: { nextCursor: string | null; hasMore: boolean; limit: number };
};

/**
 * Reads `cursor` and `limit` from a validated query (the document sets the limit's range and default).
 * The cursor is opaque to clients: the base64url of the last row's id.
 */
export function pageRequest(query: Record<string, unknown>): PageRequest {
  const limit = Number(query.limit ?? 20);
  const cursor = typeof query.cursor === 'string' && query.cursor !== '' ? decodeCursor(query.cursor) : undefined;
  return { cursor, limit };
}

export function encodeCursor(lastId: string): string {
  return Buffer.from(JSON.stringify({ after: lastId })).toString('base64url');
}

function decodeCursor(cursor: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { after?: unknown };
    if (typeof parsed.after === 'string' && parsed.after) return parsed.after;
  } catch {
    // fall through to the validation error
  }
  throw validationFailed([{ field: 'query.cursor', issue: 'is not a cursor this API issued' }]);
}

/** Builds the page's meta from `limit + 1` fetched rows; returns the rows to send. */
export function pageOf<T extends { id: string }>(rows: T[], limit: number): { items: T[]; meta: PageMeta } {
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  return {
    items,
    meta: { pagination: { nextCursor: hasMore ? encodeCursor(items[items.length - 1]!.id) : null, hasMore, limit } },
  };
}

import type { CentreContext } from '../context/service.ts';
import type { StaffService } from '../staff/service.ts';
import type { CentreRole } from '../vocabulary.ts';

export type DirectoryKind = 'staff' | 'candidate' | 'assessor';

export interface DirectoryQuery {
  q?: string;
  /** Each entry may itself be a comma-separated list. */
  kinds?: string[];
  cursor?: string;
  limit?: number;
}

const roleLabels: Record<CentreRole, string> = { super_admin: 'Super admin', regular_admin: 'Regular admin', staff: 'Staff' };

/**
 * The centre's people search. Only staff belong to a centre today (candidates and assessors come
 * with applications and rosters), so a search is one page of the centre's active staff by name.
 */
export function createDirectory(staff: StaffService) {
  return {
    async search(context: CentreContext, query: DirectoryQuery) {
      const kinds = new Set(query.kinds?.flatMap((k) => k.split(',')) ?? ['staff']);
      if (!kinds.has('staff')) {
        return { items: [], meta: { pagination: { nextCursor: null, hasMore: false, limit: query.limit ?? 20 } } };
      }
      const { items, meta } = await staff.rowsPage(context, { status: 'active', q: query.q, sort: 'name', cursor: query.cursor, limit: query.limit });
      return {
        items: items.map((row) => ({
          id: row.id,
          kind: 'staff' as const,
          displayName: row.name || row.email,
          subtitle: `${roleLabels[row.role]} · ${row.email}`,
          userId: row.userId,
        })),
        meta,
      };
    },
  };
}

export type Directory = ReturnType<typeof createDirectory>;

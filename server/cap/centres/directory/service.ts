import { QueryTypes, type Sequelize } from 'sequelize';
import { containing } from '../../../platform/db/like.ts';
import { encodeCursor, pageRequest } from '../../../platform/http/pagination.ts';
import { peopleSql, type CentreContext } from '../../people/index.ts';

export type DirectoryKind = 'staff' | 'candidate' | 'assessor';

export interface DirectoryQuery {
  q?: string;
  /** Each entry may itself be a comma-separated list. */
  kinds?: string[];
  cursor?: string;
  limit?: number;
}

const roleLabels: Record<string, string> = { super_admin: 'Super admin', regular_admin: 'Regular admin', staff: 'Staff' };
const kindLabels: Record<DirectoryKind, string> = { staff: 'Staff', candidate: 'Candidate', assessor: 'Assessor' };

/**
 * Who else belongs to a centre, as SQL of the centre id, from the modules that know: its candidates
 * (`user_id`) and the assessors it retains (`id`, `user_id`).
 */
export interface DirectorySql {
  candidates(centreId: string): string;
  assessors(centreId: string): string;
}

/**
 * The people of a centre, one row each: its active staff, its candidates (an application there past
 * its draft) and the assessors it retains (an approved retained request). One statement, as the search
 * sorts and pages across the three.
 */
function people(sql: DirectorySql) {
  const onboardingName = `nullif(trim(${peopleSql.onboardingName('o')}), '')`;
  return `
  SELECT s.id, 'staff' AS kind, coalesce(nullif(s.name, ''), s.email) AS "displayName", s.email, s.user_id AS "userId", s.role
    FROM cap.centre_staff s WHERE s.centre_id = $1 AND s.status = 'active'
  UNION ALL
  SELECT u.user_id, 'candidate', coalesce(${onboardingName}, u.email), u.email, u.user_id, NULL
    FROM (${sql.candidates('$1')}) c ${peopleSql.joins('c.user_id', 'candidate')}
  UNION ALL
  SELECT r.id, 'assessor', coalesce(${onboardingName}, u.email), u.email, r.user_id, NULL
    FROM (${sql.assessors('$1')}) r ${peopleSql.joins('r.user_id', 'assessor')}`;
}

/**
 * The centre's people search, sorted by name across the kinds. The cursor is the last hit's sort key
 * (name, kind, id), compared byte-wise so a page boundary never depends on the collation.
 */
export function createDirectory(sequelize: Sequelize, sql: DirectorySql) {
  const everyone = people(sql);
  return {
    async search(context: CentreContext, query: DirectoryQuery) {
      const page = pageRequest(query as Record<string, unknown>);
      const kinds = [...new Set(query.kinds?.flatMap((k) => k.split(',')) ?? ['staff', 'candidate', 'assessor'])];
      const rows = await sequelize.query<{ id: string; kind: DirectoryKind; displayName: string; email: string; userId: string; role: string | null; sortKey: string }>(
        `SELECT * FROM (SELECT people.*, lower(people."displayName") || E'\\x01' || people.kind || E'\\x01' || people.id AS "sortKey" FROM (${everyone}) people) hits
          WHERE kind = ANY($2)
            AND ($3::text IS NULL OR "displayName" ILIKE $3 OR email ILIKE $3)
            AND ($4::text IS NULL OR "sortKey" COLLATE "C" > $4)
          ORDER BY "sortKey" COLLATE "C"
          LIMIT $5`,
        { type: QueryTypes.SELECT, bind: [context.centreId, kinds, query.q ? containing(query.q) : null, page.cursor ?? null, page.limit + 1] },
      );
      const hasMore = rows.length > page.limit;
      const hits = rows.slice(0, page.limit);
      return {
        items: hits.map((row) => ({
          id: row.id,
          kind: row.kind,
          displayName: row.displayName,
          subtitle: `${row.role ? roleLabels[row.role] : kindLabels[row.kind]} · ${row.email}`,
          userId: row.userId,
        })),
        meta: { pagination: { nextCursor: hasMore ? encodeCursor(hits[hits.length - 1]!.sortKey) : null, hasMore, limit: page.limit } },
      };
    },
  };
}

export type Directory = ReturnType<typeof createDirectory>;

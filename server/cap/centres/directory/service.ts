import type { Sequelize } from 'sequelize';
import { Conditions, keysetRows } from '../../../platform/db/keyset.ts';
import { containing } from '../../../platform/db/like.ts';
import { preparedReads } from '../../../platform/db/prepared.ts';
import { pageRequest } from '../../../platform/http/pagination.ts';
import { peopleSql, type CentreContext } from '../../people/index.ts';

export type DirectoryKind = 'staff' | 'candidate' | 'assessor';

export interface DirectoryQuery {
  q?: string;
  /** Each entry may itself be a comma-separated list. */
  kinds?: string[];
  cursor?: string;
  limit?: number;
}

const roleLabels: Record<string, string> = {
  super_admin: 'Super admin',
  regular_admin: 'Regular admin',
  staff: 'Staff',
};
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
function people(sql: DirectorySql, centreId: string) {
  const onboardingName = `nullif(trim(${peopleSql.onboardingName('o')}), '')`;
  return `
  SELECT s.id, 'staff' AS kind, coalesce(nullif(s.name, ''), s.email) AS "displayName", s.email, s.user_id AS "userId", s.role
    FROM cap.centre_staff s WHERE s.centre_id = ${centreId} AND s.status = 'active'
  UNION ALL
  SELECT u.user_id, 'candidate', coalesce(${onboardingName}, u.email), u.email, u.user_id, NULL
    FROM (${sql.candidates(centreId)}) c ${peopleSql.joins('c.user_id', 'candidate')}
  UNION ALL
  SELECT r.id, 'assessor', coalesce(${onboardingName}, u.email), u.email, r.user_id, NULL
    FROM (${sql.assessors(centreId)}) r ${peopleSql.joins('r.user_id', 'assessor')}`;
}

/**
 * The centre's people search, sorted by name across the kinds: by (name, kind), compared byte-wise so
 * a page boundary never depends on the collation, then by id.
 */
export function createDirectory(sequelize: Sequelize, sql: DirectorySql) {
  const read = preparedReads(sequelize);
  return {
    async search(context: CentreContext, query: DirectoryQuery) {
      const kinds = [...new Set(query.kinds?.flatMap((k) => k.split(',')) ?? ['staff', 'candidate', 'assessor'])];
      // The centre is the statement's first value: the three parts of `people` name it.
      const where = new Conditions();
      const everyone = people(sql, where.bind(context.centreId));
      where.add('x.kind = ANY(?)', kinds);
      if (query.q) where.add('(x."displayName" ILIKE ? OR x.email ILIKE ?)', containing(query.q));
      const { items, meta } = await keysetRows<{
        id: string;
        kind: DirectoryKind;
        displayName: string;
        email: string;
        userId: string;
        role: string | null;
      }>(read, pageRequest(query as Record<string, unknown>), {
        select: 'x.id, x.kind, x."displayName", x.email, x."userId", x.role',
        from: `(SELECT people.*, lower(people."displayName") || E'\\x01' || people.kind AS "sortKey" FROM (${everyone}) people) x`,
        where,
        key: 'x."sortKey" COLLATE "C"',
        desc: false,
      });
      return {
        items: items.map((row) => ({
          id: row.id,
          kind: row.kind,
          displayName: row.displayName,
          subtitle: `${row.role ? roleLabels[row.role] : kindLabels[row.kind]} · ${row.email}`,
          userId: row.userId,
        })),
        meta,
      };
    },
  };
}

export type Directory = ReturnType<typeof createDirectory>;

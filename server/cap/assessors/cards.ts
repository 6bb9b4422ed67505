import type { Sequelize } from 'sequelize';
import { keysetRows, type KeysetQuery } from '../../platform/db/keyset.ts';
import { prepared, type PreparedRead } from '../../platform/db/prepared.ts';
import { pageRequest, type PageMeta } from '../../platform/http/pagination.ts';
import { valueAt, type JsonObject } from '../../platform/http/merge-patch.ts';
import type { AssetUrls } from '../../contracts/orchestrator-client.ts';
import { peopleSql } from '../people/index.ts';

/** The certificates an assessor onboarding can hold, with the qualification each shows. */
const certifications = [
  { key: 'qaa', qualification: 'QAA' },
  { key: 'iqm', qualification: 'IQM' },
] as const;

/**
 * The people module's joins that give an assessor profile `p` its user `u` and assessor onboarding `o`:
 * the lists of assessors are paged and filtered by name or email in one statement.
 */
export const assessorJoins = () => peopleSql.joins('p.user_id', 'assessor');

/** With `assessorJoins`: an assessor's display name from their onboarding. */
export const assessorNameSql = () => `trim(${peopleSql.onboardingName('o')})`;

export interface AssessorCard {
  id: string;
  name: string;
  email: string | null;
  qualifications: Array<(typeof certifications)[number]['qualification']>;
  sectors: Array<{ id: string; name: string }>;
  yearsOfExperience: null;
  certificates: Array<{ kind: (typeof certifications)[number]['key']; assetId: string; url: string }>;
}

/**
 * Who an assessor is, as centres see them (the `assessor` of RetainedAssessorRequest and
 * JobPostingApplication, the fields of CentreAssessorListItem): name and email, the qualifications their
 * certificates show, their sectors (named by the catalogue, `sectorsOf`), and the certificates with
 * resolved URLs. The onboarding holds no years of experience, so that is null.
 */
export function createAssessorCards(
  sequelize: Sequelize,
  assetUrls: AssetUrls,
  sectorsOf: (sectorIds: string[]) => Promise<Array<{ id: string; name: string }>>,
) {
  const statement = prepared(sequelize);
  return async (profileIds: string[]): Promise<Map<string, AssessorCard>> => {
    const ids = [...new Set(profileIds)];
    if (!ids.length) return new Map();
    const rows = await statement<{
      id: string;
      email: string;
      name: string;
      data: JsonObject | null;
      sectorIds: string[];
    }>(
      `SELECT p.id, u.email, ${assessorNameSql()} AS name, o.data,
              (SELECT coalesce(json_agg(a.sector_id), '[]') FROM cap.assessor_sectors a WHERE a.assessor_id = p.id) AS "sectorIds"
         FROM cap.assessor_profiles p ${assessorJoins()} WHERE p.id = ANY($1)`,
      [ids],
    );
    const assetIds = rows.flatMap((row) =>
      certifications.map(
        ({ key }) =>
          valueAt(row.data, `assessorDetails.certifications.${key}.certificateAssetId`) as string | undefined,
      ),
    );
    const [urlOf, sectors] = await Promise.all([assetUrls(assetIds), sectorsOf(rows.flatMap((row) => row.sectorIds))]);
    function card(row: (typeof rows)[number]): AssessorCard {
      const held = certifications
        .map(({ key, qualification }) => ({
          key,
          qualification,
          assetId: valueAt(row.data, `assessorDetails.certifications.${key}.certificateAssetId`),
        }))
        .filter((c): c is typeof c & { assetId: string } => typeof c.assetId === 'string' && c.assetId !== '');
      return {
        id: row.id,
        name: row.name,
        email: row.email || null,
        qualifications: held.map((c) => c.qualification),
        sectors: sectors.filter((sector) => row.sectorIds.includes(sector.id)).map(({ id, name }) => ({ id, name })),
        yearsOfExperience: null,
        // A certificate whose file no longer resolves keeps its asset id, with an empty url.
        certificates: held.map((c) => ({ kind: c.key, assetId: c.assetId, url: urlOf(c.assetId) ?? '' })),
      };
    }
    return new Map(rows.map((row) => [row.id, card(row)]));
  };
}

export type AssessorCards = ReturnType<typeof createAssessorCards>;

/** One keyset page of ids (see keysetRows): `from` names the paged table `x`. */
export async function idPage(
  read: PreparedRead,
  query: { cursor?: string; limit?: number },
  sql: Omit<KeysetQuery, 'select' | 'alias'>,
): Promise<{ ids: string[]; meta: PageMeta }> {
  const { items, meta } = await keysetRows<{ id: string }>(read, pageRequest(query), { ...sql, select: 'x.id' });
  return { ids: items.map((row) => row.id), meta };
}

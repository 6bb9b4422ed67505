import { QueryTypes, type Sequelize } from 'sequelize';
import { keysetRows, type KeysetQuery } from '../../platform/db/keyset.ts';
import type { PreparedRead } from '../../platform/db/prepared.ts';
import { pageRequest, type PageMeta } from '../../platform/http/pagination.ts';
import { valueAt, type JsonObject } from '../../platform/http/merge-patch.ts';
import type { AssetUrls } from '../../contracts/orchestrator-client.ts';

/** The certificates an assessor onboarding can hold, with the qualification each shows. */
const certifications = [
  { key: 'qaa', qualification: 'QAA' },
  { key: 'iqm', qualification: 'IQM' },
] as const;

/** SQL for an assessor profile's display name from their onboarding (`p` the profile, `o` the onboarding). */
export const assessorNameSql = `trim(concat_ws(' ', o.data #>> '{personalDetails,firstName}', o.data #>> '{personalDetails,lastName}'))`;

/** The joins that give an assessor profile `p` its user `u` and assessor onboarding `o`. */
export const assessorJoins = `JOIN cap.users u ON u.user_id = p.user_id
  LEFT JOIN cap.onboardings o ON o.user_id = p.user_id AND o.persona = 'assessor'`;

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
 * certificates show, their sectors, and the certificates with resolved URLs. The onboarding holds no
 * years of experience, so that is null.
 */
export function createAssessorCards(sequelize: Sequelize, assetUrls: AssetUrls) {
  return async (profileIds: string[]): Promise<Map<string, AssessorCard>> => {
    const ids = [...new Set(profileIds)];
    if (!ids.length) return new Map();
    const rows = await sequelize.query<{ id: string; email: string; name: string; data: JsonObject | null; sectors: Array<{ id: string; name: string }> }>(
      `SELECT p.id, u.email, ${assessorNameSql} AS name, o.data,
              (SELECT coalesce(json_agg(json_build_object('id', s.id, 'name', s.name) ORDER BY s.name), '[]')
                 FROM cap.assessor_sectors a JOIN cap.sectors s ON s.id = a.sector_id WHERE a.assessor_id = p.id) AS sectors
         FROM cap.assessor_profiles p ${assessorJoins} WHERE p.id = ANY($1)`,
      { type: QueryTypes.SELECT, bind: [ids] },
    );
    const assetIds = rows.flatMap((row) => certifications.map(({ key }) => valueAt(row.data, `assessorDetails.certifications.${key}.certificateAssetId`) as string | undefined));
    const urlOf = await assetUrls(assetIds);
    function card(row: (typeof rows)[number]): AssessorCard {
      const held = certifications
        .map(({ key, qualification }) => ({ key, qualification, assetId: valueAt(row.data, `assessorDetails.certifications.${key}.certificateAssetId`) }))
        .filter((c): c is typeof c & { assetId: string } => typeof c.assetId === 'string' && c.assetId !== '');
      return {
        id: row.id,
        name: row.name,
        email: row.email || null,
        qualifications: held.map((c) => c.qualification),
        sectors: row.sectors,
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

import type { Persona } from './vocabulary.ts';

/**
 * SQL of the people module's tables (users, onboardings) for a statement of another module that has to
 * stay one statement: a list paged and filtered by a person's name or email, or a row per move that
 * shows who made it. Where two statements do, the other modules call the face's functions instead.
 */
export const peopleSql = {
  /**
   * Joins the user as `u` and their onboarding of `persona` as `o` (nulls when they have none) to a row
   * whose user id is the SQL expression `userId`.
   */
  joins: (userId: string, persona: Persona) => `JOIN cap.users u ON u.user_id = ${userId}
  LEFT JOIN cap.onboardings o ON o.user_id = ${userId} AND o.persona = '${persona}'`,

  /** The name on an onboarding row `o` (first and last name, '' without either). */
  onboardingName: (o = 'o') =>
    `concat_ws(' ', ${o}.data #>> '{personalDetails,firstName}', ${o}.data #>> '{personalDetails,lastName}')`,

  /** The value at `path` (`'{personalDetails}'`) of the user `userId`'s onboarding of `persona` (jsonb), or null. */
  onboardingData: (userId: string, persona: Persona, path: string) =>
    `(SELECT o.data #> '${path}' FROM cap.onboardings o WHERE o.user_id = ${userId} AND o.persona = '${persona}')`,

  /**
   * The name the user `userId` gave on their candidate or assessor onboarding (the assessor one first
   * when the SQL condition `assessorFirst` holds), or null.
   */
  onboardedName: (userId: string, assessorFirst: string) =>
    `(SELECT NULLIF(${peopleSql.onboardingName('o')}, '') FROM cap.onboardings o
       WHERE o.user_id = ${userId} AND o.persona IN ('candidate', 'assessor') ORDER BY (o.persona = 'assessor') = (${assessorFirst}) DESC LIMIT 1)`,

  /** The passport photo (an asset id) of the user `userId`: from their most recently saved onboarding that has one, or null. */
  photoAssetId: (userId: string) =>
    `(SELECT o.data ->> 'passportAssetId' FROM cap.onboardings o
       WHERE o.user_id = ${userId} AND coalesce(o.data ->> 'passportAssetId', '') <> '' ORDER BY o.updated_at DESC LIMIT 1)`,
};

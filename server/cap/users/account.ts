import type { Sequelize } from 'sequelize';
import { preparedReads } from '../../platform/db/prepared.ts';
import type { CentreService } from '../centres/service.ts';
import type { CentreRole, CentreStaffStatus, OnboardingStatus, Persona } from '../vocabulary.ts';
import type { CapUserRecord } from './models.ts';

/** A persona's standing on GET /me: usable, or still to be onboarded. */
type HatStatus = 'operable' | 'onboarding_required';

interface MeRow {
  onboardings: Array<{ persona: Persona; status: OnboardingStatus }>;
  centres: Array<{ centreId: string; name: string; role: CentreRole; status: CentreStaffStatus }>;
  awardingBody: { awardingBodyId: string; name: string; role: 'admin' | 'staff'; status: 'pending' | 'active' } | null;
}

/** GET /me and GET /me/deletion-eligibility: what the caller is on CAP, from users, onboardings and centres. */
export function createAccountService(sequelize: Sequelize, centres: CentreService) {
  const read = preparedReads(sequelize);
  return {
    /** Read on every sign-in and page load of the web client: one prepared statement. */
    async me(user: CapUserRecord) {
      const [row] = await read<MeRow>(
        'cap.me',
        `SELECT
           (SELECT coalesce(json_agg(json_build_object('persona', o.persona, 'status', o.status)), '[]')
              FROM cap.onboardings o WHERE o.user_id = $1) AS onboardings,
           (SELECT coalesce(json_agg(json_build_object('centreId', s.centre_id, 'name', c.name, 'role', s.role, 'status', s.status)
                                     ORDER BY s.created_at, s.id), '[]')
              FROM cap.centre_staff s JOIN cap.centres c ON c.id = s.centre_id
             WHERE s.user_id = $1 AND s.status IN ('active', 'pending')) AS centres,
           (SELECT json_build_object('awardingBodyId', b.id, 'name', b.name, 'role', m.role, 'status', m.status)
              FROM cap.awarding_body_members m JOIN cap.awarding_bodies b ON b.id = m.awarding_body_id
             WHERE m.user_id = $1 ORDER BY m.created_at, m.id LIMIT 1) AS "awardingBody"`,
        [user.userId],
      );
      const hat = (persona: Persona): { status: HatStatus } | null => {
        const record = row!.onboardings.find((o) => o.persona === persona);
        return record ? { status: record.status === 'completed' ? 'operable' : 'onboarding_required' } : null;
      };
      return {
        userId: user.userId,
        email: user.email,
        identityVerified: user.identityVerified,
        candidate: hat('candidate'),
        // An active membership is operable; a pending one (staff not yet let in) still needs onboarding.
        centres: row!.centres.map((m) => ({
          centreId: m.centreId,
          name: m.name,
          role: m.role,
          status: (m.status === 'active' ? 'operable' : 'onboarding_required') as HatStatus,
        })),
        assessor: hat('assessor'),
        awardingBody: row!.awardingBody && {
          ...row!.awardingBody,
          status: (row!.awardingBody.status === 'active' ? 'operable' : 'onboarding_required') as HatStatus,
        },
      };
    },

    /** What stops the account from being deleted now. Later issues add in-flight applications. */
    async deletionEligibility(user: CapUserRecord) {
      const blockers = (await centres.soleSuperAdminOf(user.userId)).map((centre) => ({
        code: 'last_centre_super_admin',
        message: `You are the only super admin of ${centre.name}: make someone else a super admin first.`,
      }));
      return { canDelete: blockers.length === 0, blockers };
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;

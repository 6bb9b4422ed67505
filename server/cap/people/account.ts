import type { CapUserRecord, Standing } from './models.ts';
import type { Persona } from './vocabulary.ts';

/** A persona's standing on GET /me: usable, or still to be onboarded. */
type HatStatus = 'operable' | 'onboarding_required';

/**
 * GET /me and GET /me/deletion-eligibility: what the caller is on CAP. `soleSuperAdminOf` (the centres
 * module) names the centres the user alone runs: they keep the account from being deleted.
 */
export function createAccountService(soleSuperAdminOf: (userId: string) => Promise<Array<{ name: string }>>) {
  return {
    /** Read on every sign-in and page load of the web client: made from the standing read with the caller, no query of its own. */
    me(user: CapUserRecord, standing: Standing) {
      const hat = (persona: Persona): { status: HatStatus } | null => {
        const record = standing.onboardings.find((o) => o.persona === persona);
        return record ? { status: record.status === 'completed' ? 'operable' : 'onboarding_required' } : null;
      };
      return {
        userId: user.userId,
        email: user.email,
        identityVerified: user.identityVerified,
        candidate: hat('candidate'),
        // An active membership is operable; a pending one (staff not yet let in) still needs onboarding.
        centres: standing.centres.map((m) => ({
          centreId: m.centreId,
          name: m.name,
          role: m.role,
          status: (m.status === 'active' ? 'operable' : 'onboarding_required') as HatStatus,
        })),
        assessor: hat('assessor'),
        awardingBody: standing.awardingBody && {
          ...standing.awardingBody,
          status: (standing.awardingBody.status === 'active' ? 'operable' : 'onboarding_required') as HatStatus,
        },
      };
    },

    /** What stops the account from being deleted now. Later issues add in-flight applications. */
    async deletionEligibility(user: CapUserRecord) {
      const blockers = (await soleSuperAdminOf(user.userId)).map((centre) => ({
        code: 'last_centre_super_admin',
        message: `You are the only super admin of ${centre.name}: make someone else a super admin first.`,
      }));
      return { canDelete: blockers.length === 0, blockers };
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;

import type { Sequelize } from 'sequelize';
import { forbidden } from '../../../platform/http/errors.ts';
import type { Principal } from '../../../platform/http/operations.ts';
import type { Onboarding } from '../onboarding/service.ts';
import { capabilitiesOf, type LmsPersona } from '../onboarding/rules.ts';
import { defineStaffModels, type StaffRole } from '../staff/models.ts';
import type { LmsUser } from '../users/models.ts';
import type { Users } from '../users/service.ts';

/**
 * What each staff role allows beyond the instructor's capabilities (staff always have those, on every
 * course). A suspended staff member has none of them.
 */
export const staffRoleCapabilities: Record<StaffRole, readonly string[]> = {
  admin: [
    'staff.manage',
    'instructor.invite',
    'entitlement.grant',
    'learners.manage',
    'payments.read',
    'payments.refund',
    'analytics.read',
    'settings.read',
    'settings.write',
  ],
  content_manager: ['instructor.invite', 'learners.manage'],
  support: ['entitlement.grant', 'learners.manage', 'payments.read', 'settings.read'],
};

/** The caller as the LMS rules see it: completed personas, active staff role, capabilities. */
export interface Actor {
  user: LmsUser;
  /** Personas whose onboarding is completed. */
  personas: ReadonlySet<LmsPersona>;
  /** The staff role, when the staff onboarding is completed and the membership is active. */
  staffRole: StaffRole | null;
  capabilities: ReadonlySet<string>;
}

export type Access = ReturnType<typeof createAccess>;

export function createAccess(sequelize: Sequelize, users: Users, onboarding: Onboarding) {
  const { StaffMember } = defineStaffModels(sequelize);

  async function actorOf(user: LmsUser): Promise<Actor> {
    const [statuses, membership] = await Promise.all([
      onboarding.personaStatuses(user),
      StaffMember.findOne({ where: { lmsUserId: user.id } }),
    ]);
    const personas = new Set(statuses.filter((s) => s.onboardingStatus === 'completed').map((s) => s.persona));
    const staffRole = personas.has('staff') && membership?.status === 'active' ? membership.role : null;
    // A suspended learner (staff suspend learners in the LMS only) keeps the persona but may not enrol.
    const open = (p: LmsPersona) =>
      p === 'staff' ? Boolean(staffRole) : p === 'learner' ? user.learnerStatus !== 'suspended' : true;
    const capabilities = new Set([...personas].filter(open).flatMap((p) => capabilitiesOf[p]));
    if (staffRole) for (const capability of staffRoleCapabilities[staffRole]) capabilities.add(capability);
    return { user, personas, staffRole, capabilities };
  }

  /** The caller, provisioned on first use; a deactivated account may not act. */
  const actor = async (principal: Principal) => actorOf(await users.actingUser(principal));

  /** Authoring needs a completed instructor onboarding or active staff. */
  function requireAuthor(actor: Actor): void {
    if (!actor.personas.has('instructor') && !actor.staffRole) {
      throw forbidden('lms.onboarding.incomplete', 'Authoring needs a completed instructor or staff onboarding.');
    }
  }

  function requireCapability(actor: Actor, capability: string): void {
    if (!actor.capabilities.has(capability))
      throw forbidden('auth.out_of_scope', `This needs the ${capability} capability, which the caller does not have.`);
  }

  return { actor, actorOf, requireAuthor, requireCapability };
}

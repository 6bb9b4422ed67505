import type { Sequelize } from 'sequelize';
import type { CallerCache } from '../../../platform/db/caller-cache.ts';
import { forbidden } from '../../../platform/http/errors.ts';
import type { Principal } from '../../../platform/http/operations.ts';
import type { Onboarding } from '../onboarding/service.ts';
import { capabilitiesOf, type LmsPersona } from '../onboarding/rules.ts';
import { defineStaffModels, type StaffRole } from '../staff/models.ts';
import { attributesOf } from '../../../platform/db/keyset.ts';
import { preparedReads } from '../../../platform/db/prepared.ts';
import { defineUserModels, type LmsUserRecord } from '../users/models.ts';
import { mayAct, type Users } from '../users/service.ts';

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
  user: LmsUserRecord;
  /** Personas whose onboarding is completed. */
  personas: ReadonlySet<LmsPersona>;
  /** The staff role, when the staff onboarding is completed and the membership is active. */
  staffRole: StaffRole | null;
  capabilities: ReadonlySet<string>;
}

export type Access = ReturnType<typeof createAccess>;

/**
 * `callers` keeps actors between requests (dropped when the database says their rows changed, LMS
 * migration 0011).
 */
export function createAccess(sequelize: Sequelize, users: Users, onboarding: Onboarding, callers: CallerCache<Actor>) {
  const { StaffMember } = defineStaffModels(sequelize);

  const { LmsUser } = defineUserModels(sequelize);
  const read = preparedReads(sequelize);

  /** The actor from the user, the personas whose onboarding is completed (in the order started) and the staff membership. */
  function standingOf(
    user: LmsUserRecord,
    completed: readonly LmsPersona[],
    membership: { role: StaffRole; status: string } | null,
  ): Actor {
    const personas = new Set(completed);
    const staffRole = personas.has('staff') && membership?.status === 'active' ? membership.role : null;
    // A suspended learner (staff suspend learners in the LMS only) keeps the persona but may not enrol.
    const open = (p: LmsPersona) =>
      p === 'staff' ? Boolean(staffRole) : p === 'learner' ? user.learnerStatus !== 'suspended' : true;
    const capabilities = new Set([...personas].filter(open).flatMap((p) => capabilitiesOf[p]));
    if (staffRole) for (const capability of staffRoleCapabilities[staffRole]) capabilities.add(capability);
    return { user, personas, staffRole, capabilities };
  }

  async function actorOf(user: LmsUserRecord): Promise<Actor> {
    const [statuses, membership] = await Promise.all([
      onboarding.personaStatuses(user),
      StaffMember.findOne({ where: { lmsUserId: user.id } }),
    ]);
    const completed = statuses.filter((s) => s.onboardingStatus === 'completed').map((s) => s.persona);
    return standingOf(user, completed, membership);
  }

  // Every LMS request starts here: the caller, their completed personas and their staff membership in
  // one prepared statement (four model reads before), kept between requests in `callers`.
  const callerText = `SELECT ${attributesOf(LmsUser, 'u')},
      ARRAY(SELECT o.persona::text FROM lms.lms_onboardings o WHERE o.lms_user_id = u.id AND o.status = 'completed'
             ORDER BY o.created_at, o.id) AS "completedPersonas",
      (SELECT json_build_object('role', s.role, 'status', s.status) FROM lms.lms_staff_members s
        WHERE s.lms_user_id = u.id LIMIT 1) AS "membership"
    FROM lms.lms_users u WHERE u.user_id = $1`;

  async function readActor(userId: string): Promise<Actor | undefined> {
    type Row = LmsUserRecord & {
      completedPersonas: LmsPersona[];
      membership: { role: StaffRole; status: string } | null;
    };
    const [row] = await read<Row>('lms.access.caller', callerText, [userId]);
    if (!row) return undefined;
    const { completedPersonas, membership, ...user } = row;
    return standingOf(user, completedPersonas, membership);
  }

  /** The caller, provisioned on first use; a deactivated account may not act. */
  async function actor(principal: Principal): Promise<Actor> {
    const userId = principal.userId!;
    const found = await callers.read(userId, () => readActor(userId));
    if (!found) return actorOf(await users.actingUser(principal));
    mayAct(found.user);
    return found;
  }

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

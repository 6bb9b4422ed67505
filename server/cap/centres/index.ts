// The centres module's face: the only file other modules import from it. A centre and everything
// about running one: its staff, its profile, its directory of people, broadcasts, its notification
// policy, its dashboard, and the platform admins' side of centres (creating and moderating them).
// Tables: centres, centre_staff, centre_notification_policies.
import type { Sequelize } from 'sequelize';
import type { OrchestratorHttp } from '../../contracts/orchestrator-client.ts';
import type { ServiceEvents } from '../../platform/events/types.ts';
import type { CentreContext, People } from '../people/index.ts';
import { broadcastRoutes } from './broadcast/routes.ts';
import { createBroadcasts, type BroadcastAudiences } from './broadcast/service.ts';
import { directoryRoutes } from './directory/routes.ts';
import { createDirectory, type DirectorySql } from './directory/service.ts';
import { centreDashboardRoutes } from './figures/routes.ts';
import { createCentreDashboard, type FiguresOfCentre } from './figures/service.ts';
import { adminCentreRoutes } from './moderation/routes.ts';
import { createAdminCentres, type CentreDealings } from './moderation/service.ts';
import { notificationPolicyRoutes } from './notification-policy/routes.ts';
import { createNotificationPolicies, policyEvents } from './notification-policy/service.ts';
import { centreProfileRoutes } from './profile/routes.ts';
import { createCentreProfiles } from './profile/service.ts';
import { centreRoutes } from './routes.ts';
import { createCentreService } from './service.ts';
import { staffRoutes } from './staff/routes.ts';
import { createStaffService } from './staff/service.ts';

export type { BroadcastAudiences } from './broadcast/service.ts';
export type { DirectorySql } from './directory/service.ts';
export type { CentreMove, FiguresOfCentre } from './figures/service.ts';
export type { CentreDealings } from './moderation/service.ts';
export type { Centre } from './models.ts';
export { centresSql } from './sql.ts';
export { centreRoles, type CentreRole, type CentreStaffStatus, type CentreStatus } from './vocabulary.ts';

export interface CentresDeps {
  sequelize: Sequelize;
  events: ServiceEvents;
  files: Pick<OrchestratorHttp, 'assetUrls'>;
  /** The Orchestrator's conversation broadcast. */
  broadcast: OrchestratorHttp['broadcast'];
}

/** What the centres module needs of the other modules; what the modules above keep is read when a call needs it. */
export interface CentresNeeds {
  people: People;
  /** What the modules above keep of a centre, for its moderation (assessors, applications). */
  dealings: CentreDealings;
  /** Who a broadcast reaches besides the staff (applications, assessors). */
  audiences: BroadcastAudiences;
  /** The dashboard's figures the modules above keep (applications, assessors). */
  figures: FiguresOfCentre;
  /** Who else belongs to a centre, for the directory's one statement (applications, assessors). */
  directory: DirectorySql;
  /** What a staff member handles at the centre (applications). */
  workloadOf(centreId: string, userId: string): Promise<{ assigned: number; ongoing: number; completed: number }>;
}

/**
 * The centres module: its operations, the notification of a centre when an application is submitted to
 * it (its notification policy), and what the other modules use: a centre made by its owner's
 * onboarding, its staff as members, and its records.
 */
export function createCentres(deps: CentresDeps, needs: CentresNeeds) {
  const { sequelize, events, files } = deps;
  const { people } = needs;
  const { auth, contexts, roles } = people;
  const centres = createCentreService(sequelize, files.assetUrls);
  const staff = createStaffService(sequelize, centres, people.onboardings, people.provisionMember, needs.workloadOf);
  const notificationPolicies = createNotificationPolicies(sequelize, centres);
  const adminCentres = createAdminCentres(centres, staff, files.assetUrls, needs.dealings);

  // The centre's notification policy says who hears of a submitted and of a paid application.
  for (const type of policyEvents) {
    events.subscribe(type, 'cap.notify-centre', async (event, transaction) => {
      const data = event.data as { applicationId: string; centreId: string; type: string };
      await notificationPolicies.announce(type, data, transaction, (t, request) =>
        events.publish(t, 'notification.requested', request),
      );
    });
  }

  return {
    handlers: {
      ...centreRoutes(centres),
      ...staffRoutes(auth, contexts, staff),
      ...centreProfileRoutes(contexts, createCentreProfiles(sequelize, centres, people, files.assetUrls)),
      ...directoryRoutes(contexts, createDirectory(sequelize, needs.directory)),
      ...broadcastRoutes(auth, contexts, createBroadcasts(centres, deps.broadcast, needs.audiences)),
      ...notificationPolicyRoutes(auth, contexts, notificationPolicies),
      ...centreDashboardRoutes(contexts, createCentreDashboard(sequelize, centres.models, needs.figures)),
      ...adminCentreRoutes(auth, roles, adminCentres),
    },

    /** The centre a submitted centre onboarding describes, with its owner as super admin (the onboarding's transaction). */
    createForOwner: centres.createForOwner,
    /** A save of the owner's completed onboarding reaches the centre. */
    followOwnerDraft: centres.followOwnerDraft,
    soleSuperAdminOf: centres.soleSuperAdminOf,
    /** Centre staff memberships, as the people module's invitations and first calls handle them. */
    membershipKind: staff.membershipKind,
    approvedCount: centres.approvedCount,
    find: centres.find,
    findAll: centres.findAll,
    lockedAccount: centres.lockedAccount,
    /** A staff member of the acting centre (404, or 403 for another centre's). */
    staffMember: (context: CentreContext, id: string) => staff.member(context, id),
    /** A centre's approval as a platform admin's approve makes it (the provider states'). */
    approve: adminCentres.approve,
  };
}

export type Centres = ReturnType<typeof createCentres>;

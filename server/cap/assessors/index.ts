// The assessors module's face: the only file other modules import from it. Assessors: their profiles
// and sectors, their assignments to applications, the centres that retain them, job postings and the
// marketplace, their console, a centre's roster, and the platform admins' side of assessors.
// Tables: assessor_profiles, assessor_sectors, application_assessors, retained_requests, job_postings,
// job_posting_applications.
import type { Sequelize } from 'sequelize';
import type { OrchestratorHttp } from '../../contracts/orchestrator-client.ts';
import type { ServiceEvents } from '../../platform/events/types.ts';
import type { Catalogue } from '../catalogue/index.ts';
import type { Centres } from '../centres/index.ts';
import type { People } from '../people/index.ts';
import { createAssessorCards } from './cards.ts';
import { createAssessorConsole } from './console.ts';
import { createAdminAssessors } from './moderation.ts';
import type { ApplicationsOfAssessors } from './needs.ts';
import { createJobPostings } from './postings.ts';
import { createAssessorQueries } from './queries.ts';
import { createRetainedRequests } from './retained.ts';
import { createRoster } from './roster.ts';
import { adminAssessorRoutes, assessorMarketRoutes } from './routes.ts';
import { createAssessorSectors } from './sectors.ts';
import { createAssessorService } from './service.ts';

export type { AssignmentRole, Assignments } from './assignments.ts';
export type { AssessorCard, AssessorCards } from './cards.ts';
export type { ApplicationsOfAssessors } from './needs.ts';
export type { NewAssignment } from './queries.ts';
export { assessorsSql } from './sql.ts';

export interface AssessorsDeps {
  sequelize: Sequelize;
  files: Pick<OrchestratorHttp, 'assetUrls'>;
  /** An assessor assigned to an application is told (`notification.requested`, in the assignment's transaction). */
  events: Pick<ServiceEvents, 'publish'>;
}

/** What the assessors module needs of the other modules; the applications module, above it, is read when a call needs it. */
export interface AssessorsNeeds {
  people: People;
  catalogue: Catalogue;
  centres: Centres;
  applications: ApplicationsOfAssessors;
}

/**
 * The assessors module: the assessor market's operations and the admins' side of assessors, and what
 * the other modules use: a profile made by its owner's onboarding, who an assessor is (cards), their
 * assignments (read and written by the assign operations of the applications module) and what a
 * centre's pages show of the assessors it deals with.
 */
export function createAssessors(deps: AssessorsDeps, needs: AssessorsNeeds) {
  const { sequelize, files } = deps;
  const { people, catalogue, centres, applications } = needs;
  const assessors = createAssessorService(sequelize);
  const sectors = createAssessorSectors(assessors, catalogue.knownSectorIds);
  const cards = createAssessorCards(sequelize, files.assetUrls, catalogue.sectors);
  const admin = createAdminAssessors(assessors, people, centres, applications);
  const queries = createAssessorQueries(assessors, deps.events);
  const market = {
    retained: createRetainedRequests(sequelize, assessors, centres, cards),
    roster: createRoster(sequelize, cards, applications),
    postings: createJobPostings(sequelize, assessors, catalogue, centres, cards),
    console: createAssessorConsole({ sequelize, assessors, sectors, people, catalogue, centres, applications, cards }),
  };

  return {
    handlers: {
      ...assessorMarketRoutes(people.auth, people.contexts, market),
      ...adminAssessorRoutes(people.auth, people.roles, admin),
    },

    /** The profile a submitted assessor onboarding makes (the onboarding's transaction). */
    createForOwner: sectors.createForOwner,
    /** A save of the assessor's completed onboarding: the sectors follow it. */
    followDraft: sectors.followDraft,
    /** The caller's assessor profile. */
    profileOf: assessors.profileOf,
    assignments: assessors.assignments,
    cards,
    ...queries,
    /** An assessor's approval as a platform admin's approve makes it (the provider states'). */
    approve: admin.approve,
  };
}

export type Assessors = ReturnType<typeof createAssessors>;

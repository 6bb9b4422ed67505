import type { ServiceModule } from '../../platform/modules.ts';
import type { ServiceDeps } from '../../platform/service.ts';
import type { Catalogue } from '../catalogue/index.ts';
import type { Learning } from '../learning/index.ts';
import type { People } from '../people/index.ts';
import { learnerRoutes } from './learners/routes.ts';
import { createLearners } from './learners/service.ts';
import { instructorRoutes, staffRoutes } from './staff/routes.ts';
import { createStaff } from './staff/service.ts';

/** The back office: staff work (memberships, grants, enrollments, payments, dashboard, settings) and the learner directory with organisations and seats. */
export function createBackOffice(deps: ServiceDeps, people: People, catalogue: Catalogue, learning: Learning) {
  const { access, invites } = people;
  const staff = createStaff(deps.sequelize, learning.entitlements);
  const learners = createLearners(
    deps.sequelize,
    deps.events,
    people.users,
    people.onboarding,
    learning.entitlements,
    people.identity,
    learning.levelOfferings,
  );
  const module: ServiceModule = {
    handlers: {
      ...instructorRoutes(access, invites, catalogue.courseInstructors),
      ...staffRoutes(access, invites, staff, learning.checkouts),
      ...learnerRoutes(access, learners),
    },
  };
  return { module };
}

import path from 'node:path';
import type { Module } from '../../platform/modules.ts';
import type { ServiceDeps } from '../../platform/service.ts';
import type { StorageClient } from '../orchestrator.ts';
import type { People } from '../people/index.ts';
import { createCourseInstructors } from './courses/instructors.ts';
import { authoringRoutes, catalogueRoutes } from './courses/routes.ts';
import { createCourses } from './courses/service.ts';
import { recommendationsService } from './recommendations/grpc.ts';
import { createPackageStore } from './scorm/store.ts';

/** Catalogue and authoring: courses with their content and instructors, SCORM packages, recommendations (gRPC). */
export function createCatalogue(deps: ServiceDeps, people: People, storage: StorageClient) {
  const packages = createPackageStore({
    sequelize: deps.sequelize,
    storage,
    root: path.join(deps.config.dataDir, 'lms', 'scorm'),
    limits: { maxUncompressedBytes: deps.config.lmsScormMaxUncompressedBytes, maxEntries: 10_000 },
  });
  const courses = createCourses(deps.sequelize, packages.attach);
  const courseInstructors = createCourseInstructors(deps.sequelize, people.access, courses);
  const module: Module = { handlers: { ...catalogueRoutes(people.access, courses), ...authoringRoutes(people.access, courses) } };
  const recommendations = recommendationsService({ sequelize: deps.sequelize, courseUrl: (courseId) => `${deps.peers.url('lms')}/courses/${courseId}` });
  return { module, packages, courseInstructors, recommendations };
}

export type Catalogue = ReturnType<typeof createCatalogue>;

import path from 'node:path';
import type { ServiceModule } from '../../platform/modules.ts';
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
  const module: ServiceModule = {
    handlers: { ...catalogueRoutes(people.access, courses), ...authoringRoutes(people.access, courses) },
  };
  const recommendations = recommendationsService({
    sequelize: deps.sequelize,
    courseUrl: (courseId) => `${deps.peers.url('lms')}/courses/${courseId}`,
  });
  return { module, packages, courseInstructors, recommendations };
}

export type Catalogue = ReturnType<typeof createCatalogue>;

// What other modules use of this one's inner files.
export type { CourseInstructors } from './courses/instructors.ts';
export { defineCourseModels } from './courses/models.ts';
export { catalogueSql } from './sql.ts';
export type { Course, CourseItem, Quiz } from './courses/models.ts';
export { priceAsWritten } from './courses/service.ts';
export { samplePackage } from './scorm/sample.ts';
export type { PackageStore } from './scorm/store.ts';
export { zipFolder } from './scorm/package.ts';

import { projectPath } from '../../../platform/paths.ts';
import { zipFolder } from './package.ts';

/**
 * The platform's own SCORM 1.2 package (fixtures/scorm/workshop-safety: three pages and a scored
 * quiz), zipped from its source files when asked for, so the source stays readable and reviewable and
 * no built zip can drift from it. Tests, seeds and capctl use this.
 */
export const samplePackagePath = projectPath('fixtures', 'scorm', 'workshop-safety');

export const samplePackage = (): Promise<Buffer> => zipFolder(samplePackagePath);

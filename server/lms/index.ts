import type { Service, ServiceDeps } from '../platform/service.ts';

/** The LMS: courses, enrollments, the player and LMS certificates. */
export async function createLms(_deps: ServiceDeps): Promise<Service> {
  return { name: 'lms', handlers: {} };
}

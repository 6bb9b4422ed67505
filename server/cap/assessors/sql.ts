/**
 * SQL of the assessors module's tables (assessor_profiles, application_assessors, retained_requests) for
 * a statement of another module that has to stay one statement: the caller's standing (every call),
 * lists paged and filtered by who works on an application, a centre's directory searched across kinds.
 */
export const assessorsSql = {
  /** The caller's standing: their assessor profile's moderation status, or null without one. */
  standing: (userId: string) => `(SELECT p.status FROM cap.assessor_profiles p WHERE p.user_id = ${userId})`,

  /** The application `applicationId` has a current assignment of the assessor profile `assessorId` (SQL expressions). */
  assigned: (applicationId: string, assessorId: string) =>
    `EXISTS (SELECT 1 FROM cap.application_assessors x WHERE x.application_id = ${applicationId} AND x.assessor_id = ${assessorId} AND x.ended_at IS NULL)`,

  /** The application `applicationId` has a seated interview panel (a current voter). */
  panelSeated: (applicationId: string) =>
    `EXISTS (SELECT 1 FROM cap.application_assessors s WHERE s.application_id = ${applicationId} AND s.role = 'panel_voter' AND s.ended_at IS NULL)`,

  /** The assessors the centre `centreId` retains (an approved retained request): their profile `id` and `user_id`. */
  retainedBy: (centreId: string) =>
    `SELECT p.id, p.user_id FROM cap.assessor_profiles p WHERE p.id IN (SELECT assessor_id FROM cap.retained_requests WHERE centre_id = ${centreId} AND status = 'approved')`,
};

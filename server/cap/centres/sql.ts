/**
 * SQL of the centres module's tables (centres, centre_staff) for a statement of another module that has
 * to stay one statement: the caller's standing (every call), a list paged and filtered by its centre,
 * a timeline naming who made each move.
 */
export const centresSql = {
  /** The centre whose id is the SQL expression `centreId` is approved. */
  approved: (centreId: string) =>
    `EXISTS (SELECT 1 FROM cap.centres c WHERE c.id = ${centreId} AND c.status = 'approved')`,

  /** The name of the centre whose id is the SQL expression `centreId`, or null. */
  name: (centreId: string) => `(SELECT c.name FROM cap.centres c WHERE c.id = ${centreId})`,

  /** A LEFT JOIN of the centre whose id is the SQL expression `centreId`, as `alias` (`alias.name`: null without one). */
  joinCentre: (alias: string, centreId: string) => `LEFT JOIN cap.centres ${alias} ON ${alias}.id = ${centreId}`,

  /** The name the user `userId` has on the staff of the centre `centreId`, or null. */
  staffName: (userId: string, centreId: string) =>
    `(SELECT s.name FROM cap.centre_staff s WHERE s.user_id = ${userId} AND s.centre_id = ${centreId})`,

  /** The caller's standing: their active and pending staff memberships, oldest first, with their centre's name and status (a JSON array). */
  standing: (userId: string) =>
    `(SELECT coalesce(json_agg(json_build_object('centreId', s.centre_id, 'name', c.name, 'role', s.role, 'status', s.status, 'centreStatus', c.status)
                                        ORDER BY s.created_at, s.id), '[]')
                 FROM cap.centre_staff s JOIN cap.centres c ON c.id = s.centre_id
                WHERE s.user_id = ${userId} AND s.status IN ('active', 'pending'))`,
};

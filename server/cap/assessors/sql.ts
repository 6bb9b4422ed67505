import { jsonObject } from '../../platform/db/json-text.ts';
import { catalogueSql } from '../catalogue/index.ts';
import { assessorJoins, assessorNameSql } from './cards.ts';

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

  /**
   * The seats of the current panels of the applications whose ids the SQL array `applicationIds` holds, a
   * row per application with any: `application_id` and `members`, a JSON array of `{ assessorId, isLead,
   * isObserver, name, sectors }`: the voters (the lead first, then in the order assigned), then the
   * observers who do not vote; `name` and `sectors` as the assessor's card shows them. Each assessor's card
   * is read once, however many of the panels they sit on (a page of bookings read it once a seat).
   */
  panelsOf: (applicationIds: string) => `
    WITH seats AS (
      SELECT v.application_id, v.assessor_id, true AS voter, v.lead, v.assigned_at, v.id,
             EXISTS (SELECT 1 FROM cap.application_assessors o WHERE o.application_id = v.application_id
                        AND o.assessor_id = v.assessor_id AND o.role = 'iv_observer' AND o.ended_at IS NULL) AS observer
        FROM cap.application_assessors v WHERE v.application_id = ANY(${applicationIds}) AND v.role = 'panel_voter' AND v.ended_at IS NULL
      UNION ALL
      SELECT o.application_id, o.assessor_id, false, false, o.assigned_at, o.id, true
        FROM cap.application_assessors o WHERE o.application_id = ANY(${applicationIds}) AND o.role = 'iv_observer' AND o.ended_at IS NULL
         AND NOT EXISTS (SELECT 1 FROM cap.application_assessors v WHERE v.application_id = o.application_id
                            AND v.assessor_id = o.assessor_id AND v.role = 'panel_voter' AND v.ended_at IS NULL)),
    cards AS (
      SELECT p.id, ${assessorNameSql()} AS name,
             ${catalogueSql.sectorsNamed('SELECT a.sector_id FROM cap.assessor_sectors a WHERE a.assessor_id = p.id')} AS sectors
        FROM cap.assessor_profiles p ${assessorJoins()} WHERE p.id = ANY(ARRAY(SELECT DISTINCT assessor_id FROM seats)))
    SELECT s.application_id,
           array_to_json(array_agg(${jsonObject(`s.assessor_id AS "assessorId", s.lead AS "isLead", s.observer AS "isObserver",
             coalesce(card.name, '') AS name, coalesce(card.sectors, '[]'::json) AS sectors`)} ORDER BY s.voter DESC, s.lead DESC, s.assigned_at, s.id)) AS members
      FROM seats s LEFT JOIN cards card ON card.id = s.assessor_id GROUP BY s.application_id`,
};

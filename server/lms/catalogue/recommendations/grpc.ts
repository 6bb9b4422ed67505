import { QueryTypes, type Sequelize } from 'sequelize';
import { invalidArgument } from '../../../platform/grpc/errors.ts';
import { serviceDefinition, serviceNames } from '../../../platform/grpc/proto.ts';
import type { GrpcServiceEntry } from '../../../platform/grpc/server.ts';

// lms.v1.RecommendationsService (proto/lms/v1/recommendations.proto), served on the LMS's own gRPC
// port with the platform's service key: published courses that close the gaps of a CAP application.

interface RecommendCoursesRequest {
  application_id: string;
  trade_id: string;
  sector_id: string;
  gap_units: Array<{ unit_id: string; label: string }>;
  limit: number;
}

interface CourseRow {
  id: string;
  title: string;
  description: string;
  sector_id: string | null;
  trade_id: string | null;
  unit_id: string | null;
}

const defaultLimit = 10;
const maxLimit = 50;

/**
 * How well a course fits: a course for one of the missing units first, then a course of the trade,
 * then of the sector; a course matching none is not recommended. The explanation says which it was.
 */
export function fitOf(course: CourseRow, request: RecommendCoursesRequest): { score: number; explanation: string } {
  const unit = request.gap_units.find(
    (gap) =>
      (gap.unit_id && gap.unit_id === course.unit_id) ||
      (gap.label.trim() && course.title.toLowerCase().includes(gap.label.trim().toLowerCase())),
  );
  const trade = Boolean(request.trade_id) && course.trade_id === request.trade_id;
  const sector = Boolean(request.sector_id) && course.sector_id === request.sector_id;
  const score = (unit ? 4 : 0) + (trade ? 2 : 0) + (sector ? 1 : 0);
  const explanation = unit
    ? `Covers ${unit.label || unit.unit_id}, a unit your application has not shown yet.`
    : trade
      ? 'A course of your trade.'
      : 'A course of your sector.';
  return { score, explanation };
}

export function recommendationsService(deps: {
  sequelize: Sequelize;
  courseUrl: (courseId: string) => string;
}): GrpcServiceEntry {
  return {
    definition: serviceDefinition(serviceNames.recommendations),
    implementation: {
      async RecommendCourses(request: RecommendCoursesRequest) {
        const problems = [
          !request.trade_id.trim() &&
            !request.sector_id.trim() &&
            request.gap_units.length === 0 &&
            'trade_id, sector_id or gap_units is required',
          (request.limit < 0 || request.limit > maxLimit) && `limit must be from 0 to ${maxLimit}`,
          request.gap_units.length > 500 && 'gap_units must hold at most 500 units',
        ].filter(Boolean);
        if (problems.length) throw invalidArgument(problems.join('; '));
        const unitIds = request.gap_units.map((gap) => gap.unit_id).filter(Boolean);
        const labels = request.gap_units.map((gap) => gap.label.trim().toLowerCase()).filter(Boolean);
        const rows = await deps.sequelize.query<CourseRow>(
          `SELECT id, title, description, sector_id, trade_id, unit_id FROM lms.lms_courses
            WHERE status = 'published' AND (trade_id = $1 OR sector_id = $2 OR unit_id = ANY($3) OR EXISTS (SELECT 1 FROM unnest($4::text[]) AS l WHERE position(l IN lower(title)) > 0))`,
          { type: QueryTypes.SELECT, bind: [request.trade_id || null, request.sector_id || null, unitIds, labels] },
        );
        const ranked = rows
          .map((course) => ({ course, ...fitOf(course, request) }))
          .filter((entry) => entry.score > 0)
          .sort(
            (a, b) =>
              b.score - a.score ||
              a.course.title.localeCompare(b.course.title) ||
              a.course.id.localeCompare(b.course.id),
          )
          .slice(0, request.limit || defaultLimit);
        return {
          provider: 'lms-catalogue',
          courses: ranked.map(({ course, explanation }, i) => ({
            id: course.id,
            title: course.title,
            description: course.description,
            rank: i + 1,
            explanation,
            trade_id: course.trade_id ?? '',
            sector_id: course.sector_id ?? '',
            url: deps.courseUrl(course.id),
          })),
        };
      },
    },
  };
}

import { callUnary } from '../platform/grpc/client.ts';
import { serviceNames } from '../platform/grpc/proto.ts';

// CAP's client of lms.v1.RecommendationsService (proto/lms/v1/recommendations.proto), snake_case as
// the proto says; fields left out arrive as proto3 defaults.

export interface RecommendCoursesRequest {
  application_id: string;
  trade_id: string;
  sector_id: string;
  gap_units: Array<{ unit_id: string; label: string }>;
  limit: number;
}

export interface RecommendCoursesResponse {
  courses: Array<{
    id: string;
    title: string;
    description: string;
    rank: number;
    explanation: string;
    trade_id: string;
    sector_id: string;
    url: string;
  }>;
  provider: string;
}

/** `address` is read per call (in one process the LMS listener is known only once it is up); it may throw when there is none. */
export function createRecommendationsClient(address: () => string, serviceKey: string) {
  return {
    recommendCourses: (request: RecommendCoursesRequest) =>
      callUnary<RecommendCoursesResponse>(
        address(),
        serviceKey,
        `${serviceNames.recommendations}.RecommendCourses`,
        request,
        { deadlineMs: 5000 },
      ),
  };
}

export type RecommendationsClient = ReturnType<typeof createRecommendationsClient>;

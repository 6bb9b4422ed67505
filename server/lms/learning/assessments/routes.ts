import type { operations } from '../../../contracts/openapi/lms.ts';
import type { Call, Handlers } from '../../../platform/http/operations.ts';
import { created, ok } from '../../../platform/http/reply.ts';
import type { Users } from '../../people/index.ts';
import type { Assessments } from './service.ts';

export function assessmentRoutes(assessments: Assessments, users: Users): Handlers<operations> {
  const learnerId = async (call: Call) => (await users.actingUser(call.principal!)).id;
  return {
    getItemAssessment: async (call) =>
      ok(await assessments.paper(await learnerId(call), call.params.enrollmentId, call.params.itemId)),
    postItemAttempts: async (call) =>
      created(await assessments.start(await learnerId(call), call.params.enrollmentId, call.params.itemId)),
    getItemAttempt: async (call) =>
      ok(
        await assessments.attempt(
          await learnerId(call),
          call.params.enrollmentId,
          call.params.itemId,
          call.params.attemptId,
        ),
      ),
    postItemAttemptSubmit: async (call) =>
      ok(
        await assessments.submit(
          await learnerId(call),
          call.params.enrollmentId,
          call.params.itemId,
          call.params.attemptId,
          call.body.answers,
        ),
      ),
  };
}

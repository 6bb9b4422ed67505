import type { operations } from '../../../contracts/openapi/lms.ts';
import type { Call, Handlers } from '../../../platform/http/operations.ts';
import { pageRequest } from '../../../platform/http/pagination.ts';
import { created, ok } from '../../../platform/http/reply.ts';
import type { Access } from '../../people/index.ts';
import type { LevelOfferings } from './service.ts';

export function levelOfferingRoutes(access: Access, offerings: LevelOfferings): Handlers<operations> {
  const actor = (call: Call) => access.actor(call.principal!);
  const listed = (page: { data: unknown[]; meta: object }) => ok(page.data, { ...page.meta });
  return {
    getLevelOfferings: async (call) => {
      await actor(call);
      return listed(await offerings.catalogue(pageRequest(call.query), call.query.qualificationLevelId));
    },
    getLevelOffering: async (call) => ok(await offerings.published(await actor(call), call.params.offeringId)),
    getAuthoringLevelOfferings: async (call) =>
      listed(await offerings.authored(await actor(call), pageRequest(call.query), call.query)),
    postAuthoringLevelOfferings: async (call) => created(await offerings.create(await actor(call), call.body)),
    getAuthoringLevelOffering: async (call) =>
      ok(await offerings.authoredOne(await actor(call), call.params.offeringId)),
    patchAuthoringLevelOffering: async (call) =>
      ok(await offerings.update(await actor(call), call.params.offeringId, call.body)),
    postAuthoringLevelOfferingPublish: async (call) =>
      ok(await offerings.publish(await actor(call), call.params.offeringId)),
    postAuthoringLevelOfferingUnpublish: async (call) =>
      ok(await offerings.unpublish(await actor(call), call.params.offeringId)),
    postLevelOfferingEnrollments: async (call) =>
      created(await offerings.enroll(await actor(call), call.params.offeringId)),
    postLevelEnrollmentCheckout: async (call) =>
      ok(await offerings.checkout(await actor(call), call.params.levelEnrollmentId)),
    getLevelEnrollmentsMine: async (call) =>
      listed(await offerings.mine(await actor(call), pageRequest(call.query), call.query.status)),
  };
}

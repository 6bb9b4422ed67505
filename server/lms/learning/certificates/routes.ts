import type { operations } from '../../../contracts/openapi/lms.ts';
import type { Call, Handlers } from '../../../platform/http/operations.ts';
import { pageRequest } from '../../../platform/http/pagination.ts';
import { ok } from '../../../platform/http/reply.ts';
import type { Access } from '../../people/index.ts';
import type { Certificates } from './service.ts';

export function certificateRoutes(access: Access, certificates: Certificates): Handlers<operations> {
  const actor = (call: Call) => access.actor(call.principal!);
  return {
    getCertificatesMine: async (call) => {
      const page = await certificates.mine(await actor(call), pageRequest(call.query));
      return ok(page.data, { ...page.meta });
    },
    getCertificate: async (call) => ok(await certificates.get(await actor(call), call.params.certificateId)),
    getEnrollmentCertificate: async (call) =>
      ok(await certificates.forEnrollment(await actor(call), call.params.enrollmentId)),
  };
}

import type { operations } from '../../../contracts/openapi/cap.ts';
import type { Handlers } from '../../../platform/http/operations.ts';
import { created, ok } from '../../../platform/http/reply.ts';
import type { CapAuth, PlatformRoles } from '../../people/index.ts';
import type { PlatformConfigService } from './service.ts';

export function platformConfigRoutes(
  auth: CapAuth,
  roles: PlatformRoles,
  config: PlatformConfigService,
): Handlers<operations> {
  return {
    getPlatformConfig: roles.allowed(auth, 'platform.pricing.read', async () =>
      ok({ ...(await config.current()), terms: await config.latestPolicy('terms') }),
    ),
    updatePlatformConfig: roles.allowed(auth, 'platform.config.write', async (call) =>
      ok(await config.update(auth.caller(call).userId, call.body)),
    ),
    listPlatformConfigVersions: roles.allowed(auth, 'platform.pricing.read', async () => ok(await config.history())),
    listPolicyVersions: roles.allowed(auth, 'platform.policies.write', async (call) =>
      ok(await config.policyVersions(call.params.kind)),
    ),
    publishPolicyVersion: roles.allowed(auth, 'platform.policies.write', async (call) =>
      created(await config.publishPolicy(auth.caller(call).userId, call.params.kind, call.body)),
    ),
    getCurrentTerms: async () => ok(await config.currentPolicy('terms')),
  };
}

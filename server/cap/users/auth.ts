import type { Call, SecurityHandler } from '../../platform/http/operations.ts';
import type { CapUser } from './models.ts';
import type { UserService } from './service.ts';

/**
 * CAP's `bearerAuth` scheme: the Orchestrator's access token (checked by `bearer`), then the caller's
 * CapUser, provisioned on the first call if user.created has not arrived yet and refused (403) once
 * deactivated. Handlers of authenticated operations read that CapUser with `caller(call)`.
 */
export function createCapAuth(users: UserService, bearer: SecurityHandler) {
  const callers = new WeakMap<Call, CapUser>();
  return {
    scheme: (async (call) => {
      await bearer(call);
      callers.set(call, await users.admit(call.principal!));
    }) satisfies SecurityHandler,
    caller(call: Call): CapUser {
      const user = callers.get(call);
      if (!user) throw new Error(`${call.operationId} reads the caller but is not behind bearerAuth`);
      return user;
    },
  };
}

export type CapAuth = ReturnType<typeof createCapAuth>;

import type { Call, SecurityHandler } from '../../platform/http/operations.ts';
import type { CapUserRecord } from './models.ts';
import type { UserService } from './service.ts';

/**
 * CAP's `bearerAuth` scheme: the Orchestrator's access token (checked by `bearer`), then the caller's
 * CapUser, provisioned on the first call if user.created has not arrived yet and refused (403) once
 * deactivated. The user's first authenticated call also runs `firstCall` (it lets in the staff
 * memberships that were waiting for them) before the operation. Handlers of authenticated operations
 * read the CapUser with `caller(call)` and the access token with `token(call)`.
 */
export function createCapAuth(users: UserService, bearer: SecurityHandler, firstCall: (userId: string) => Promise<void>) {
  const callers = new WeakMap<Call, CapUserRecord>();
  return {
    scheme: (async (call) => {
      await bearer(call);
      const user = await users.admit(call.principal!);
      if (!user.firstSeenAt) await firstCall(user.userId);
      callers.set(call, user);
    }) satisfies SecurityHandler,
    caller(call: Call): CapUserRecord {
      const user = callers.get(call);
      if (!user) throw new Error(`${call.operationId} reads the caller but is not behind bearerAuth`);
      return user;
    },
    /** The caller's own access token, for Orchestrator calls made on their behalf (their own assets). */
    token(call: Call): string {
      return String(call.req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
    },
  };
}

export type CapAuth = ReturnType<typeof createCapAuth>;

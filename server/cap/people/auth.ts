import { bearerToken } from '../../platform/auth/token.ts';
import type { Call, SecurityHandler } from '../../platform/http/operations.ts';
import type { Caller, CapUserRecord, Standing } from './models.ts';
import type { UserService } from './service.ts';

/**
 * CAP's `bearerAuth` scheme: the Orchestrator's access token (checked by `bearer`), then the caller's
 * CapUser and standing in one statement, provisioned on the first call if user.created has not arrived
 * yet and refused (403) once deactivated. The user's first authenticated call also runs `firstCall` (it
 * lets in the staff memberships that were waiting for them) before the operation. Handlers of
 * authenticated operations read the CapUser with `caller(call)`, what they hold with `standing(call)`
 * and the access token with `token(call)`.
 */
export function createCapAuth(
  users: UserService,
  bearer: SecurityHandler,
  firstCall: (userId: string) => Promise<void>,
) {
  const callerOf = (call: Call): Caller => {
    const caller = (call as CallWithCaller)[callerKey];
    if (!caller) throw new Error(`${call.operationId} reads the caller but is not behind bearerAuth`);
    return caller;
  };
  return {
    // Synchronous for a token verified before and a caller kept (the usual call): nothing to wait for.
    scheme: ((call) => {
      const admitted = () => {
        const caller = users.admit(call.principal!, firstCall);
        if (caller instanceof Promise)
          return caller.then((found) => void ((call as CallWithCaller)[callerKey] = found));
        (call as CallWithCaller)[callerKey] = caller;
      };
      const verified = bearer(call);
      return verified ? verified.then(admitted) : admitted();
    }) satisfies SecurityHandler,
    caller: (call: Call): CapUserRecord => callerOf(call).user,
    /** What the caller holds (memberships, onboardings), as read with them at the start of the call. */
    standing: (call: Call): Standing => callerOf(call).standing,
    /** The caller's own access token, for Orchestrator calls made on their behalf (their own assets). */
    token(call: Call): string {
      return bearerToken(call.req.headers.authorization) ?? '';
    },
  };
}

/**
 * The caller admitted for a call, kept on the call itself: a WeakMap keyed by every request's call
 * costs the garbage collector work on each collection.
 */
const callerKey = Symbol('caller');
type CallWithCaller = Call & { [callerKey]?: Caller };

export type CapAuth = ReturnType<typeof createCapAuth>;

import { clientAddress } from '../../platform/http/app.ts';
import type { operations } from '../../contracts/openapi/ol.ts';
import type { Call, Handlers } from '../../platform/http/operations.ts';
import { created, ok } from '../../platform/http/reply.ts';
import type { Accounts, Origin, SignedIn } from './service.ts';

/** The bearer caller; `sid` is always set on the Orchestrator's own access tokens. */
function signedIn(call: Call): SignedIn {
  return { userId: call.principal!.userId!, sessionId: String(call.principal!.claims!.sid) };
}

/** The client's address (the throttles count by it). */
const origin = (call: Call): Origin => ({ address: clientAddress(call.req) });

export function accountRoutes(accounts: Accounts): Handlers<operations> {
  return {
    register: async (call) => created(await accounts.register(call.body)),
    resendOtp: async (call) => ok(await accounts.sendOtp(call.body)),
    verifyAccount: async (call) => ok(await accounts.verifyAccount(call.body, origin(call))),
    login: async (call) => ok(await accounts.login(call.body, origin(call))),
    googleSignIn: async (call) => ok(await accounts.signInWithGoogle(call.body)),
    forgotPassword: async (call) => ok(await accounts.sendOtp({ email: call.body.email, purpose: 'password_reset' })),
    resetPassword: async (call) => ok(await accounts.resetPassword(call.body, origin(call))),
    refreshSession: async (call) => ok(await accounts.refresh(call.body.refreshToken)),
    logout: async (call) => ok(await accounts.logout(signedIn(call), call.body.refreshToken)),
    changePassword: async (call) => ok(await accounts.changePassword(signedIn(call), call.body)),
    deleteAccount: async (call) => ok(await accounts.deleteAccount(signedIn(call), call.body ?? {})),
  };
}

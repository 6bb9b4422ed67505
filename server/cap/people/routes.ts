import type { operations } from '../../contracts/openapi/cap.ts';
import type { Handlers } from '../../platform/http/operations.ts';
import { ok } from '../../platform/http/reply.ts';
import type { AccountService } from './account.ts';
import type { CapAuth } from './auth.ts';
import type { UserService } from './service.ts';

export function userRoutes(auth: CapAuth, users: UserService, account: AccountService): Handlers<operations> {
  return {
    getMe: (call) => ok(account.me(auth.caller(call), auth.standing(call))),
    getMyProfile: (call) => ok(users.profileOf(auth.caller(call))),
    updateMyProfile: async (call) => ok(await users.updateProfile(auth.caller(call).userId, call.body)),
    getMyDeletionEligibility: async (call) => ok(await account.deletionEligibility(auth.caller(call))),
  };
}

import type { operations } from '../../../contracts/openapi/cap.ts';
import type { Handlers } from '../../../platform/http/operations.ts';
import { ok } from '../../../platform/http/reply.ts';
import type { ActingContexts } from '../../people/index.ts';
import type { CentreProfiles } from './service.ts';

export function centreProfileRoutes(contexts: ActingContexts, profiles: CentreProfiles): Handlers<operations> {
  return {
    getCentreProfile: contexts.centre(async (_call, context) => ok(await profiles.read(context))),
    updateCentreProfile: contexts.centre(async (call, context) => ok(await profiles.update(context, call.body))),
  };
}

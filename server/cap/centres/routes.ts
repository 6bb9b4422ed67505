import type { operations } from '../../contracts/openapi/cap.ts';
import type { Handlers } from '../../platform/http/operations.ts';
import { ok } from '../../platform/http/reply.ts';
import type { CentreService } from './service.ts';

/** The public list of centres (openapi/cap/catalogue.yaml): approved ones, no bearer. */
export function centreRoutes(centres: CentreService): Handlers<operations> {
  return {
    listCentres: async (call) => {
      const { items, meta } = await centres.approved(call.query);
      return ok(items, { ...meta });
    },
  };
}

import type { operations } from '../../../contracts/openapi/cap.ts';
import type { Handlers } from '../../../platform/http/operations.ts';
import { ok } from '../../../platform/http/reply.ts';
import type { ActingContexts } from '../../people/index.ts';
import type { CentreDashboard } from './service.ts';

/** `/centre/dashboard` (openapi/cap/centre-dashboard.yaml). */
export function centreDashboardRoutes(contexts: ActingContexts, dashboard: CentreDashboard): Handlers<operations> {
  return {
    getCentreDashboard: contexts.centre(async (call, context) => ok(await dashboard.dashboard(context, call.query))),
  };
}

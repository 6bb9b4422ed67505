import type { operations } from '../../../contracts/openapi/cap.ts';
import type { Call, Handlers } from '../../../platform/http/operations.ts';
import { created, ok } from '../../../platform/http/reply.ts';
import { viewerOf } from '../service.ts';
import type { ActingContexts, CapAuth, PlatformRoles } from '../../people/index.ts';
import type { CapPayments } from './service.ts';

/** The payment of an application, centre prices, the wallet and the centre's payments (openapi/cap/payments.yaml). */
export function capPaymentRoutes(
  auth: CapAuth,
  contexts: ActingContexts,
  roles: PlatformRoles,
  payments: CapPayments,
): Handlers<operations> {
  const userId = (call: Call) => auth.caller(call).userId;
  return {
    getApplicationPaymentQuote: contexts.bound(async (call, context) =>
      ok(await payments.quote(viewerOf(context, userId(call)), call.params.id)),
    ),
    payApplication: contexts.as('candidate', async (call) =>
      ok(await payments.pay(userId(call), call.params.id, call.body ?? {})),
    ),
    withdrawApplication: contexts.as('candidate', async (call) =>
      ok(await payments.withdrawApplication(userId(call), call.params.id, call.body?.reason)),
    ),
    getApplicationReceipt: contexts.bound(async (call, context) =>
      ok(await payments.receipt(viewerOf(context, userId(call)), call.params.id)),
    ),
    listCentrePricing: contexts.centre(async (_call, context) => ok(await payments.prices(context))),
    createCentrePrice: contexts.centre(async (call, context) =>
      created(await payments.setPrice(context, userId(call), call.body)),
    ),
    replaceCentrePricing: contexts.centre(async (call, context) =>
      ok(await payments.setPrices(context, userId(call), call.body.items)),
    ),
    getCentreWallet: contexts.centre(async (_call, context) => ok(await payments.wallet(context))),
    withdrawFromCentreWallet: contexts.centre(async (call, context) =>
      ok(await payments.withdraw(context, userId(call), call.body.amount)),
    ),
    getCentrePaymentsSummary: contexts.centre(async (_call, context) => ok(await payments.centreSummary(context))),
    listCentrePayments: contexts.centre(async (call, context) => {
      const { items, meta } = await payments.centreList(context, call.query);
      return ok(items, meta);
    }),
    getAdminApplicationReceipt: roles.allowed(auth, 'platform.pricing.read', async (call) =>
      ok(await payments.adminReceipt(call.params.id)),
    ),
    getAdminPaymentsSummary: roles.allowed(auth, 'platform.pricing.read', async () =>
      ok(await payments.adminSummary()),
    ),
    listAdminPayments: roles.allowed(auth, 'platform.pricing.read', async (call) => {
      const { items, meta } = await payments.adminList(call.query);
      return ok(items, meta);
    }),
  };
}

import type { operations } from '../../contracts/openapi/ol.ts';
import type { Handlers } from '../../platform/http/operations.ts';
import { ok, type Reply } from '../../platform/http/reply.ts';
import type { ReferenceData } from './service.ts';

/** Public lists change rarely: browsers and proxies may keep them a day (the spec's bank-list limit). */
const publicForADay = (reply: Reply): Reply => ({ ...reply, headers: { 'Cache-Control': 'public, max-age=86400' } });

export function referenceRoutes(reference: ReferenceData): Handlers<operations> {
  return {
    listBanks: async (call) => publicForADay(ok(await reference.banks(call.query.country ?? 'NG'))),
    resolveBankAccount: async (call) => {
      const { result, cached } = await reference.resolveAccount(call.body);
      // RFC 9211: whether our lookup cache answered, so callers (and tests) can see it.
      return { ...ok(result), headers: { 'Cache-Status': cached ? 'capctl-ol; hit' : 'capctl-ol; fwd=miss; stored' } };
    },
    listCountries: async () => publicForADay(ok(await reference.countries())),
    listCountryStates: async (call) => publicForADay(ok(await reference.states(call.params.country))),
    listStateLgas: async (call) => publicForADay(ok(await reference.lgas(call.params.country, call.params.state))),
  };
}

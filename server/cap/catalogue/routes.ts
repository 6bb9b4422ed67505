import type { operations } from '../../contracts/openapi/cap.ts';
import type { CallInput, Handler, Handlers } from '../../platform/http/operations.ts';
import { created, ok } from '../../platform/http/reply.ts';
import type { CapAuth, PlatformRoles } from '../people/index.ts';
import type { Catalogue } from './service.ts';

/** The public catalogue (no bearer) and its editing by platform admins (openapi/cap/catalogue.yaml, admin-catalogue.yaml). */
export function catalogueRoutes(
  auth: CapAuth,
  roles: PlatformRoles,
  catalogue: Catalogue,
  applicationCountOf: (tradeId: string) => Promise<number>,
): Handlers<operations> {
  const read = <In extends CallInput>(handler: Handler<In>) => roles.allowed(auth, 'platform.catalogue.read', handler);
  const write = <In extends CallInput>(handler: Handler<In>) =>
    roles.allowed(auth, 'platform.catalogue.write', handler);
  const page = ({ items, meta }: { items: unknown[]; meta: object }) => ok(items, { ...meta });
  return {
    listSectors: async () => ok(await catalogue.sectors()),
    listSectorTrades: async (call) => ok(await catalogue.sectorTrades(call.params.id)),
    getTrade: async (call) => ok(await catalogue.trade(call.params.id)),
    listTradeUnits: async (call) => ok(await catalogue.tradeUnits(call.params.id, call.query.level)),
    listTradeEvidenceTypes: async (call) => ok(await catalogue.evidenceTypes(call.params.id)),

    listAdminSectors: read(async (call) => page(await catalogue.listSectors(call.query))),
    getAdminSector: read(async (call) => ok(await catalogue.getSector(call.params.id))),
    createAdminSector: write(async (call) => created(await catalogue.createSector(call.body))),
    updateAdminSector: write(async (call) => ok(await catalogue.updateSector(call.params.id, call.body))),
    deleteAdminSector: write(async (call) => ok(await catalogue.deleteSector(call.params.id))),

    listAdminTrades: read(async (call) => page(await catalogue.listTrades(call.query))),
    getAdminTrade: read(async (call) =>
      ok({ ...(await catalogue.getTrade(call.params.id)), applicationCount: await applicationCountOf(call.params.id) }),
    ),
    createAdminTrade: write(async (call) => created(await catalogue.createTrade(call.body))),
    updateAdminTrade: write(async (call) => ok(await catalogue.updateTrade(call.params.id, call.body))),
    archiveAdminTrade: write(async (call) => ok(await catalogue.setTradeStatus(call.params.id, 'archived'))),
    restoreAdminTrade: write(async (call) => ok(await catalogue.setTradeStatus(call.params.id, 'active'))),
    importAdminTradeNos: write(async (call) => {
      const dryRun = call.query.dryRun === true;
      const result = await catalogue.importNos(call.params.id, call.body, dryRun);
      return dryRun ? ok(result) : created(result);
    }),

    listAdminLevels: read(async (call) => page(await catalogue.listLevels(call.query))),
    createAdminTradeLevel: write(async (call) => created(await catalogue.createLevel(call.params.id, call.body))),
    updateAdminLevel: write(async (call) => ok(await catalogue.updateLevel(call.params.id, call.body))),
    deleteAdminLevel: write(async (call) => ok(await catalogue.deleteLevel(call.params.id))),
    listAdminLevelUnits: read(async (call) => ok(await catalogue.listUnits(call.params.id))),
    createAdminLevelUnit: write(async (call) => created(await catalogue.createUnit(call.params.id, call.body))),
    updateAdminUnit: write(async (call) => ok(await catalogue.updateUnit(call.params.id, call.body))),
    deleteAdminUnit: write(async (call) => ok(await catalogue.deleteUnit(call.params.id))),
    listAdminUnitOutcomes: read(async (call) => ok(await catalogue.listOutcomes(call.params.id))),
    createAdminUnitOutcome: write(async (call) => created(await catalogue.createOutcome(call.params.id, call.body))),
    updateAdminOutcome: write(async (call) => ok(await catalogue.updateOutcome(call.params.id, call.body))),
    deleteAdminOutcome: write(async (call) => ok(await catalogue.deleteOutcome(call.params.id))),
  };
}

import { Op, QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { CatalogueModels } from './models.ts';

/**
 * The catalogue as the other modules read it (applications, assessors, job postings): sectors, trades
 * and the content of NOS documents, by id.
 */
export function createCatalogueReads(sequelize: Sequelize, models: CatalogueModels) {
  const { Sector, Trade, NosDocument, QualificationLevel, Unit } = models;
  const ids = (list: string[]) => ({ [Op.in]: [...new Set(list)] });

  return {
    /** The sectors among `sectorIds`, by name. */
    sectors: async (sectorIds: string[]) =>
      sectorIds.length ? Sector.findAll({ where: { id: ids(sectorIds) }, order: [['name', 'ASC']] }) : [],

    /** Which of `sectorIds` are sectors of the catalogue. */
    async knownSectorIds(sectorIds: string[], transaction?: Transaction): Promise<string[]> {
      const rows = await sequelize.query<{ id: string }>(`SELECT id FROM cap.sectors WHERE id = ANY($1)`, {
        type: QueryTypes.SELECT,
        bind: [[...new Set(sectorIds)]],
        transaction,
      });
      return rows.map((row) => row.id);
    },

    /** The trades among `tradeIds`, archived ones included. */
    trades: (tradeIds: string[]) => Trade.findAll({ where: { id: ids(tradeIds) } }),

    /** The trade when it is active (the public catalogue's), else null. */
    activeTrade: (tradeId: string) => Trade.findOne({ where: { id: tradeId, status: 'active' } }),

    /** The trade's active NOS document, or null. */
    activeNos: (tradeId: string) => NosDocument.findOne({ where: { tradeId, status: 'active' } }),

    /** A NOS document's qualification levels (by level) and units (in their order). */
    async nosContent(nosDocumentId: string) {
      const [levels, units] = await Promise.all([
        QualificationLevel.findAll({ where: { nosDocumentId }, order: [['level', 'ASC']] }),
        Unit.findAll({
          where: { nosDocumentId },
          order: [
            ['position', 'ASC'],
            ['id', 'ASC'],
          ],
        }),
      ]);
      return { levels, units };
    },

    /** The units among `unitIds`. */
    units: (unitIds: string[]) => Unit.findAll({ where: { id: ids(unitIds) } }),

    /** The level a certificate shows: the highest level among `unitIds`, else the NOS document's only level, else null. */
    async certifiedLevel(nosDocumentId: string | null, unitIds: string[]): Promise<number | null> {
      const [row] = await sequelize.query<{ level: number | null }>(
        `SELECT coalesce(
           (SELECT max(l.level) FROM cap.units u JOIN cap.qualification_levels l ON l.id = u.qualification_level_id WHERE u.id = ANY($2::text[])),
           (SELECT CASE WHEN count(*) = 1 THEN min(level) END FROM cap.qualification_levels WHERE nos_document_id = $1)) AS level`,
        { type: QueryTypes.SELECT, bind: [nosDocumentId, unitIds] },
      );
      return row?.level ?? null;
    },
  };
}

export type CatalogueReads = ReturnType<typeof createCatalogueReads>;

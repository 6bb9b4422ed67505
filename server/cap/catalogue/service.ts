import {
  Op,
  QueryTypes,
  UniqueConstraintError,
  col,
  fn,
  where as sqlWhere,
  type Sequelize,
  type Transaction,
} from 'sequelize';
import { isoTime } from '../../platform/db/iso-time.ts';
import { containing } from '../../platform/db/like.ts';
import { newId } from '../../platform/ids.ts';
import { conflict, notFound, unprocessable, type ErrorDetail } from '../../platform/http/errors.ts';
import { Conditions, keysetInstances, keysetRows } from '../../platform/db/keyset.ts';
import { preparedReads } from '../../platform/db/prepared.ts';
import { pageRequest } from '../../platform/http/pagination.ts';
import { lifecycleWriter, modelStore } from '../../platform/lifecycle.ts';
import {
  defineCatalogueModels,
  nosLifecycle,
  tradeLifecycle,
  type LearningOutcome,
  type NosDocument,
  type PerformanceCriterion,
  type QualificationLevel,
  type Sector,
  type Trade,
  type TradeStatus,
  type Unit,
} from './models.ts';
import { nosDocumentFromCsv, nosDocumentProblems, type NosDocumentInput, type UnitInput } from './nos-document.ts';

/** What a trade offers candidates to upload until an admin says otherwise. */
export const defaultEvidenceTypes = [
  'Photographs of completed work',
  'Employer or supervisor reference letter',
  'Video of a practical task',
  'Training certificates',
  'Work logbook or diary',
];
/** The qualification levels a new trade's stub NOS starts with. */
const stubLevels = [1, 2, 3, 4, 5];

export const slugify = (text: string) =>
  text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/g, '') || 'item';

type Query = Record<string, unknown> & { q?: string; cursor?: string; limit?: number };
export interface SectorInput {
  name: string;
  slug?: string;
  description?: string | null;
}
export interface TradeInput {
  sectorId: string;
  name: string;
  slug?: string;
  description?: string | null;
  evidenceTypes?: string[];
  levels?: number[];
}
export interface LevelFields {
  level: number;
  slug?: string;
  purpose: string;
}
export type UnitFields = Omit<UnitInput, 'learningOutcomes'>;
export interface OutcomeFields {
  reference: string;
  description: string;
  performanceCriteria: PerformanceCriterion[];
}
export type NosImport = { title?: string; levels?: NosDocumentInput['levels']; csv?: string };

/** A trade as a page reads it: plain columns, its times as ISO text. */
interface AdminTradeRow {
  id: string;
  sectorId: string;
  slug: string;
  name: string;
  description: string | null;
  status: TradeStatus;
  evidenceTypes: string[];
  archivedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A trade's active NOS document as the admin trade list shows it. */
interface ActiveNosDocument {
  id: string;
  version: number;
  title: string;
  levelCount: number;
  unitCount: number;
}

/**
 * The catalogue: sectors, trades and their NOS documents. The public reads (active trades only) and
 * the platform admins' editing of it, including the import of a whole NOS document, which supersedes
 * the trade's active one and keeps it, frozen, for the applications that point at it.
 */
export function createCatalogue(sequelize: Sequelize) {
  const models = defineCatalogueModels(sequelize);
  const { Sector, Trade, NosDocument, QualificationLevel, Unit, LearningOutcome } = models;
  const read = preparedReads(sequelize);
  const trades = lifecycleWriter(tradeLifecycle, {
    store: modelStore(Trade),
    refuse: (_refusal, trade) =>
      conflict(`catalogue.trade_${trade!.status}`, `The trade ${trade!.name} is already ${trade!.status}.`),
  });
  const nosVersions = lifecycleWriter(nosLifecycle, { store: modelStore(NosDocument) });

  /** Runs a write, turning a concurrent write that took the same slug or number into a 409. */
  async function unique<T>(what: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (err instanceof UniqueConstraintError) throw conflict('catalogue.already_exists', `${what} is already taken.`);
      throw err;
    }
  }

  /**
   * Inserts a row under a free slug: a given slug must be free (409 catalogue.slug_taken); a slug derived
   * from the name gets a number when taken, also when a concurrent insert takes it first (each try
   * runs in a savepoint, so the surrounding transaction goes on).
   */
  async function withFreeSlug<T>(
    model: typeof Sector | typeof Trade,
    name: string,
    given: string | undefined,
    transaction: Transaction,
    insert: (slug: string) => Promise<T>,
  ): Promise<T> {
    const taken = (slug: string) => (model as typeof Sector).count({ where: { slug }, transaction }).then((n) => n > 0);
    const base = given ?? slugify(name);
    for (let n = 1; ; n++) {
      const slug = n === 1 ? base : `${base.slice(0, 76)}-${n}`;
      if (given && n > 1) throw conflict('catalogue.slug_taken', `The slug ${given} is already used.`);
      if (await taken(slug)) continue;
      try {
        return await sequelize.transaction({ transaction }, () => insert(slug));
      } catch (err) {
        if (!(err instanceof UniqueConstraintError)) throw err;
      }
    }
  }

  async function activeTradeCounts(sectorIds?: string[]): Promise<Map<string, number>> {
    const rows = await sequelize.query<{ sector_id: string; n: number }>(
      `SELECT sector_id, count(*)::int AS n FROM cap.trades WHERE status = 'active' ${sectorIds ? 'AND sector_id = ANY($1)' : ''} GROUP BY sector_id`,
      { type: QueryTypes.SELECT, bind: sectorIds ? [sectorIds] : [] },
    );
    return new Map(rows.map((row) => [row.sector_id, row.n]));
  }

  const sectorOf = (sector: Sector, tradeCount: number) => ({
    id: sector.id,
    slug: sector.slug,
    name: sector.name,
    description: sector.description,
    tradeCount,
  });
  const tradeOf = (trade: Trade | AdminTradeRow) => ({
    id: trade.id,
    sectorId: trade.sectorId,
    slug: trade.slug,
    name: trade.name,
    description: trade.description,
  });

  // ---- NOS documents ------------------------------------------------------------------------------

  async function activeNos(tradeId: string, transaction?: Transaction): Promise<NosDocument | null> {
    return NosDocument.findOne({ where: { tradeId, status: 'active' }, transaction });
  }

  /** A NOS document's levels, units and outcomes, read in three statements. */
  async function nosTree(doc: NosDocument, transaction?: Transaction) {
    const levels = await QualificationLevel.findAll({
      where: { nosDocumentId: doc.id },
      order: [['level', 'ASC']],
      transaction,
    });
    const units = await Unit.findAll({
      where: { nosDocumentId: doc.id },
      order: [
        ['position', 'ASC'],
        ['id', 'ASC'],
      ],
      transaction,
    });
    const outcomes = units.length
      ? await LearningOutcome.findAll({
          where: { unitId: { [Op.in]: units.map((u) => u.id) } },
          order: [
            ['position', 'ASC'],
            ['id', 'ASC'],
          ],
          transaction,
        })
      : [];
    const outcomesOf = groupBy(outcomes, (o) => o.unitId);
    const unitsOf = groupBy(units, (u) => u.qualificationLevelId);
    return { doc, levels, unitsOf, outcomesOf };
  }
  type NosTree = Awaited<ReturnType<typeof nosTree>>;

  const outcomeOf = (o: LearningOutcome) => ({
    id: o.id,
    reference: o.reference,
    description: o.description,
    performanceCriteria: o.performanceCriteria,
  });
  /** A unit as the client reads it (Unit); its learning outcomes are its structure. */
  const unitOf = (unit: Unit, level: number, outcomes: LearningOutcome[]) => ({
    id: unit.id,
    referenceNumber: unit.referenceNumber,
    title: unit.title,
    isMandatory: unit.isMandatory,
    creditValue: unit.creditValue,
    guidedLearningHours: unit.guidedLearningHours,
    purpose: unit.purpose,
    assessmentMethods: unit.assessmentMethods,
    structure: { learningOutcomes: outcomes.map(outcomeOf) },
    level,
  });
  const publicNos = ({ doc, levels, unitsOf, outcomesOf }: NosTree) => ({
    id: doc.id,
    tradeId: doc.tradeId,
    version: doc.version,
    title: doc.title,
    status: doc.status,
    qualificationLevels: levels.map((level) => ({
      id: level.id,
      level: level.level,
      slug: level.slug,
      purpose: level.purpose,
      units: (unitsOf.get(level.id) ?? []).map((unit) => unitOf(unit, level.level, outcomesOf.get(unit.id) ?? [])),
    })),
  });
  /** The document in the shape it is imported in, so an export can be imported again unchanged. */
  const documentOf = ({ doc, levels, unitsOf, outcomesOf }: NosTree): NosDocumentInput => ({
    title: doc.title,
    levels: levels.map((level) => ({
      level: level.level,
      slug: level.slug,
      purpose: level.purpose,
      units: (unitsOf.get(level.id) ?? []).map((unit) => ({
        referenceNumber: unit.referenceNumber,
        title: unit.title,
        isMandatory: unit.isMandatory,
        creditValue: unit.creditValue,
        guidedLearningHours: unit.guidedLearningHours,
        purpose: unit.purpose,
        assessmentMethods: unit.assessmentMethods,
        learningOutcomes: (outcomesOf.get(unit.id) ?? []).map(({ reference, description, performanceCriteria }) => ({
          reference,
          description,
          performanceCriteria,
        })),
      })),
    })),
  });

  /** Writes a document's levels, units and outcomes under `doc`, one statement for each of the three. */
  async function writeNosContent(
    doc: NosDocument,
    input: NosDocumentInput,
    trade: Trade,
    transaction: Transaction,
  ): Promise<void> {
    const levels = input.levels.map((levelInput) => ({
      id: newId(),
      nosDocumentId: doc.id,
      level: levelInput.level,
      slug: levelInput.slug || `${trade.slug}-level-${levelInput.level}`,
      purpose: levelInput.purpose,
    }));
    const units = input.levels.flatMap((levelInput, l) =>
      levelInput.units.map((unitInput, position) => ({
        ...unitFields(unitInput),
        id: newId(),
        qualificationLevelId: levels[l]!.id,
        nosDocumentId: doc.id,
        position,
        learningOutcomes: unitInput.learningOutcomes,
      })),
    );
    const outcomes = units.flatMap((unit) =>
      unit.learningOutcomes.map((o, position) => ({
        unitId: unit.id,
        reference: o.reference,
        description: o.description,
        performanceCriteria: o.performanceCriteria,
        position,
      })),
    );
    await QualificationLevel.bulkCreate(levels, { transaction });
    if (units.length)
      await Unit.bulkCreate(
        units.map(({ learningOutcomes: _, ...unit }) => unit),
        { transaction },
      );
    if (outcomes.length) await LearningOutcome.bulkCreate(outcomes, { transaction });
  }

  // ---- lookups that 404 --------------------------------------------------------------------------

  async function sectorById(id: string, transaction?: Transaction): Promise<Sector> {
    const sector = await Sector.findByPk(id, { transaction });
    if (!sector) throw notFound(`No sector has the id ${id}.`);
    return sector;
  }
  async function tradeById(id: string, transaction?: Transaction, options: { lock?: boolean } = {}): Promise<Trade> {
    const trade = await Trade.findByPk(id, { transaction, lock: options.lock ? transaction?.LOCK.UPDATE : undefined });
    if (!trade) throw notFound(`No trade has the id ${id}.`);
    return trade;
  }
  async function activeTrade(id: string): Promise<Trade> {
    const trade = await Trade.findOne({ where: { id, status: 'active' } });
    if (!trade) throw notFound(`No active trade has the id ${id}.`);
    return trade;
  }
  /** The trade whose active NOS `nosDocumentId` is, to be edited: it must be active and the document current. */
  async function editableDocument(
    nosDocumentId: string,
    transaction: Transaction,
  ): Promise<{ doc: NosDocument; trade: Trade }> {
    const doc = (await NosDocument.findByPk(nosDocumentId, { transaction }))!;
    const trade = await tradeById(doc.tradeId, transaction, { lock: true });
    if (trade.status === 'archived')
      throw conflict('catalogue.trade_archived', `The trade ${trade.name} is archived: its NOS cannot change.`);
    if (doc.status !== 'active')
      throw conflict(
        'catalogue.nos_superseded',
        `Version ${doc.version} of this NOS was superseded: it is kept as it was for the applications that use it.`,
      );
    return { doc, trade };
  }
  async function levelById(id: string, transaction?: Transaction): Promise<QualificationLevel> {
    const level = await QualificationLevel.findByPk(id, { transaction });
    if (!level) throw notFound(`No qualification level has the id ${id}.`);
    return level;
  }
  async function unitById(id: string, transaction?: Transaction): Promise<Unit> {
    const unit = await Unit.findByPk(id, { transaction });
    if (!unit) throw notFound(`No unit has the id ${id}.`);
    return unit;
  }
  async function outcomeById(id: string, transaction?: Transaction): Promise<LearningOutcome> {
    const outcome = await LearningOutcome.findByPk(id, { transaction });
    if (!outcome) throw notFound(`No learning outcome has the id ${id}.`);
    return outcome;
  }

  // ---- admin shapes ------------------------------------------------------------------------------

  async function adminSectors(sectors: Sector[]) {
    const ids = sectors.map((s) => s.id);
    const rows = await sequelize.query<{ sector_id: string; active: number; archived: number }>(
      `SELECT sector_id, count(*) FILTER (WHERE status = 'active')::int AS active, count(*) FILTER (WHERE status = 'archived')::int AS archived
         FROM cap.trades WHERE sector_id = ANY($1) GROUP BY sector_id`,
      { type: QueryTypes.SELECT, bind: [ids] },
    );
    const counts = new Map(rows.map((row) => [row.sector_id, row]));
    return sectors.map((sector) => ({
      ...sectorOf(sector, counts.get(sector.id)?.active ?? 0),
      archivedTradeCount: counts.get(sector.id)?.archived ?? 0,
      createdAt: sector.createdAt.toISOString(),
      updatedAt: sector.updatedAt.toISOString(),
    }));
  }

  async function adminTrades(trades: Trade[]) {
    const ids = trades.map((t) => t.id);
    const sectors = new Map(
      (await Sector.findAll({ where: { id: { [Op.in]: [...new Set(trades.map((t) => t.sectorId))] } } })).map((s) => [
        s.id,
        s,
      ]),
    );
    const docs = await sequelize.query<{
      trade_id: string;
      id: string;
      version: number;
      title: string;
      levels: number;
      units: number;
    }>(
      `SELECT d.trade_id, d.id, d.version, d.title,
              (SELECT count(*)::int FROM cap.qualification_levels l WHERE l.nos_document_id = d.id) AS levels,
              (SELECT count(*)::int FROM cap.units u WHERE u.nos_document_id = d.id) AS units
         FROM cap.nos_documents d WHERE d.trade_id = ANY($1) AND d.status = 'active'`,
      { type: QueryTypes.SELECT, bind: [ids] },
    );
    const docOf = new Map(docs.map((d) => [d.trade_id, d]));
    return trades.map((trade) => {
      const doc = docOf.get(trade.id);
      return adminTradeView(
        trade,
        sectors.get(trade.sectorId)?.name ?? null,
        doc
          ? { id: doc.id, version: doc.version, title: doc.title, levelCount: doc.levels, unitCount: doc.units }
          : null,
      );
    });
  }

  /** The admin view of a trade: a model instance's, or a page row's whose times are already ISO text. */
  function adminTradeView(
    trade: Trade | AdminTradeRow,
    sectorName: string | null,
    activeNosDocument: ActiveNosDocument | null,
  ) {
    const iso = (time: Date | string | null) => (time instanceof Date ? time.toISOString() : time);
    // The fields written out, not spread from tradeOf: on the admin page the spread was 15 % of the
    // server's time (bench/NOTES.md, 2026-11-28).
    return {
      id: trade.id,
      sectorId: trade.sectorId,
      slug: trade.slug,
      name: trade.name,
      description: trade.description,
      sectorName,
      status: trade.status,
      evidenceTypes: trade.evidenceTypes,
      activeNosDocument,
      archivedAt: iso(trade.archivedAt),
      createdAt: iso(trade.createdAt)!,
      updatedAt: iso(trade.updatedAt)!,
    };
  }
  const adminTrade = async (trade: Trade) => (await adminTrades([trade]))[0]!;

  async function adminLevels(levels: QualificationLevel[]) {
    const docs = new Map(
      (await NosDocument.findAll({ where: { id: { [Op.in]: [...new Set(levels.map((l) => l.nosDocumentId))] } } })).map(
        (d) => [d.id, d],
      ),
    );
    const trades = new Map(
      (await Trade.findAll({ where: { id: { [Op.in]: [...new Set([...docs.values()].map((d) => d.tradeId))] } } })).map(
        (t) => [t.id, t],
      ),
    );
    const sectors = new Map(
      (
        await Sector.findAll({ where: { id: { [Op.in]: [...new Set([...trades.values()].map((t) => t.sectorId))] } } })
      ).map((s) => [s.id, s]),
    );
    const unitCounts = await sequelize.query<{ id: string; n: number }>(
      `SELECT qualification_level_id AS id, count(*)::int AS n FROM cap.units WHERE qualification_level_id = ANY($1) GROUP BY qualification_level_id`,
      { type: QueryTypes.SELECT, bind: [levels.map((l) => l.id)] },
    );
    const countOf = new Map(unitCounts.map((row) => [row.id, row.n]));
    return levels.map((level) => {
      const doc = docs.get(level.nosDocumentId)!;
      const trade = trades.get(doc.tradeId)!;
      const sector = sectors.get(trade.sectorId)!;
      return {
        id: level.id,
        level: level.level,
        slug: level.slug,
        purpose: level.purpose,
        unitCount: countOf.get(level.id) ?? 0,
        nosDocument: { id: doc.id, version: doc.version, status: doc.status },
        trade: { id: trade.id, name: trade.name, slug: trade.slug, status: trade.status },
        sector: { id: sector.id, name: sector.name },
      };
    });
  }
  const adminLevel = async (level: QualificationLevel) => (await adminLevels([level]))[0]!;

  async function adminUnits(units: Unit[]) {
    const levels = new Map(
      (
        await QualificationLevel.findAll({
          where: { id: { [Op.in]: [...new Set(units.map((u) => u.qualificationLevelId))] } },
        })
      ).map((l) => [l.id, l]),
    );
    const outcomes = units.length
      ? await LearningOutcome.findAll({
          where: { unitId: { [Op.in]: units.map((u) => u.id) } },
          order: [
            ['position', 'ASC'],
            ['id', 'ASC'],
          ],
        })
      : [];
    const outcomesOf = groupBy(outcomes, (o) => o.unitId);
    return units.map((unit) => ({
      ...unitOf(unit, levels.get(unit.qualificationLevelId)!.level, outcomesOf.get(unit.id) ?? []),
      qualificationLevelId: unit.qualificationLevelId,
      nosDocumentId: unit.nosDocumentId,
    }));
  }
  const adminUnit = async (unit: Unit) => (await adminUnits([unit]))[0]!;
  const adminOutcome = (o: LearningOutcome) => ({ ...outcomeOf(o), unitId: o.unitId });

  return {
    models,

    // ---- public --------------------------------------------------------------------------------

    /** Every sector by name, each with its count of active trades. */
    async sectors() {
      const sectors = await Sector.findAll({
        order: [
          ['name', 'ASC'],
          ['id', 'ASC'],
        ],
      });
      const counts = await activeTradeCounts();
      return sectors.map((sector) => sectorOf(sector, counts.get(sector.id) ?? 0));
    },

    async sectorTrades(sectorId: string) {
      await sectorById(sectorId);
      const trades = await Trade.findAll({
        where: { sectorId, status: 'active' },
        order: [
          ['name', 'ASC'],
          ['id', 'ASC'],
        ],
      });
      return trades.map(tradeOf);
    },

    async trade(tradeId: string) {
      const trade = await activeTrade(tradeId);
      const doc = await activeNos(trade.id);
      return { ...tradeOf(trade), activeNosDocument: doc ? publicNos(await nosTree(doc)) : null };
    },

    /** The units of the trade's active NOS, by level then position; `level` keeps one level. */
    async tradeUnits(tradeId: string, level?: number) {
      const trade = await activeTrade(tradeId);
      const doc = await activeNos(trade.id);
      if (!doc) return [];
      const tree = await nosTree(doc);
      return tree.levels
        .filter((l) => level === undefined || l.level === level)
        .flatMap((l) =>
          (tree.unitsOf.get(l.id) ?? []).map((unit) => unitOf(unit, l.level, tree.outcomesOf.get(unit.id) ?? [])),
        );
    },

    async evidenceTypes(tradeId: string) {
      return (await activeTrade(tradeId)).evidenceTypes;
    },

    // ---- admin: sectors ------------------------------------------------------------------------

    async listSectors(query: Query & { slug?: string }) {
      const where = new Conditions();
      if (query.q) where.add('(x.name ILIKE ? OR x.slug ILIKE ?)', containing(query.q));
      if (query.slug) where.add('x.slug = ?', query.slug);
      const { items, meta } = await keysetInstances(read, pageRequest(query), Sector, {
        from: 'cap.sectors x',
        where,
        key: 'x.id',
        desc: true,
      });
      return { items: await adminSectors(items), meta };
    },

    getSector: async (id: string) => (await adminSectors([await sectorById(id)]))[0]!,

    async createSector(input: SectorInput) {
      const sector = await sequelize.transaction((transaction) =>
        withFreeSlug(Sector, input.name, input.slug, transaction, (slug) =>
          Sector.create({ slug, name: input.name.trim(), description: input.description ?? null }, { transaction }),
        ),
      );
      return (await adminSectors([sector]))[0]!;
    },

    async updateSector(id: string, patch: Partial<SectorInput>) {
      const sector = await sectorById(id);
      if (patch.slug && patch.slug !== sector.slug && (await Sector.count({ where: { slug: patch.slug } }))) {
        throw conflict('catalogue.slug_taken', `The slug ${patch.slug} is already used.`);
      }
      await unique(`The slug ${patch.slug}`, () =>
        sector.update({ ...pick(patch, ['slug', 'description']), ...(patch.name ? { name: patch.name.trim() } : {}) }),
      );
      return (await adminSectors([sector]))[0]!;
    },

    /** Only an empty sector goes: one with trades, archived ones included, is 409. */
    async deleteSector(id: string) {
      await sequelize.transaction(async (transaction) => {
        const sector = await Sector.findByPk(id, { transaction, lock: transaction.LOCK.UPDATE });
        if (!sector) throw notFound(`No sector has the id ${id}.`);
        const trades = await Trade.count({ where: { sectorId: id }, transaction });
        if (trades > 0)
          throw conflict(
            'catalogue.sector_not_empty',
            `The sector ${sector.name} still has ${trades} trade(s), archived ones included: move or remove them first.`,
          );
        await sector.destroy({ transaction });
      });
      return { deleted: true as const };
    },

    // ---- admin: trades -------------------------------------------------------------------------

    async listTrades(query: Query & { sectorId?: string; status?: TradeStatus; slug?: string }) {
      const where = new Conditions();
      if (query.q) where.add('(x.name ILIKE ? OR x.slug ILIKE ?)', containing(query.q));
      if (query.sectorId) where.add('x.sector_id = ?', query.sectorId);
      if (query.status) where.add('x.status = ?', query.status);
      if (query.slug) where.add('x.slug = ?', query.slug);
      // One statement: each trade with its sector's name and its active NOS (adminTrades' shape), as
      // plain rows with their times as text (building model instances was most of a page's CPU).
      const { items, meta } = await keysetRows<
        AdminTradeRow & { sectorName: string | null; doc: ActiveNosDocument | null }
      >(read, pageRequest(query), {
        select: `x.id, x.sector_id AS "sectorId", x.slug, x.name, x.description, x.status,
            x.evidence_types AS "evidenceTypes", ${isoTime('x.archived_at')} AS "archivedAt",
            ${isoTime('x.created_at')} AS "createdAt", ${isoTime('x.updated_at')} AS "updatedAt",
            (SELECT s.name FROM cap.sectors s WHERE s.id = x.sector_id) AS "sectorName",
            (SELECT json_build_object('id', d.id, 'version', d.version, 'title', d.title,
                    'levelCount', (SELECT count(*)::int FROM cap.qualification_levels l WHERE l.nos_document_id = d.id),
                    'unitCount', (SELECT count(*)::int FROM cap.units u WHERE u.nos_document_id = d.id))
               FROM cap.nos_documents d WHERE d.trade_id = x.id AND d.status = 'active' LIMIT 1) AS doc`,
        from: 'cap.trades x',
        where,
        key: 'x.id',
        desc: true,
      });
      return { items: items.map(({ sectorName, doc, ...row }) => adminTradeView(row, sectorName, doc)), meta };
    },

    /** The trade with its active NOS in the import shape, and every version it has had. */
    async getTrade(id: string) {
      const trade = await tradeById(id);
      const doc = await activeNos(trade.id);
      const versions = await NosDocument.findAll({ where: { tradeId: id }, order: [['version', 'DESC']] });
      return {
        ...(await adminTrade(trade)),
        nos: doc ? { id: doc.id, version: doc.version, ...documentOf(await nosTree(doc)) } : null,
        nosVersions: versions.map((v) => ({
          id: v.id,
          version: v.version,
          title: v.title,
          status: v.status,
          createdAt: v.createdAt.toISOString(),
        })),
      };
    },

    /** A trade, with a stub NOS (version 1) holding its qualification levels, all or nothing. */
    async createTrade(input: TradeInput) {
      const trade = await sequelize.transaction(async (transaction) => {
        const sector = await Sector.findByPk(input.sectorId, { transaction });
        if (!sector)
          throw unprocessable('validation.failed', 'The sector does not exist.', [
            { field: 'body.sectorId', issue: `no sector has the id ${input.sectorId}` },
          ]);
        const name = input.name.trim();
        const trade = (await withFreeSlug(Trade, input.name, input.slug, transaction, (slug) =>
          trades.create(
            transaction,
            'add',
            {
              sectorId: sector.id,
              slug,
              name,
              description: input.description ?? null,
              evidenceTypes: input.evidenceTypes ?? defaultEvidenceTypes,
            },
            { by: 'admin' },
          ),
        ))!;
        const doc = (await nosVersions.create(
          transaction,
          'publish',
          { tradeId: trade.id, version: 1, title: `${name} (NOS)` },
          { by: 'admin' },
        ))!;
        const levels = [...new Set(input.levels ?? stubLevels)].sort((a, b) => a - b);
        await writeNosContent(
          doc,
          {
            title: doc.title,
            levels: levels.map((level) => ({ level, purpose: `${name}, level ${level}`, units: [] })),
          },
          trade,
          transaction,
        );
        return trade;
      });
      return adminTrade(trade);
    },

    async updateTrade(id: string, patch: Partial<Omit<TradeInput, 'levels'>>) {
      const trade = await tradeById(id);
      if (patch.sectorId && !(await Sector.count({ where: { id: patch.sectorId } }))) {
        throw unprocessable('validation.failed', 'The sector does not exist.', [
          { field: 'body.sectorId', issue: `no sector has the id ${patch.sectorId}` },
        ]);
      }
      if (patch.slug && patch.slug !== trade.slug && (await Trade.count({ where: { slug: patch.slug } }))) {
        throw conflict('catalogue.slug_taken', `The slug ${patch.slug} is already used.`);
      }
      await unique(`The slug ${patch.slug}`, () =>
        trade.update({
          ...pick(patch, ['sectorId', 'slug', 'description', 'evidenceTypes']),
          ...(patch.name ? { name: patch.name.trim() } : {}),
        }),
      );
      return adminTrade(trade);
    },

    /** Archived trades leave the public catalogue; their NOS documents stay for existing applications. */
    async setTradeStatus(id: string, status: TradeStatus) {
      const trade = await tradeById(id);
      await sequelize.transaction((transaction) =>
        trades.move(transaction, trade, status === 'archived' ? 'archive' : 'restore', {
          by: 'admin',
          changes: { archivedAt: status === 'archived' ? new Date() : null },
        }),
      );
      return adminTrade(trade);
    },

    /**
     * Replaces the trade's active NOS with a whole document (JSON, or CSV with one row per performance
     * criterion), in one transaction: the new one becomes the next version and the old one is kept,
     * superseded. Every problem of the document is reported and nothing is written when there is one.
     * With `dryRun` nothing is written either way.
     */
    async importNos(tradeId: string, body: NosImport, dryRun: boolean) {
      let doc: NosDocumentInput;
      let problems: ErrorDetail[];
      if (body.csv !== undefined) {
        ({ doc, problems } = nosDocumentFromCsv(body.title ?? '', body.csv));
      } else {
        doc = { title: body.title ?? '', levels: body.levels ?? [] };
        problems = nosDocumentProblems(doc);
      }
      const trade = await tradeById(tradeId);
      if (!doc.title.trim()) doc.title = `${trade.name} (NOS)`;
      if (trade.status === 'archived')
        throw conflict(
          'catalogue.trade_archived',
          `The trade ${trade.name} is archived: import a NOS after restoring it.`,
        );
      if (problems.length)
        throw unprocessable(
          'catalogue.nos_invalid',
          `The NOS document has ${problems.length} problem(s); nothing was imported.`,
          problems,
        );
      const counts = {
        levels: doc.levels.length,
        units: doc.levels.reduce((n, l) => n + l.units.length, 0),
        learningOutcomes: doc.levels.reduce(
          (n, l) => n + l.units.reduce((m, u) => m + u.learningOutcomes.length, 0),
          0,
        ),
        performanceCriteria: doc.levels.reduce(
          (n, l) =>
            n +
            l.units.reduce((m, u) => m + u.learningOutcomes.reduce((k, o) => k + o.performanceCriteria.length, 0), 0),
          0,
        ),
      };
      if (dryRun) {
        const current = await activeNos(trade.id);
        return {
          dryRun: true,
          tradeId,
          version: (current?.version ?? 0) + 1,
          supersedes: current?.version ?? null,
          title: doc.title,
          counts,
        };
      }
      const created = await sequelize.transaction(async (transaction) => {
        await tradeById(tradeId, transaction, { lock: true });
        const current = await activeNos(trade.id, transaction);
        const latest = ((await NosDocument.max('version', { where: { tradeId }, transaction })) as number | null) ?? 0;
        if (current) await nosVersions.move(transaction, current, 'supersede', { by: 'admin' });
        const next = (await nosVersions.create(
          transaction,
          'publish',
          { tradeId, version: latest + 1, title: doc.title.trim() },
          { by: 'admin' },
        ))!;
        await writeNosContent(next, doc, trade, transaction);
        return { next, supersedes: current?.version ?? null };
      });
      return {
        dryRun: false,
        tradeId,
        id: created.next.id,
        version: created.next.version,
        supersedes: created.supersedes,
        title: created.next.title,
        counts,
      };
    },

    // ---- admin: levels, units, learning outcomes on the active NOS ------------------------------

    /** One row per qualification level on each trade's active NOS. */
    async listLevels(query: Query & { tradeId?: string; sectorId?: string }) {
      const where = new Conditions().add(`d.status = 'active'`);
      if (query.tradeId) where.add('t.id = ?', query.tradeId);
      if (query.sectorId) where.add('t.sector_id = ?', query.sectorId);
      if (query.q) where.add('(t.name ILIKE ? OR t.slug ILIKE ?)', containing(query.q));
      const from =
        'cap.qualification_levels x JOIN cap.nos_documents d ON d.id = x.nos_document_id JOIN cap.trades t ON t.id = d.trade_id';
      const { items, meta } = await keysetInstances(read, pageRequest(query), QualificationLevel, {
        from,
        where,
        key: 'x.id',
        desc: false,
      });
      return { items: await adminLevels(items), meta };
    },

    async createLevel(tradeId: string, input: LevelFields) {
      const level = await sequelize.transaction(async (transaction) => {
        const trade = await tradeById(tradeId, transaction);
        const doc = await activeNos(trade.id, transaction);
        if (!doc) throw conflict('catalogue.nos_missing', `The trade ${trade.name} has no active NOS.`);
        await editableDocument(doc.id, transaction);
        if (await QualificationLevel.count({ where: { nosDocumentId: doc.id, level: input.level }, transaction })) {
          throw conflict('catalogue.level_taken', `The NOS of ${trade.name} already has level ${input.level}.`);
        }
        return QualificationLevel.create(
          {
            nosDocumentId: doc.id,
            level: input.level,
            slug: input.slug || `${trade.slug}-level-${input.level}`,
            purpose: input.purpose,
          },
          { transaction },
        );
      });
      return adminLevel(level);
    },

    async updateLevel(id: string, patch: Partial<LevelFields>) {
      const level = await sequelize.transaction(async (transaction) => {
        const level = await levelById(id, transaction);
        await editableDocument(level.nosDocumentId, transaction);
        if (
          patch.level !== undefined &&
          patch.level !== level.level &&
          (await QualificationLevel.count({
            where: { nosDocumentId: level.nosDocumentId, level: patch.level },
            transaction,
          }))
        ) {
          throw conflict('catalogue.level_taken', `This NOS already has level ${patch.level}.`);
        }
        return level.update(pick(patch, ['level', 'slug', 'purpose']), { transaction });
      });
      return adminLevel(level);
    },

    /** Only a level without units goes (409 catalogue.level_not_empty). */
    async deleteLevel(id: string) {
      await sequelize.transaction(async (transaction) => {
        const level = await levelById(id, transaction);
        await editableDocument(level.nosDocumentId, transaction);
        const units = await Unit.count({ where: { qualificationLevelId: id }, transaction });
        if (units)
          throw conflict(
            'catalogue.level_not_empty',
            `Level ${level.level} still has ${units} unit(s): remove them first.`,
          );
        await level.destroy({ transaction });
      });
      return { deleted: true as const };
    },

    async listUnits(levelId: string) {
      await levelById(levelId);
      return adminUnits(
        await Unit.findAll({
          where: { qualificationLevelId: levelId },
          order: [
            ['position', 'ASC'],
            ['id', 'ASC'],
          ],
        }),
      );
    },

    async createUnit(levelId: string, input: UnitFields) {
      const unit = await sequelize.transaction(async (transaction) => {
        const level = await levelById(levelId, transaction);
        await editableDocument(level.nosDocumentId, transaction);
        await referenceFree(level.nosDocumentId, input.referenceNumber, undefined, transaction);
        const position = await Unit.count({ where: { qualificationLevelId: levelId }, transaction });
        return Unit.create(
          { ...unitFields(input), qualificationLevelId: levelId, nosDocumentId: level.nosDocumentId, position },
          { transaction },
        );
      });
      return adminUnit(unit);
    },

    async updateUnit(id: string, patch: Partial<UnitFields>) {
      const unit = await sequelize.transaction(async (transaction) => {
        const unit = await unitById(id, transaction);
        await editableDocument(unit.nosDocumentId, transaction);
        if (patch.referenceNumber) await referenceFree(unit.nosDocumentId, patch.referenceNumber, unit.id, transaction);
        return unit.update(
          pick(patch, [
            'referenceNumber',
            'title',
            'isMandatory',
            'creditValue',
            'guidedLearningHours',
            'purpose',
            'assessmentMethods',
          ]),
          { transaction },
        );
      });
      return adminUnit(unit);
    },

    async deleteUnit(id: string) {
      await sequelize.transaction(async (transaction) => {
        const unit = await unitById(id, transaction);
        await editableDocument(unit.nosDocumentId, transaction);
        await unit.destroy({ transaction });
      });
      return { deleted: true as const };
    },

    async listOutcomes(unitId: string) {
      await unitById(unitId);
      return (
        await LearningOutcome.findAll({
          where: { unitId },
          order: [
            ['position', 'ASC'],
            ['id', 'ASC'],
          ],
        })
      ).map(adminOutcome);
    },

    async createOutcome(unitId: string, input: OutcomeFields) {
      const outcome = await sequelize.transaction(async (transaction) => {
        const unit = await unitById(unitId, transaction);
        await editableDocument(unit.nosDocumentId, transaction);
        await outcomeReferenceFree(unitId, input.reference, undefined, transaction);
        const position = await LearningOutcome.count({ where: { unitId }, transaction });
        return LearningOutcome.create(
          {
            unitId,
            reference: input.reference,
            description: input.description,
            performanceCriteria: input.performanceCriteria,
            position,
          },
          { transaction },
        );
      });
      return adminOutcome(outcome);
    },

    async updateOutcome(id: string, patch: Partial<OutcomeFields>) {
      const outcome = await sequelize.transaction(async (transaction) => {
        const outcome = await outcomeById(id, transaction);
        const unit = await unitById(outcome.unitId, transaction);
        await editableDocument(unit.nosDocumentId, transaction);
        if (patch.reference) await outcomeReferenceFree(outcome.unitId, patch.reference, outcome.id, transaction);
        return outcome.update(pick(patch, ['reference', 'description', 'performanceCriteria']), { transaction });
      });
      return adminOutcome(outcome);
    },

    async deleteOutcome(id: string) {
      await sequelize.transaction(async (transaction) => {
        const outcome = await outcomeById(id, transaction);
        const unit = await unitById(outcome.unitId, transaction);
        await editableDocument(unit.nosDocumentId, transaction);
        await outcome.destroy({ transaction });
      });
      return { deleted: true as const };
    },
  };

  async function referenceFree(
    nosDocumentId: string,
    referenceNumber: string,
    except: string | undefined,
    transaction: Transaction,
  ) {
    const where = {
      nosDocumentId,
      [Op.and]: [sameText('reference_number', referenceNumber)],
      ...(except ? { id: { [Op.ne]: except } } : {}),
    };
    if (await Unit.count({ where, transaction }))
      throw conflict('catalogue.reference_taken', `This NOS already has a unit ${referenceNumber}.`);
  }
  async function outcomeReferenceFree(
    unitId: string,
    reference: string,
    except: string | undefined,
    transaction: Transaction,
  ) {
    const where = {
      unitId,
      [Op.and]: [sameText('reference', reference)],
      ...(except ? { id: { [Op.ne]: except } } : {}),
    };
    if (await LearningOutcome.count({ where, transaction }))
      throw conflict('catalogue.reference_taken', `This unit already has an outcome ${reference}.`);
  }
}

export type Catalogue = ReturnType<typeof createCatalogue>;

const unitFields = (input: UnitFields) => ({
  referenceNumber: input.referenceNumber.trim(),
  title: input.title.trim(),
  isMandatory: input.isMandatory,
  creditValue: input.creditValue ?? null,
  guidedLearningHours: input.guidedLearningHours ?? null,
  purpose: input.purpose ?? null,
  assessmentMethods: input.assessmentMethods ?? [],
});

/** References are compared without case: `mas/l1/01` is `MAS/L1/01`. */
const sameText = (column: string, value: string) => sqlWhere(fn('upper', col(column)), value.trim().toUpperCase());

function groupBy<T>(rows: T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const group = groups.get(k);
    if (group) group.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}

function pick<T extends object, K extends keyof T>(value: T, keys: K[]): Partial<Pick<T, K>> {
  const picked: Partial<Pick<T, K>> = {};
  for (const key of keys) if (value[key] !== undefined) picked[key] = value[key];
  return picked;
}

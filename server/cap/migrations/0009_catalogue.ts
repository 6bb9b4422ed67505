import { DataTypes, type QueryInterface } from 'sequelize';

const schema = 'cap';
const table = (tableName: string) => ({ tableName, schema });
const id = { type: DataTypes.STRING(26), primaryKey: true, allowNull: false };
const ref = (tableName: string) => ({
  type: DataTypes.STRING(26),
  allowNull: false,
  references: { model: table(tableName), key: 'id' },
  onDelete: 'CASCADE',
});
const stamps = {
  created_at: { type: DataTypes.DATE, allowNull: false },
  updated_at: { type: DataTypes.DATE, allowNull: false },
};

/**
 * The catalogue: sectors, their trades, and each trade's National Occupational Standard (NOS) documents.
 * A trade has one active NOS; importing a new one supersedes it but keeps it, with its levels, units and
 * learning outcomes, for the applications that point at it.
 */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.createTable(table('sectors'), {
    id,
    slug: { type: DataTypes.STRING(80), allowNull: false, unique: true },
    name: { type: DataTypes.STRING(160), allowNull: false },
    description: { type: DataTypes.TEXT, allowNull: true },
    ...stamps,
  });
  await q.createTable(table('trades'), {
    id,
    // No cascade: a sector is deleted only when it has no trades.
    sector_id: { type: DataTypes.STRING(26), allowNull: false, references: { model: table('sectors'), key: 'id' } },
    slug: { type: DataTypes.STRING(80), allowNull: false, unique: true },
    name: { type: DataTypes.STRING(160), allowNull: false },
    description: { type: DataTypes.TEXT, allowNull: true },
    status: { type: DataTypes.STRING(16), allowNull: false },
    evidence_types: { type: DataTypes.JSONB, allowNull: false },
    archived_at: { type: DataTypes.DATE, allowNull: true },
    ...stamps,
  });
  await q.addIndex(table('trades'), ['sector_id', 'status'], { name: 'trades_sector_status' });
  await q.createTable(table('nos_documents'), {
    id,
    trade_id: ref('trades'),
    version: { type: DataTypes.INTEGER, allowNull: false },
    title: { type: DataTypes.STRING(200), allowNull: false },
    status: { type: DataTypes.STRING(16), allowNull: false },
    ...stamps,
  });
  await q.addIndex(table('nos_documents'), ['trade_id', 'version'], {
    name: 'nos_documents_trade_version',
    unique: true,
  });
  await q.sequelize.query(
    `CREATE UNIQUE INDEX nos_documents_one_active ON cap.nos_documents (trade_id) WHERE status = 'active'`,
  );
  await q.createTable(table('qualification_levels'), {
    id,
    nos_document_id: ref('nos_documents'),
    level: { type: DataTypes.INTEGER, allowNull: false },
    slug: { type: DataTypes.STRING(120), allowNull: false },
    purpose: { type: DataTypes.TEXT, allowNull: false },
    ...stamps,
  });
  await q.addIndex(table('qualification_levels'), ['nos_document_id', 'level'], {
    name: 'qualification_levels_document_level',
    unique: true,
  });
  await q.createTable(table('units'), {
    id,
    qualification_level_id: ref('qualification_levels'),
    // The document the unit belongs to, so a reference number is unique per document.
    nos_document_id: ref('nos_documents'),
    reference_number: { type: DataTypes.STRING(60), allowNull: false },
    title: { type: DataTypes.STRING(300), allowNull: false },
    is_mandatory: { type: DataTypes.BOOLEAN, allowNull: false },
    credit_value: { type: DataTypes.INTEGER, allowNull: true },
    guided_learning_hours: { type: DataTypes.INTEGER, allowNull: true },
    purpose: { type: DataTypes.TEXT, allowNull: true },
    assessment_methods: { type: DataTypes.JSONB, allowNull: false },
    position: { type: DataTypes.INTEGER, allowNull: false },
    ...stamps,
  });
  await q.addIndex(table('units'), ['nos_document_id', 'reference_number'], {
    name: 'units_document_reference',
    unique: true,
  });
  await q.addIndex(table('units'), ['qualification_level_id', 'position'], { name: 'units_level_position' });
  await q.createTable(table('learning_outcomes'), {
    id,
    unit_id: ref('units'),
    reference: { type: DataTypes.STRING(40), allowNull: false },
    description: { type: DataTypes.TEXT, allowNull: false },
    // [{reference, description}], in order.
    performance_criteria: { type: DataTypes.JSONB, allowNull: false },
    position: { type: DataTypes.INTEGER, allowNull: false },
    ...stamps,
  });
  await q.addIndex(table('learning_outcomes'), ['unit_id', 'reference'], {
    name: 'learning_outcomes_unit_reference',
    unique: true,
  });
  // The public centre list reads approved centres by name.
  await q.addIndex(table('centres'), ['status', 'name', 'id'], { name: 'centres_status_name' });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.sequelize.query('DROP INDEX cap.centres_status_name');
  for (const name of ['learning_outcomes', 'units', 'qualification_levels', 'nos_documents', 'trades', 'sectors'])
    await q.dropTable(table(name));
}

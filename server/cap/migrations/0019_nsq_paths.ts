import { DataTypes, type QueryInterface } from 'sequelize';

const schema = 'cap';
const table = (tableName: string) => ({ tableName, schema });
const application = {
  type: DataTypes.STRING(26),
  allowNull: false,
  references: { model: table('applications'), key: 'id' },
  onDelete: 'CASCADE',
};
const unit = { type: DataTypes.STRING(26), allowNull: false, references: { model: table('units'), key: 'id' } };
const text = (length: number, allowNull = true) => ({ type: DataTypes.STRING(length), allowNull });

/**
 * NSQ paths (nsq/service.ts). Unit assessors are assessor assignments (`application_assessors`, role
 * unit_assessor); these tables hold the rest:
 * - `nsq_inductions`: the candidate's induction form, one per application: the level and units they wish
 *   to be assessed on (a wish-list from the application's NOS document).
 * - `nsq_unit_records`: what is recorded per unit: the candidate's evidence and the unit assessor's direct
 *   observations.
 * - `nsq_unit_signoffs`: a unit assessor's sign-off of a unit, once per unit.
 */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.createTable(table('nsq_inductions'), {
    application_id: { ...application, primaryKey: true },
    level: { type: DataTypes.INTEGER, allowNull: false },
    unit_ids: { type: DataTypes.JSONB, allowNull: false },
    submitted_by: text(26, false),
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false },
  });
  await q.createTable(table('nsq_unit_records'), {
    id: { type: DataTypes.STRING(26), primaryKey: true, allowNull: false },
    application_id: application,
    unit_id: unit,
    kind: text(16, false),
    document_name: text(300),
    asset_id: text(64),
    text_value: { type: DataTypes.TEXT, allowNull: true },
    observed_at: { type: DataTypes.DATE, allowNull: true },
    location: text(500),
    outcome: text(24),
    recorded_by: text(26, false),
    created_at: { type: DataTypes.DATE, allowNull: false },
  });
  await q.sequelize.query(
    `ALTER TABLE cap.nsq_unit_records ADD CONSTRAINT nsq_unit_records_kind CHECK (kind IN ('evidence', 'observation'))`,
  );
  await q.addIndex(table('nsq_unit_records'), ['application_id', 'unit_id', 'id'], { name: 'nsq_unit_records_unit' });
  await q.createTable(table('nsq_unit_signoffs'), {
    application_id: { ...application, primaryKey: true },
    unit_id: { ...unit, primaryKey: true },
    assessor_id: {
      type: DataTypes.STRING(26),
      allowNull: false,
      references: { model: table('assessor_profiles'), key: 'id' },
    },
    signature_asset_id: text(64, false),
    signed_at: { type: DataTypes.DATE, allowNull: false },
  });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  for (const name of ['nsq_unit_signoffs', 'nsq_unit_records', 'nsq_inductions']) await q.dropTable(table(name));
}

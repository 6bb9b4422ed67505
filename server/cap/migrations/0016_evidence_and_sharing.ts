import { DataTypes, type QueryInterface } from 'sequelize';

const schema = 'cap';
const table = (tableName: string) => ({ tableName, schema });
const id = { type: DataTypes.STRING(26), primaryKey: true, allowNull: false };
const application = {
  type: DataTypes.STRING(26),
  allowNull: false,
  references: { model: table('applications'), key: 'id' },
  onDelete: 'CASCADE',
};
const at = (allowNull = false) => ({ type: DataTypes.DATE, allowNull });

/**
 * The evidence vault of an application (evidence/service.ts): general evidence (typed by the trade's
 * evidence types; files are Orchestrator assets), the self-assessment (one per application, frozen on
 * submit) and the third-party report (one per application). Share tokens (stored as SHA-256 digests;
 * one live token per application). Moves record the outcome of a review (`APPROVED`, `REJECTED`): the
 * stage history that `ivApproved=true` reads.
 */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.createTable(table('application_evidence'), {
    id,
    application_id: application,
    document_name: { type: DataTypes.STRING(300), allowNull: false },
    evidence_type: { type: DataTypes.STRING(200), allowNull: false },
    asset_id: { type: DataTypes.STRING(26), allowNull: true },
    form_data: { type: DataTypes.JSONB, allowNull: true },
    text_value: { type: DataTypes.TEXT, allowNull: true },
    created_by: { type: DataTypes.STRING(26), allowNull: false },
    created_at: at(),
    updated_at: at(),
  });
  await q.addIndex(table('application_evidence'), ['application_id', 'id'], {
    name: 'application_evidence_application',
  });
  await q.createTable(table('self_assessments'), {
    id,
    application_id: { ...application, unique: true },
    competencies: { type: DataTypes.JSONB, allowNull: false },
    reflection: { type: DataTypes.JSONB, allowNull: true },
    declaration: { type: DataTypes.JSONB, allowNull: true },
    frozen_personal_information: { type: DataTypes.JSONB, allowNull: true },
    submitted_at: at(true),
    created_at: at(),
    updated_at: at(),
  });
  await q.createTable(table('third_party_reports'), {
    id,
    application_id: { ...application, unique: true },
    asset_id: { type: DataTypes.STRING(26), allowNull: false },
    submitted_by: { type: DataTypes.STRING(26), allowNull: false },
    submitted_at: at(),
  });
  await q.createTable(table('application_share_tokens'), {
    id,
    application_id: application,
    token_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
    created_by: { type: DataTypes.STRING(26), allowNull: false },
    created_at: at(),
    revoked_at: at(true),
  });
  await q.sequelize.query(
    `CREATE UNIQUE INDEX application_share_tokens_live ON cap.application_share_tokens (application_id) WHERE revoked_at IS NULL`,
  );
  await q.addColumn(table('application_moves'), 'status', { type: DataTypes.STRING(16), allowNull: true });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.removeColumn(table('application_moves'), 'status');
  for (const name of ['application_share_tokens', 'third_party_reports', 'self_assessments', 'application_evidence'])
    await q.dropTable(table(name));
}

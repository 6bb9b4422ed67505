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

/**
 * Applications (applications/lifecycle.ts): the application with its draft, where it is (stage and
 * status), each stage's status, the history of its moves, and the versions snapshotted on submit.
 * The NOS document is fixed when the application is made, so a later NOS import does not change it.
 */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.createTable(table('applications'), {
    id,
    candidate_user_id: {
      type: DataTypes.STRING(26),
      allowNull: false,
      references: { model: table('users'), key: 'user_id' },
    },
    centre_id: { type: DataTypes.STRING(26), allowNull: false, references: { model: table('centres'), key: 'id' } },
    type: { type: DataTypes.STRING(8), allowNull: false },
    status: { type: DataTypes.STRING(16), allowNull: false },
    current_stage_key: { type: DataTypes.STRING(40), allowNull: false },
    sector_id: { type: DataTypes.STRING(26), allowNull: false, references: { model: table('sectors'), key: 'id' } },
    trade_id: { type: DataTypes.STRING(26), allowNull: false, references: { model: table('trades'), key: 'id' } },
    nos_document_id: {
      type: DataTypes.STRING(26),
      allowNull: true,
      references: { model: table('nos_documents'), key: 'id' },
    },
    // {personalInformation, experienceAndTrade, assessmentDeclaration}, as the client sends it.
    draft: { type: DataTypes.JSONB, allowNull: false },
    submitted_at: { type: DataTypes.DATE, allowNull: true },
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false },
  });
  // One open draft per candidate, centre and type: a second create is the client's "resume".
  await q.sequelize.query(
    `CREATE UNIQUE INDEX applications_one_draft ON cap.applications (candidate_user_id, centre_id, type) WHERE status = 'draft'`,
  );
  await q.addIndex(table('applications'), ['candidate_user_id', 'id'], { name: 'applications_candidate' });
  await q.addIndex(table('applications'), ['centre_id', 'id'], { name: 'applications_centre' });
  await q.createTable(table('application_stages'), {
    application_id: { ...application, primaryKey: true },
    stage_key: { type: DataTypes.STRING(40), allowNull: false, primaryKey: true },
    position: { type: DataTypes.INTEGER, allowNull: false },
    status: { type: DataTypes.STRING(20), allowNull: false },
    entered_at: { type: DataTypes.DATE, allowNull: true },
    completed_at: { type: DataTypes.DATE, allowNull: true },
  });
  await q.createTable(table('application_moves'), {
    id,
    application_id: application,
    action: { type: DataTypes.STRING(32), allowNull: false },
    from_stage: { type: DataTypes.STRING(40), allowNull: false },
    to_stage: { type: DataTypes.STRING(40), allowNull: false },
    actor_user_id: { type: DataTypes.STRING(26), allowNull: true },
    actor: { type: DataTypes.STRING(16), allowNull: false },
    feedback: { type: DataTypes.TEXT, allowNull: true },
    created_at: { type: DataTypes.DATE, allowNull: false },
  });
  await q.addIndex(table('application_moves'), ['application_id', 'id'], { name: 'application_moves_application' });
  await q.createTable(table('application_versions'), {
    id,
    application_id: application,
    version_no: { type: DataTypes.INTEGER, allowNull: false },
    data: { type: DataTypes.JSONB, allowNull: false },
    submitted_by: { type: DataTypes.STRING(26), allowNull: false },
    feedback: { type: DataTypes.TEXT, allowNull: true },
    created_at: { type: DataTypes.DATE, allowNull: false },
  });
  await q.addIndex(table('application_versions'), ['application_id', 'version_no'], {
    name: 'application_versions_number',
    unique: true,
  });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  for (const name of ['application_versions', 'application_moves', 'application_stages', 'applications'])
    await q.dropTable(table(name));
}

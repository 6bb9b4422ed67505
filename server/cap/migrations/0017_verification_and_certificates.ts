import { DataTypes, type QueryInterface } from 'sequelize';

const schema = 'cap';
const table = (tableName: string) => ({ tableName, schema });
const awardingBody = {
  type: DataTypes.STRING(26),
  allowNull: true,
  references: { model: table('awarding_bodies'), key: 'id' },
};

/**
 * Verification and certificates (verification/service.ts). A trade names the awarding body that
 * certifies it; an application records the awarding body it was forwarded to, and when. A certificate
 * is one per application: its PDF is an Orchestrator asset, its verification code is unique. A move's
 * actor can now be the `internal_verifier` or the `awarding_body`.
 */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.changeColumn(table('application_moves'), 'actor', { type: DataTypes.STRING(24), allowNull: false });
  await q.addColumn(table('trades'), 'awarding_body_id', awardingBody);
  await q.addColumn(table('applications'), 'awarding_body_id', awardingBody);
  await q.addColumn(table('applications'), 'forwarded_at', { type: DataTypes.DATE, allowNull: true });
  await q.addIndex(table('applications'), ['awarding_body_id', 'id'], { name: 'applications_awarding_body' });
  await q.createTable(table('certificates'), {
    id: { type: DataTypes.STRING(26), primaryKey: true, allowNull: false },
    application_id: {
      type: DataTypes.STRING(26),
      allowNull: false,
      unique: true,
      references: { model: table('applications'), key: 'id' },
      onDelete: 'CASCADE',
    },
    awarding_body_id: { ...awardingBody, allowNull: false },
    certificate_asset_id: { type: DataTypes.STRING(26), allowNull: false },
    verification_code: { type: DataTypes.STRING(32), allowNull: false, unique: true },
    issued_by: { type: DataTypes.STRING(26), allowNull: false },
    issued_at: { type: DataTypes.DATE, allowNull: false },
  });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.dropTable(table('certificates'));
  await q.sequelize.query('DROP INDEX cap.applications_awarding_body');
  await q.removeColumn(table('applications'), 'forwarded_at');
  await q.removeColumn(table('applications'), 'awarding_body_id');
  await q.removeColumn(table('trades'), 'awarding_body_id');
  await q.changeColumn(table('application_moves'), 'actor', { type: DataTypes.STRING(16), allowNull: false });
}

import { DataTypes, type QueryInterface } from 'sequelize';

const identityChecks = { tableName: 'identity_checks', schema: 'ol' };

/** One row per identity check. The document number itself is never stored: only its keyed hash. */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.createTable(identityChecks, {
    id: { type: DataTypes.STRING(26), primaryKey: true, allowNull: false },
    user_id: {
      type: DataTypes.STRING(26),
      allowNull: false,
      references: { model: { tableName: 'users', schema: 'ol' }, key: 'id' },
      onDelete: 'CASCADE',
    },
    document_type: { type: DataTypes.STRING(16), allowNull: false },
    // HMAC-SHA256 (hex) of `type:number` under IDENTITY_HMAC_KEY.
    number_hmac: { type: DataTypes.STRING(64), allowNull: false },
    outcome: { type: DataTypes.STRING(16), allowNull: false },
    provider: { type: DataTypes.STRING(32), allowNull: false },
    provider_reference: { type: DataTypes.STRING(128), allowNull: false },
    verified_at: { type: DataTypes.DATE, allowNull: true },
    created_at: { type: DataTypes.DATE, allowNull: false },
  });
  await q.addIndex(identityChecks, ['user_id', 'created_at'], { name: 'identity_checks_user' });
  // Finds other accounts that checked the same number, without knowing the number.
  await q.addIndex(identityChecks, ['number_hmac'], { name: 'identity_checks_number_hmac' });
  await q.addConstraint(identityChecks, {
    type: 'check',
    name: 'identity_checks_outcome_check',
    fields: ['outcome'],
    where: { outcome: ['verified', 'name_mismatch', 'dob_mismatch', 'not_found'] },
  });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.dropTable(identityChecks);
}

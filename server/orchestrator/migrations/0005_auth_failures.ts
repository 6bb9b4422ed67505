import { DataTypes, type QueryInterface } from 'sequelize';

const failures = { tableName: 'auth_failures', schema: 'ol' };

/** Failed sign-ins and wrong codes, by what they were aimed at: the ledger the throttles count. */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.createTable(failures, {
    id: { type: DataTypes.STRING(26), primaryKey: true, allowNull: false },
    // `login` or an OTP purpose.
    kind: { type: DataTypes.STRING(32), allowNull: false },
    // What a limit counts by: `account:<user id or email>`, `address:<client address>`, or both.
    subject: { type: DataTypes.STRING(400), allowNull: false },
    created_at: { type: DataTypes.DATE, allowNull: false },
  });
  await q.addIndex(failures, ['kind', 'subject', 'created_at'], { name: 'auth_failures_subject' });
  await q.addIndex(failures, ['created_at'], { name: 'auth_failures_created' });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.dropTable(failures);
}

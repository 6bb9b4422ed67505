import { DataTypes, type QueryInterface } from 'sequelize';

const known = { tableName: 'auth_known_clients', schema: 'ol' };

/** The accounts each client address signed in to, and when last: the sign-in throttle lets them through (throttle.ts). */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.createTable(known, {
    // `account:<email>|address:<client address>`, as the failures count it.
    subject: { type: DataTypes.STRING(400), primaryKey: true, allowNull: false },
    signed_in_at: { type: DataTypes.DATE, allowNull: false },
  });
  await q.addIndex(known, ['signed_in_at'], { name: 'auth_known_clients_signed_in' });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.dropTable(known);
}

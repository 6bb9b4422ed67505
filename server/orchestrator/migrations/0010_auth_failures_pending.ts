import { DataTypes, type QueryInterface } from 'sequelize';

const failures = { tableName: 'auth_failures', schema: 'ol' };

/** A sign-in or code try is counted before it is checked: pending until the check settles it (throttle.ts). */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.addColumn(failures, 'pending', { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.removeColumn(failures, 'pending');
}
